// Requests for approval and their decisions (docs/team.md "Approvals"). A maker submits
// a payout or a complete draft batch the policy holds back, with the proof of their review of
// exactly it: it is stored awaiting a decision with its reviewed body (card number masked) and the
// keyed hash of the full body, and nothing is claimed or sent. An approver other than the maker
// approves it — which in one transaction records the decision (first), claims the payout's attempt
// under a fresh Idempotency-Key written on the approval (or starts the batch), and then sends it —
// or rejects it with a reason. The maker may withdraw it; it expires; a batch changed or discarded
// meanwhile voids it. Whoever comes second to a decided request (two approvers at once, approve
// against reject, withdraw or expiry, on one instance or two) is refused with a conflict naming
// what was decided, by whom and when. Every step is in the hash-chained audit log with the maker, the approver,
// the policy, the times and the body's hash.
import { AsyncResource } from 'node:async_hooks';
import type { ApprovalDecision, ApprovalState, ApprovalView, BatchView, PayoutCreateRequest } from '../../../shared/contract';
import { parseJson } from '../../../shared/json';
import { amountText } from '../../../shared/money';
import type { PayoutCreateInput } from '../../gateway/endpoints';
import { serializeCreateBody } from '../../gateway/serialize';
import type { ApprovalRecord, Decision } from '../../ledger/repositories/approvals';
import { storedRequest } from '../../ledger/repositories/attempts';
import type { Repositories } from '../../ledger/repositories/index';
import type { Profile } from '../../ledger/repositories/profiles';
import type { Logger } from '../../logger';
import { ServiceError } from '../errors';
import { payoutReviewSubject, type PayoutService } from '../payments/payout-service';
import type { ReviewGate } from '../payments/review-gate';
import { reviewedPayout } from '../payments/review-views';
import type { BatchApprovalSubject } from '../payouts-batch/batch-service';
import type { RequestPerson } from '../team/request-context';
import { canMove } from '../state-machine';
import type { ApprovalDigest } from './approval-digest';
import type { ApprovalPoliciesService } from './approval-policies';
import { APPROVED, needsCardNumber, type ApprovalRecords } from './approval-records';
import { APPROVAL_MOVES, DECIDED, approvalMove } from './approval-states';

export interface ApprovalServiceDeps {
  repos: Pick<Repositories, 'approvals' | 'profiles' | 'transaction'>;
  /** The requests as they are kept, audited and pushed (shared with the batches, batchApprovals()). */
  records: ApprovalRecords;
  policies: ApprovalPoliciesService;
  payouts: Pick<PayoutService, 'reviewedBody' | 'approvalNeed' | 'sendApproved'>;
  batches: BatchStarter;
  reviews: ReviewGate;
  /** A team server's (a desk has nobody to approve). */
  digest?: ApprovalDigest;
  now: () => Date;
  /** The person whose request is served (a team server); undefined on a desk. */
  person: () => RequestPerson | undefined;
  log: Logger;
  /** The expiry watch looks at most this far ahead before it looks again. Default DEFAULT_EXPIRY_RECHECK_MS. */
  expiryRecheckMs?: number;
}

/** How an approval starts the batch it covers (BatchService). */
export interface BatchStarter {
  /** The complete draft as its approval covers it. */
  approvalSubject(id: number): Promise<BatchApprovalSubject>;
  /** Starts it; `decided` records the decision first, in the start's transaction. */
  startApproved(subject: BatchApprovalSubject, decided: () => Promise<void>, details: Record<string, unknown>): Promise<BatchView>;
}

const HOUR_MS = 3_600_000;

/** The expiry watch looks at the ledger again at least this often (approvals another instance submitted). */
export const DEFAULT_EXPIRY_RECHECK_MS = 60_000;

/** What somebody tried to do with an approval another decision came before. */
type Attempted = 'approve' | 'reject' | 'withdraw';

