// A request for approval as it is kept and told: read back (or refused as unknown), written to the
// hash-chained audit log, pushed to the screens as its view, and voided when the batch it covers
// changes. ApprovalService decides requests through it; a batch reaches it through
// batchApprovals(), wired before ApprovalService, which starts batches through BatchService.
import type { ApprovalKind, ApprovalView, ReviewedPayout } from '../../../shared/contract';
import { isJsonObject, parseJson } from '../../../shared/json';
import type { ApprovalRecord } from '../../ledger/repositories/approvals';
import type { NewAuditEntry } from '../../ledger/repositories/audit-log';
import type { Repositories } from '../../ledger/repositories/index';
import type { Profile } from '../../ledger/repositories/profiles';
import { ServiceError } from '../errors';
import type { EventBus } from '../event-bus';
import type { Notices } from '../notices/notices';
import type { BatchApprovals } from '../payouts-batch/batch-service';
import type { ApprovalPoliciesService } from './approval-policies';
import { approvalMove } from './approval-states';

/** What a payout's approval and a batch's differ in. */
export const APPROVED = {
  payout: {
    sentThen: 'the payout was sent then, once',
    /** The audit log names a payout by its merchantReference. */
    auditSubject: (subject: string) => subject,
    reviewed: (reviewed: unknown) => ({ payout: reviewed as ReviewedPayout, batch: null }),
  },
  batch: {
    sentThen: 'the batch started then',
    auditSubject: (subject: string) => `batch:${subject}`,
    reviewed: (reviewed: unknown) => ({ payout: null, batch: reviewed as NonNullable<ApprovalView['batch']> }),
  },
} as const satisfies Record<ApprovalKind, unknown>;

/** Paydesk's own void of a batch's approval when the batch changed. */
const VOID = approvalMove('awaiting', 'voided');

/** An approval's audit entry: the maker's payout by its merchantReference, a batch as batch:<id>. */
export function approvalAuditEntry(approval: ApprovalRecord, action: string, details: Record<string, unknown>, actor: 'user' | 'system' = 'user'): NewAuditEntry {
  return { actor, action, profileId: approval.profileId, subject: APPROVED[approval.kind].auditSubject(approval.subject), details: { kind: approval.kind, ...details } };
}

export interface ApprovalRecordsDeps {
  repos: Pick<Repositories, 'approvals' | 'audit' | 'profiles' | 'transaction'>;
  events: EventBus;
  /** Tells the approvers of a request and the maker of its decision, with its audit entry (services/notices). */
  notices?: Pick<Notices, 'approvalMoved'>;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

export class ApprovalRecords {
  constructor(private readonly deps: ApprovalRecordsDeps) {}

  async require(id: number): Promise<ApprovalRecord> {
    const approval = await this.deps.repos.approvals.byId(id);
    if (!approval) throw new ServiceError('not_found', `No approval ${id}.`);
    return approval;
  }

  /** Audits an approval's move and tells whom it concerns: both in the caller's transaction, with the move. */
  async audit(approval: ApprovalRecord, action: string, details: Record<string, unknown>, actor: 'user' | 'system' = 'user'): Promise<void> {
    await this.deps.repos.audit.append(approvalAuditEntry(approval, action, details, actor));
    await this.deps.notices?.approvalMoved(approval, action, { approver: text(details.approver), reason: text(details.reason) });
  }

  async publish(approval: ApprovalRecord): Promise<ApprovalView> {
    const view = await this.view(approval);
    this.deps.events.publish('approvals:approval-changed', view);
    return view;
  }

  async view(record: ApprovalRecord): Promise<ApprovalView> {
    return this.viewOf(record, await this.deps.repos.profiles.get(record.profileId));
  }

  /** `profile`: the approval's, when it still exists (else its id and the environment recorded with it are shown). */
  viewOf(record: ApprovalRecord, profile: Profile | undefined): ApprovalView {
    const reviewed = parseJson(record.reviewed);
    return {
      id: record.id,
      kind: record.kind,
      state: record.state,
      profile: { id: record.profileId, name: profile?.name ?? record.profileId, environment: (profile?.environment ?? record.environment) as ApprovalView['profile']['environment'] },
      subject: record.subject,
      currency: record.currency,
      amount: record.amount,
      itemCount: record.itemCount,
      ...APPROVED[record.kind].reviewed(reviewed),
      policy: record.policy,
      maker: { id: record.makerId, name: record.makerName },
      decidedBy: record.decidedById !== null && record.decidedByName !== null ? { id: record.decidedById, name: record.decidedByName } : null,
      reason: record.reason,
      bodyHash: record.bodyHash,
      idempotencyKey: record.idempotencyKey,
      createdAt: record.createdAt,
      expiresAt: record.expiresAt,
      decidedAt: record.decidedAt,
      needsCardNumber: needsCardNumber(record),
    };
  }

  /** Whether the batch awaits a decision. */
  async batchAwaits(profileId: string, batchId: number): Promise<boolean> {
    return (await this.deps.repos.approvals.awaitingFor('batch', profileId, String(batchId))) !== undefined;
  }

  /** The batch changed or went away while it awaited a decision: its approval no longer holds (audited, pushed). */
  async voidFor(profileId: string, batchId: number, why: string): Promise<void> {
    const approval = await this.deps.repos.approvals.awaitingFor('batch', profileId, String(batchId));
    if (!approval) return;
    const voided = await this.deps.repos.transaction(async () => {
      if (!(await this.deps.repos.approvals.decide(approval.id, VOID, { reason: why, decidedById: null, decidedByName: null }))) return false;
      await this.audit(approval, 'approval.void', { approvalId: approval.id, maker: approval.makerName, reason: why });
      return true;
    });
    if (voided) await this.publish(await this.require(approval.id));
  }
}

/** The approval policy and the requests for approval as a batch meets them (BatchService's approvals). */
export function batchApprovals(policies: Pick<ApprovalPoliciesService, 'forBatch' | 'requireTypedAmount'>, records: ApprovalRecords): BatchApprovals {
  return {
    forBatch: (profile, totals) => policies.forBatch(profile, totals),
    requireTypedAmount: (need, typed) => policies.requireTypedAmount(need, typed),
    awaiting: (profileId, batchId) => records.batchAwaits(profileId, batchId),
    voidFor: (profileId, batchId, why) => records.voidFor(profileId, batchId, why),
  };
}

/** A card payout's stored body holds its number masked (storage never keeps it): the approver types it again. */
export function needsCardNumber(approval: ApprovalRecord): boolean {
  if (approval.kind !== 'payout') return false;
  const body = parseJson(approval.body);
  return isJsonObject(body) && isJsonObject(body.paymentDetails) && body.paymentDetails.cardNum !== undefined;
}
