// Requests for approval and their decisions (issue 18, docs/team.md "Approvals"). A maker submits
// a payout or a complete draft batch the policy holds back, with the proof of their review of
// exactly it: it is stored awaiting a decision with its reviewed body (card number masked) and the
// keyed hash of the full body, and nothing is claimed or sent. An approver other than the maker
// approves it — which in one transaction records the decision, claims the payout's attempt under a
// fresh Idempotency-Key written on the approval (or starts the batch), and then sends it — or
// rejects it with a reason. The maker may withdraw it; it expires; a batch changed or discarded
// meanwhile voids it. Every step is in the hash-chained audit log with the maker, the approver,
// the policy, the times and the body's hash.
import { AsyncResource } from 'node:async_hooks';
import type { ApprovalDecision, ApprovalView, BatchView, PayoutCreateRequest, ReviewedPayout } from '../../../shared/contract';
import { isJsonObject, parseJson } from '../../../shared/json';
import { amountText } from '../../../shared/money';
import type { PayoutCreateInput } from '../../gateway/endpoints';
import { serializeCreateBody } from '../../gateway/serialize';
import type { ApprovalRecord } from '../../ledger/repositories/approvals';
import { storedRequest } from '../../ledger/repositories/attempts';
import type { Repositories } from '../../ledger/repositories/index';
import type { Profile } from '../../ledger/repositories/profiles';
import type { Logger } from '../../logger';
import { ServiceError } from '../errors';
import type { EventBus } from '../event-bus';
import { payoutReviewSubject, type PayoutService } from '../payments/payout-service';
import type { ReviewGate } from '../payments/review-gate';
import { reviewedPayout } from '../payments/review-views';
import type { BatchApprovals, BatchService } from '../payouts-batch/batch-service';
import type { RequestPerson } from '../team/request-context';
import type { ApprovalDigest } from './approval-digest';
import type { ApprovalPoliciesService } from './approval-policies';

export interface ApprovalServiceDeps {
  repos: Pick<Repositories, 'approvals' | 'audit' | 'profiles' | 'transaction'>;
  policies: ApprovalPoliciesService;
  payouts: Pick<PayoutService, 'reviewedBody' | 'approvalNeed' | 'sendApproved'>;
  batches: () => Pick<BatchService, 'approvalSubject' | 'startApproved'>;
  reviews: ReviewGate;
  /** A team server's (a desk has nobody to approve). */
  digest?: ApprovalDigest;
  events: EventBus;
  now: () => Date;
  /** The person whose request is served (a team server); undefined on a desk. */
  person: () => RequestPerson | undefined;
  log: Logger;
  /** The expiry watch looks at most this far ahead before it looks again. Default DEFAULT_EXPIRY_RECHECK_MS. */
  expiryRecheckMs?: number;
}

const HOUR_MS = 3_600_000;

/** The expiry watch looks at the ledger again at least this often (approvals another instance submitted). */
export const DEFAULT_EXPIRY_RECHECK_MS = 60_000;

const STATE_WORDS: Record<ApprovalRecord['state'], string> = {
  awaiting: 'awaits a decision',
  approved: 'was approved',
  rejected: 'was rejected',
  expired: 'expired',
  withdrawn: 'was withdrawn',
  voided: 'was voided',
};

/** What the hash of a payout's approval covers: its profile and the exact bytes its create call sends. */
const payoutContent = (profileId: string, body: PayoutCreateInput) => `payout\n${profileId}\n${serializeCreateBody<'payout_create'>(body)}`;
const batchContent = (profileId: string, content: string) => `batch\n${profileId}\n${content}`;