/** The state each attempt moves an approval to. */
const MOVES_TO = { approve: 'approved', reject: 'rejected', withdraw: 'withdrawn' } as const satisfies Record<Attempted, ApprovalState>;

/** Paydesk's own move: the expiry of what awaits too long. */
const EXPIRE = approvalMove('awaiting', 'expired');

/** A decision and who made it. */
type Decided = Decision & { state: (typeof MOVES_TO)[Attempted] };

const NOT_DONE: Record<Attempted, string> = {
  approve: 'your approval changed nothing and sent nothing',
  reject: 'your rejection was not recorded',
  withdraw: 'there is nothing to withdraw',
};

/** A decision's time as a refusal names it: exact to the second, in UTC (the screen shows the request's own times in the reader's zone). */
const whenText = (iso: string | null) => (iso === null ? 'an earlier moment' : `${iso.slice(0, 19).replace('T', ' ')} UTC`);

/**
 * The refusal of whoever comes second to an approval: what was decided, by whom and when, and that
 * their own action did nothing. `record` is the approval as it is now; one still awaiting past its
 * expiry (not marked yet) expired at its expiry.
 */
function decidedBefore(record: ApprovalRecord, attempted: Attempted, now: Date, person: RequestPerson | undefined): ServiceError {
  const expiredUnmarked = record.state === 'awaiting' && Date.parse(record.expiresAt) <= now.getTime();
  const by = `${record.decidedByName ?? 'somebody'}${person !== undefined && record.decidedById === person.id ? ' (you)' : ''}`;
  const at = whenText(record.decidedAt);
  let what: string;
  switch (expiredUnmarked ? 'expired' : record.state) {
    case 'approved':
      what = `was already approved by ${by} at ${at} (${APPROVED[record.kind].sentThen})`;
      break;
    case 'rejected':
      what = `was already rejected by ${by} at ${at}${record.reason ? ` (reason: ${record.reason})` : ''}`;
      break;
    case 'withdrawn':
      what = `was already withdrawn by ${by} at ${at}`;
      break;
    case 'expired':
      what = `expired at ${whenText(record.expiresAt)} without a decision`;
      break;
    case 'voided':
      what = `was voided at ${at}${record.reason ? `: ${record.reason}` : ''}`;
      break;
    case 'awaiting':
      what = 'was changed meanwhile';
      break;
  }
  return new ServiceError('conflict', `Approval ${record.id} ${what}: ${NOT_DONE[attempted]}.`);
}

/** What the hash of a payout's approval covers: its profile and the exact bytes its create call sends. */
const payoutContent = (profileId: string, body: PayoutCreateInput) => `payout\n${profileId}\n${serializeCreateBody<'payout_create'>(body)}`;
const batchContent = (profileId: string, content: string) => `batch\n${profileId}\n${content}`;

export class ApprovalService {
  private watched = false;
  private watching: Promise<void> = Promise.resolve();
  private expiryTimer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: ApprovalServiceDeps) {}

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
    await this.deps.reviews.redeem({ reviewId, confirmed }, payoutReviewSubject(profile, body), 'live');
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
    const subject = await this.deps.batches.approvalSubject(input.id);
    const need = await this.deps.policies.forBatch(subject.profile, subject.totals);
    if (need.step !== 'approval') throw new ServiceError('conflict', `Batch ${input.id} does not need approval: start it.`);
    if (await this.deps.repos.approvals.awaitingFor('batch', subject.profile.id, String(input.id))) throw new ServiceError('conflict', `Batch ${input.id} already awaits approval.`);
    await this.deps.reviews.redeem({ reviewId: input.reviewId, confirmed: input.confirmed }, { kind: 'batch_start', profileId: subject.profile.id, content: subject.content }, 'live');
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
      input.scope === 'queue' ? { states: ['awaiting' as const] } : input.scope === 'mine' ? { makerId: person.id } : { states: DECIDED };
    const page = await this.deps.repos.approvals.page(filter, { cursor: input.cursor, limit: input.limit ?? 50 });
    // One read of the profiles for the page, not one per approval.
    const profiles = new Map((await this.deps.repos.profiles.list()).map((profile) => [profile.id, profile]));
    const items = page.items.map((record) => this.deps.records.viewOf(record, profiles.get(record.profileId)));
    return { items, nextCursor: page.nextCursor, awaiting: await this.deps.repos.approvals.countAwaiting() };
  }

  async get(id: number): Promise<ApprovalView> {
    return this.deps.records.view(await this.deps.records.require(id));
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
    const approval = await this.deps.records.require(input.id);
    this.requireDecidable(approval, approver, 'approve');
    const decision = { state: 'approved' as const, reason: null, decidedById: approver.id, decidedByName: approver.displayName };
    const facts = { approvalId: approval.id, maker: approval.makerName, approver: approver.displayName, policy: approval.policy, bodyHash: approval.bodyHash, requestedAt: approval.createdAt };
    // The decision comes first in the transaction that records the payout's intent (or starts the
    // batch): of two approvers at once, the second is refused by it — told who decided, and when —
    // before anything of theirs is recorded, claimed or sent.
    let decidedHere = false;
    const decide = async () => {
      await this.decideOrRefuse(approval.id, decision, 'approve');
      decidedHere = true;
    };
    const recordApproval = async (key: string | null) => {
      if (key !== null) await this.deps.repos.approvals.setKey(approval.id, key);
      await this.deps.records.audit(approval, 'approval.approve', { ...facts, idempotencyKey: key });
    };
    let payout: ApprovalDecision['payout'] = null;
    let batch: BatchView | null = null;
    try {
      if (approval.kind === 'payout') {
        const profile = await this.profile(approval.profileId);
        const body = await this.approvedBody(approval, input.cardNum);
        payout = await this.deps.payouts.sendApproved(profile, body, facts, { beforePrepare: decide, afterPrepare: (key) => recordApproval(key) });
      } else {
        const subject = await this.deps.batches.approvalSubject(Number(approval.subject));
        if (!(await this.digest().matches(batchContent(subject.profile.id, subject.content), approval.bodyHash))) {
          await this.deps.records.voidFor(approval.profileId, Number(approval.subject), 'the batch is not the one submitted');
          throw new ServiceError('conflict', `Batch ${approval.subject} changed after it was submitted: its approval is void and nothing was sent. The maker submits it again.`);
        }
        batch = await this.deps.batches.startApproved(subject, async () => {
          await decide();
          await recordApproval(null);
        }, facts);
      }
    } catch (error) {
      // Whatever stopped this approval before it decided anything (the batch another approver
      // started, or discarded), the person is told what decided the request first.
      if (!decidedHere) await this.refuseIfDecided(approval.id, 'approve');
      throw error;
    }
    return { approval: await this.deps.records.publish(await this.deps.records.require(approval.id)), payout, batch };
  }

  async reject(input: { id: number; reason: string }): Promise<ApprovalView> {
    const approver = this.requirePerson();
    await this.expire();
    const approval = await this.deps.records.require(input.id);
    this.requireDecidable(approval, approver, 'reject');
    return this.close(approval, { state: 'rejected', reason: input.reason, decidedById: approver.id, decidedByName: approver.displayName }, 'approval.reject', { approver: approver.displayName, reason: input.reason }, 'reject');
  }

  /** The maker takes back what awaits a decision. */
  async withdraw(input: { id: number }): Promise<ApprovalView> {
    const person = this.requirePerson();
    await this.expire();
    const approval = await this.deps.records.require(input.id);
    if (approval.makerId !== person.id) throw new ServiceError('forbidden', `Only ${approval.makerName}, who submitted it, can withdraw approval ${approval.id}.`);
    if (!canMove(APPROVAL_MOVES, approval.state, MOVES_TO.withdraw)) throw this.decidedBefore(approval, 'withdraw');
    return this.close(approval, { state: 'withdrawn', reason: null, decidedById: person.id, decidedByName: person.displayName }, 'approval.withdraw', {}, 'withdraw');
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
      for (const id of await this.deps.repos.approvals.expireDue(EXPIRE, this.deps.now())) {
        const approval = await this.deps.records.require(id);
        await this.deps.records.audit(approval, 'approval.expire', { approvalId: id, maker: approval.makerName, expiresAt: approval.expiresAt }, 'system');
        approvals.push(approval);
      }
      return approvals;
    });
    for (const approval of expired) await this.deps.records.publish(approval);
  }

  private async submit(maker: RequestPerson, profile: Profile, fields: Omit<Parameters<Repositories['approvals']['insert']>[0], 'profileId' | 'environment' | 'makerId' | 'makerName' | 'expiresAt'>): Promise<ApprovalView> {
    const expiresAt = new Date(this.deps.now().getTime() + (await this.deps.policies.expiryHours()) * HOUR_MS).toISOString();
    const record = await this.deps.repos.transaction(async () => {
      const record = await this.deps.repos.approvals.insert({ ...fields, profileId: profile.id, environment: profile.environment, makerId: maker.id, makerName: maker.displayName, expiresAt });
      await this.deps.records.audit(record, 'approval.request', { approvalId: record.id, maker: maker.displayName, policy: record.policy, bodyHash: record.bodyHash, amount: record.amount, currency: record.currency, items: record.itemCount, expiresAt });
      return record;
    });
    // Its expiry may come before the one the watch waits for.
    if (this.watched) void this.watchExpiry();
    return this.deps.records.publish(record);
  }

  private async close(approval: ApprovalRecord, decision: Decided, action: string, details: Record<string, unknown>, attempted: Attempted): Promise<ApprovalView> {
    await this.deps.repos.transaction(async () => {
      await this.decideOrRefuse(approval.id, decision, attempted);
      await this.deps.records.audit(approval, action, { approvalId: approval.id, maker: approval.makerName, policy: approval.policy, bodyHash: approval.bodyHash, ...details });
    });
    return this.deps.records.publish(await this.deps.records.require(approval.id));
  }

  /**
   * Moves the approval from awaiting to this decision (a compare-and-set: on PostgreSQL a second
   * decision waits for the first one's transaction, then finds it decided), or refuses, naming the
   * decision that came first, who made it and when.
   */
  private async decideOrRefuse(id: number, decision: Decided, attempted: Attempted): Promise<void> {
    if (await this.deps.repos.approvals.decide(id, approvalMove('awaiting', decision.state), decision, this.deps.now())) return;
    throw this.decidedBefore(await this.deps.records.require(id), attempted);
  }

  /** Refuses, naming the decision, when the approval was decided, withdrawn or expired meanwhile; else returns. */
  private async refuseIfDecided(id: number, attempted: Attempted): Promise<void> {
    const now = await this.deps.repos.approvals.byId(id);
    if (now && (!canMove(APPROVAL_MOVES, now.state, MOVES_TO[attempted]) || Date.parse(now.expiresAt) <= this.deps.now().getTime())) throw this.decidedBefore(now, attempted);
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
    if (!canMove(APPROVAL_MOVES, approval.state, MOVES_TO[verb])) throw this.decidedBefore(approval, verb);
  }

  private decidedBefore(record: ApprovalRecord, attempted: Attempted): ServiceError {
    return decidedBefore(record, attempted, this.deps.now(), this.deps.person());
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

  private async profile(id: string): Promise<Profile> {
    const profile = await this.deps.repos.profiles.get(id);
    if (!profile) throw new ServiceError('not_found', `The profile of this approval (${id}) no longer exists.`);
    return profile;
  }
}