export class ApprovalService {
  private watched = false;
  private watching: Promise<void> = Promise.resolve();
  private expiryTimer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: ApprovalServiceDeps) {}

  /** The policy as a batch meets it (BatchService's approvals). */
  batchApprovals(): BatchApprovals {
    return {
      forBatch: (profile, totals) => this.deps.policies.forBatch(profile, totals),
      requireTypedAmount: (need, typed) => this.deps.policies.requireTypedAmount(need, typed),
      awaiting: async (profileId, batchId) => (await this.deps.repos.approvals.awaitingFor('batch', profileId, String(batchId))) !== undefined,
      voidFor: (profileId, batchId, why) => this.voidFor(profileId, batchId, why),
    };
  }

  async requestPayout(request: PayoutCreateRequest): Promise<ApprovalView> {
    const maker = this.requirePerson();
    const { reviewId, confirmed, typedAmount: _typed, ...form } = request;
    const { profile, body } = await this.deps.payouts.reviewedBody(form);
    const need = await this.deps.payouts.approvalNeed(profile, body);
    if (need.step !== 'approval') throw new ServiceError('conflict', `This payout does not need approval (${need.policy ?? 'no approval policy applies'}): send it.`);
    if (await this.deps.repos.approvals.awaitingFor('payout', profile.id, body.merchantReference)) {
      throw new ServiceError('conflict', `A payout with merchantReference ${body.merchantReference} already awaits approval.`, { merchantReference: 'already awaits approval' });
    }
    // The maker reviewed exactly this body, whatever the environment.
    this.deps.reviews.redeem({ reviewId, confirmed }, payoutReviewSubject(profile, body), 'live');
    const reviewed = reviewedPayout(body as unknown as Record<string, unknown>);
    return this.submit(maker, profile, {
      kind: 'payout',
      subject: body.merchantReference,
      currency: body.currency,
      amount: reviewed.amount,
      itemCount: 1,
      body: storedRequest(body).text,
      bodyHash: await this.digest().of(payoutContent(profile.id, body)),
      reviewed: JSON.stringify(reviewed),
      policy: need.policy ?? '',
    });
  }

  async requestBatch(input: { id: number; reviewId?: string | undefined; confirmed?: boolean | undefined }): Promise<ApprovalView> {
    const maker = this.requirePerson();
    const subject = await this.deps.batches().approvalSubject(input.id);
    const need = await this.deps.policies.forBatch(subject.profile, subject.totals);
    if (need.step !== 'approval') throw new ServiceError('conflict', `Batch ${input.id} does not need approval: start it.`);
    if (await this.deps.repos.approvals.awaitingFor('batch', subject.profile.id, String(input.id))) throw new ServiceError('conflict', `Batch ${input.id} already awaits approval.`);
    this.deps.reviews.redeem({ reviewId: input.reviewId, confirmed: input.confirmed }, { kind: 'batch_start', profileId: subject.profile.id, content: subject.content }, 'live');
    const totals = subject.totals.map((t) => ({ ...t, amount: amountText(t.amount, t.currency) }));
    return this.submit(maker, subject.profile, {
      kind: 'batch',
      subject: String(input.id),
      currency: totals.map((t) => t.currency).join(', '),
      amount: totals.length === 1 ? totals[0]!.amount : totals.map((t) => `${t.amount} ${t.currency}`).join('; '),
      itemCount: subject.rows,
      body: subject.content,
      bodyHash: await this.digest().of(batchContent(subject.profile.id, subject.content)),
      reviewed: JSON.stringify({ id: input.id, name: subject.batch.fileName, totals }),
      policy: need.policy ?? '',
    });
  }

  async list(input: { scope: 'queue' | 'mine' | 'decided'; cursor?: string | null | undefined; limit?: number | undefined }): Promise<{ items: ApprovalView[]; nextCursor: string | null; awaiting: number }> {
    const person = this.requirePerson();
    const filter =
      input.scope === 'queue' ? { states: ['awaiting' as const] } : input.scope === 'mine' ? { makerId: person.id } : { states: ['approved', 'rejected', 'expired', 'withdrawn', 'voided'] as const };
    const page = await this.deps.repos.approvals.page(filter, { cursor: input.cursor, limit: input.limit ?? 50 });
    // One read of the profiles for the page, not one per approval.
    const profiles = new Map((await this.deps.repos.profiles.list()).map((profile) => [profile.id, profile]));
    const items = page.items.map((record) => this.viewOf(record, profiles.get(record.profileId)));
    return { items, nextCursor: page.nextCursor, awaiting: await this.deps.repos.approvals.countAwaiting() };
  }

  async get(id: number): Promise<ApprovalView> {
    return this.view(await this.require(id));
  }

  /**
   * Approves and sends: a payout under a fresh Idempotency-Key written on the approval in the
   * transaction that claims its attempt; a batch started in the transaction that records the
   * decision. Refused to the maker, and once decided, withdrawn or expired; a card payout's number
   * must be typed again and give exactly the reviewed body.
   */
  async approve(input: { id: number; cardNum?: string | undefined }): Promise<ApprovalDecision> {
    const approver = this.requirePerson();
    await this.expire();
    const approval = await this.require(input.id);
    this.requireDecidable(approval, approver, 'approve');
    const decision = { state: 'approved' as const, reason: null, decidedById: approver.id, decidedByName: approver.displayName };
    const facts = { approvalId: approval.id, maker: approval.makerName, approver: approver.displayName, policy: approval.policy, bodyHash: approval.bodyHash, requestedAt: approval.createdAt };
    const decide = async (key: string | null) => {
      if (!(await this.deps.repos.approvals.decide(approval.id, decision, this.deps.now()))) {
        throw new ServiceError('conflict', `Approval ${approval.id} was decided, withdrawn or expired meanwhile: nothing was sent.`);
      }
      if (key !== null) await this.deps.repos.approvals.setKey(approval.id, key);
      await this.audit(approval, 'approval.approve', { ...facts, idempotencyKey: key });
    };
    let payout: ApprovalDecision['payout'] = null;
    let batch: BatchView | null = null;
    if (approval.kind === 'payout') {
      const profile = await this.profile(approval.profileId);
      const body = await this.approvedBody(approval, input.cardNum);
      payout = await this.deps.payouts.sendApproved(profile, body, facts, { afterPrepare: (key) => decide(key) });
    } else {
      const subject = await this.deps.batches().approvalSubject(Number(approval.subject));
      if (!(await this.digest().matches(batchContent(subject.profile.id, subject.content), approval.bodyHash))) {
        await this.voidFor(approval.profileId, Number(approval.subject), 'the batch is not the one submitted');
        throw new ServiceError('conflict', `Batch ${approval.subject} changed after it was submitted: its approval is void and nothing was sent. The maker submits it again.`);
      }
      batch = await this.deps.batches().startApproved(subject, () => decide(null), facts);
    }
    return { approval: await this.publish(await this.require(approval.id)), payout, batch };
  }

  async reject(input: { id: number; reason: string }): Promise<ApprovalView> {
    const approver = this.requirePerson();
    await this.expire();
    const approval = await this.require(input.id);
    this.requireDecidable(approval, approver, 'reject');
    return this.close(approval, { state: 'rejected', reason: input.reason, decidedById: approver.id, decidedByName: approver.displayName }, 'approval.reject', { approver: approver.displayName, reason: input.reason });
  }

  /** The maker takes back what awaits a decision. */
  async withdraw(input: { id: number }): Promise<ApprovalView> {
    const person = this.requirePerson();
    await this.expire();
    const approval = await this.require(input.id);
    if (approval.makerId !== person.id) throw new ServiceError('forbidden', `Only ${approval.makerName}, who submitted it, can withdraw approval ${approval.id}.`);
    if (approval.state !== 'awaiting') throw new ServiceError('conflict', `Approval ${approval.id} ${STATE_WORDS[approval.state]}: there is nothing to withdraw.`);
    return this.close(approval, { state: 'withdrawn', reason: null, decidedById: person.id, decidedByName: person.displayName }, 'approval.withdraw', {});
  }

  /**
   * Expires awaiting approvals when they are due, not when somebody next reads them: a timer set
   * for the next expiry, at most expiryRecheckMs ahead (so approvals submitted through another
   * instance are caught too), set again after each round and each submit. Every instance of a
   * team server runs one; each approval is expired, audited and pushed once (expireDue moves each
   * row once). A decision expires what is due first as well, whatever the timer.
   */
  watchExpiry(): Promise<void> {
    this.watched = true;
    this.watching = this.watching.then(this.expiryRound);
    return this.watching;
  }

  /** A round of the watch, run outside the request that may have set it off (a submit): no person's context carries on in its timer. */
  private readonly expiryRound = AsyncResource.bind(() => this.expireAndRearm());

  async unwatchExpiry(): Promise<void> {
    this.watched = false;
    clearTimeout(this.expiryTimer);
    await this.watching;
  }

  private async expireAndRearm(): Promise<void> {
    clearTimeout(this.expiryTimer);
    if (!this.watched) return;
    let delay = this.deps.expiryRecheckMs ?? DEFAULT_EXPIRY_RECHECK_MS;
    try {
      await this.expire();
      const next = await this.deps.repos.approvals.nextExpiry();
      if (next !== undefined) delay = Math.min(delay, Math.max(0, Date.parse(next) - this.deps.now().getTime()));
    } catch (error) {
      try {
        this.deps.log.error('expiring approvals failed; trying again', error);
      } catch {
        // A failing logger must not end the watch.
      }
    }
    if (this.watched) this.expiryTimer = setTimeout(() => void this.watchExpiry(), delay).unref();
  }

  /** Awaiting approvals past their time become expired (when due, watchExpiry; and before a decision). */
  async expire(): Promise<void> {
    // Each expiry and its audit entry commit together: none is expired without its entry.
    const expired = await this.deps.repos.transaction(async () => {
      const approvals: ApprovalRecord[] = [];
      for (const id of await this.deps.repos.approvals.expireDue(this.deps.now())) {
        const approval = await this.require(id);
        await this.audit(approval, 'approval.expire', { approvalId: id, maker: approval.makerName, expiresAt: approval.expiresAt }, 'system');
        approvals.push(approval);
      }
      return approvals;
    });
    for (const approval of expired) await this.publish(approval);
  }

  private async voidFor(profileId: string, batchId: number, why: string): Promise<void> {
    const approval = await this.deps.repos.approvals.awaitingFor('batch', profileId, String(batchId));
    if (!approval) return;
    if (await this.deps.repos.approvals.decide(approval.id, { state: 'voided', reason: why, decidedById: null, decidedByName: null })) {
      await this.audit(approval, 'approval.void', { approvalId: approval.id, maker: approval.makerName, reason: why });
      await this.publish(await this.require(approval.id));
    }
  }

  private async submit(maker: RequestPerson, profile: Profile, fields: Omit<Parameters<Repositories['approvals']['insert']>[0], 'profileId' | 'environment' | 'makerId' | 'makerName' | 'expiresAt'>): Promise<ApprovalView> {
    const expiresAt = new Date(this.deps.now().getTime() + (await this.deps.policies.expiryHours()) * HOUR_MS).toISOString();
    const record = await this.deps.repos.transaction(async () => {
      const record = await this.deps.repos.approvals.insert({ ...fields, profileId: profile.id, environment: profile.environment, makerId: maker.id, makerName: maker.displayName, expiresAt });
      await this.audit(record, 'approval.request', { approvalId: record.id, maker: maker.displayName, policy: record.policy, bodyHash: record.bodyHash, amount: record.amount, currency: record.currency, items: record.itemCount, expiresAt });
      return record;
    });
    // Its expiry may come before the one the watch waits for.
    if (this.watched) void this.watchExpiry();
    return this.publish(record);
  }

  private async close(approval: ApprovalRecord, decision: Parameters<Repositories['approvals']['decide']>[1], action: string, details: Record<string, unknown>): Promise<ApprovalView> {
    await this.deps.repos.transaction(async () => {
      if (!(await this.deps.repos.approvals.decide(approval.id, decision, this.deps.now()))) throw new ServiceError('conflict', `Approval ${approval.id} was decided, withdrawn or expired meanwhile.`);
      await this.audit(approval, action, { approvalId: approval.id, maker: approval.makerName, policy: approval.policy, bodyHash: approval.bodyHash, ...details });
    });
    return this.publish(await this.require(approval.id));
  }

  /** The body the maker reviewed, from its stored form (a card number typed again), checked against the approval's hash. */
  private async approvedBody(approval: ApprovalRecord, cardNum: string | undefined): Promise<PayoutCreateInput> {
    const body = parseJson(approval.body) as PayoutCreateInput & { paymentDetails: Record<string, unknown> };
    const needsCard = needsCardNumber(approval);
    if (needsCard) {
      if (!cardNum) throw new ServiceError('invalid_input', 'This card payout is sent only with its card number typed again (it is never stored).', { cardNum: 'type the card number of the reviewed payout' });
      body.paymentDetails.cardNum = cardNum.replace(/[\s-]/g, '');
    }
    if (!(await this.digest().matches(payoutContent(approval.profileId, body), approval.bodyHash))) {
      if (needsCard) throw new ServiceError('invalid_input', 'The card number does not give the payout that was reviewed: nothing was sent.', { cardNum: 'not the reviewed card number' });
      throw new ServiceError('conflict', `Approval ${approval.id} does not match the payout that was reviewed: nothing was sent.`);
    }
    return body;
  }

  private requireDecidable(approval: ApprovalRecord, person: RequestPerson, verb: 'approve' | 'reject'): void {
    if (approval.makerId === person.id) throw new ServiceError('forbidden', `You submitted approval ${approval.id}: another approver must ${verb} it (four eyes).`);
    if (approval.state !== 'awaiting') throw new ServiceError('conflict', `Approval ${approval.id} ${STATE_WORDS[approval.state]}: it can no longer be decided.`);
  }

  private digest(): ApprovalDigest {
    if (!this.deps.digest) throw new ServiceError('unavailable', 'Approvals need a team server (docs/team.md).');
    return this.deps.digest;
  }

  private requirePerson(): RequestPerson {
    const person = this.deps.person();
    if (!person) throw new ServiceError('unavailable', 'Approvals are given by a second person: they need a team server (docs/team.md). On a desk, the approval policy asks for the amount to be typed again instead.');
    return person;
  }

  private async require(id: number): Promise<ApprovalRecord> {
    const approval = await this.deps.repos.approvals.byId(id);
    if (!approval) throw new ServiceError('not_found', `No approval ${id}.`);
    return approval;
  }

  private async profile(id: string): Promise<Profile> {
    const profile = await this.deps.repos.profiles.get(id);
    if (!profile) throw new ServiceError('not_found', `The profile of this approval (${id}) no longer exists.`);
    return profile;
  }

  private async audit(approval: ApprovalRecord, action: string, details: Record<string, unknown>, actor: 'user' | 'system' = 'user'): Promise<void> {
    await this.deps.repos.audit.append({ actor, action, profileId: approval.profileId, subject: approval.kind === 'payout' ? approval.subject : `batch:${approval.subject}`, details: { kind: approval.kind, ...details } });
  }

  private async publish(approval: ApprovalRecord): Promise<ApprovalView> {
    const view = await this.view(approval);
    this.deps.events.publish('approvals:approval-changed', view);
    return view;
  }

  private async view(record: ApprovalRecord): Promise<ApprovalView> {
    return this.viewOf(record, await this.deps.repos.profiles.get(record.profileId));
  }

  /** `profile`: the approval's, when it still exists (else its id and the environment recorded with it are shown). */
  private viewOf(record: ApprovalRecord, profile: Profile | undefined): ApprovalView {
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
      payout: record.kind === 'payout' ? (reviewed as ReviewedPayout) : null,
      batch: record.kind === 'batch' ? (reviewed as NonNullable<ApprovalView['batch']>) : null,
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
}

/** A card payout's stored body holds its number masked (storage never keeps it): the approver types it again. */
function needsCardNumber(approval: ApprovalRecord): boolean {
  if (approval.kind !== 'payout') return false;
  const body = parseJson(approval.body);
  return isJsonObject(body) && isJsonObject(body.paymentDetails) && body.paymentDetails.cardNum !== undefined;
}
