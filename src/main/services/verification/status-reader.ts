// The one way a status read is made, whoever asks: the verifier and the reconciliation sweep (by
// ledger row, waiting as long as the rate limit needs) and a person's "read the status" (by
// payin_id, request_id or payout_id, known to the ledger or not, waiting a moment at most, then
// answering "rate limited, retry in N s"). Every read takes a slot of the one client-side rate
// limiter; an HTTP 429 holds that limiter for the Retry-After the gateway asked for (so nothing
// else is sent meanwhile) and is waited out and retried within the caller's patience. Every answer
// is recorded in status_reads, and what the gateway says is applied to the row in one transaction:
// ids it lacked, amount or currency contradictions (facts_conflict), the status (forward only),
// and the fate of an unverified notified claim (see TransactionsStore.applyStatus). Notifications
// whose claim the gateway contradicts are re-marked 'mismatch' so the webhook inspector shows it.
// A payout whose create answer was lost is read by merchantReference, until its gateway says it
// cannot read that way (reference-reads.ts): that answer is recorded once and remembered, and no
// read is sent by that key again (the outcome says so: notAsked).
import { numberText } from '../../../shared/json';
import { compareAmounts, parseDecimal } from '../../../shared/money';
import { statusSubjectOf } from '../../../shared/spec/events';
import type { Repositories } from '../../ledger/repositories/index';
import type { PayinRecord } from '../../ledger/repositories/payins';
import type { PayoutRecord } from '../../ledger/repositories/payouts';
import type { Profile } from '../../ledger/repositories/profiles';
import type { StatusRead, StatusReadResult } from '../../ledger/repositories/status-reads';
import type { TransactionRecord } from '../../ledger/repositories/transactions';
import { resolveClaim, statusFacts } from '../../ledger/status';
import type { Clock } from '../../ledger/support';
import { TRANSACTION_KINDS, transactionOf, type StatusTransport, type TransactionKind } from '../../transaction-kinds';
import { applyCreateAnswer, applyStatus } from '../payments/apply';
import type { ClaimOutcome } from '../status-change';
import { LimiterClosedError, type ReadRateLimiter } from './rate-limiter';
import { readFacts, recordRead, type ReadFacts, type StatusAnswer } from './read-facts';
import { refusedReferenceReadText, refusesReferenceReads, type ReferenceReadRefusal, type ReferenceReads } from './reference-reads';

export type StatusClient = StatusTransport;

export interface StatusReaderDeps {
  repos: Repositories;
  sessions: { for(profile: Profile): Promise<{ client: StatusClient }> };
  limiter: ReadRateLimiter;
  now: Clock;
  /** HTTP 429 answers waited out and retried per read (default 3). */
  maxRateLimitRetries?: number;
  /** A Retry-After longer than this is not waited for by a background read: the caller reschedules (default 60 s). */
  maxRetryAfterSeconds?: number;
  /** How long a person's read may wait for the rate limit before it answers "retry in N s" (default 2 s). */
  userMaxWaitMs?: number;
  /** Whether a profile's gateway has said it cannot read payouts by merchantReference. */
  referenceReads: ReferenceReads;
  /** Told each read's result (metrics). */
  onRead?: (result: StatusReadOutcome['result']) => void;
}

/**
 * What a person asks to read: a pay-in by payin_id (else request_id), a payout by payout_id (else
 * merchantReference, which finds a payout whose create answer was lost where the gateway supports it).
 */
export interface ReadRequest {
  subject: TransactionKind;
  /** payin_id / payout_id: read by it when given. */
  gatewayId?: string | undefined;
  /** request_id / merchantReference. */
  reference?: string | undefined;
}

export interface StatusReadOutcome {
  subject: TransactionKind;
  /** The ledger row read; null when the ledger does not know the transaction asked for. */
  rowId: number | null;
  /** 'skipped': the read could not be sent (no such row, profile gone, gateway unreachable). */
  result: StatusReadResult | 'skipped';
  /** The status the gateway answered (result ok). */
  statusCode: string | null;
  /** The row's status moved. */
  changed: boolean;
  claim: ClaimOutcome;
  record: TransactionRecord | undefined;
  /** The status_reads row of the last answer, or of a read the rate limit held back; null when skipped. */
  read: StatusRead | null;
  /** The gateway's last answer, as the client classified it; null when none came. */
  answer: StatusAnswer | null;
  /** HTTP 429 answers met (each recorded, and held the limiter for its Retry-After). */
  rateLimited: number;
  /** When the read ended rate-limited: seconds until a read may be sent again (else null). */
  retryAfterSeconds: number | null;
  /** Notifications re-marked 'mismatch' by this read. */
  contradictedNotifications: number[];
  detail: string | null;
  /** Not sent (result 'skipped') because the gateway has said it cannot read payouts by merchantReference: when, and what it answered. */
  notAsked: ReferenceReadRefusal | null;
}

/** How long one read may wait for the rate limit. */
interface Patience {
  /** In total, client-side slots and Retry-After together; Infinity: as long as it takes. */
  maxWaitMs: number;
  maxRetryAfterSeconds: number;
  maxRateLimitRetries: number;
}

interface ReadTarget {
  subject: TransactionKind;
  profile: Profile;
  request: object;
  /** What it is read by: the gateway's id, or the merchant's reference. */
  by: 'gatewayId' | 'reference';
  reference: string;
  /** The fields a 400's details name when the gateway has no such transaction. */
  idFields: readonly string[];
  /** The ledger row, when known before the answer (else matched by the answer's own reference). */
  rowId: number | null;
}

type Loose = Record<string, unknown>;

/** The read of one transaction by one of its references, in the spec's field names. */
function readTarget(subject: TransactionKind, profile: Profile, by: ReadTarget['by'], value: string, rowId: number | null): ReadTarget {
  const kind = TRANSACTION_KINDS[subject];
  const field = by === 'gatewayId' ? kind.gatewayIdField : kind.referenceField;
  const idFields = by === 'gatewayId' ? kind.notFoundById : kind.notFoundByReference;
  return { subject, profile, request: { merchant_id: profile.merchantId, [field]: value }, by, reference: value, idFields, rowId };
}

/** A read by a reference the spec does not read by (a payout's merchantReference): some gateways cannot (reference-reads.ts). */
const extensionRead = (target: ReadTarget) => target.by === 'reference' && !TRANSACTION_KINDS[target.subject].referenceReadInSpec;

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/** Amount or currency the gateway states that differ from the ledger's (exact decimal comparison). */
export function moneyContradictions(row: Pick<TransactionRecord, 'amount' | 'currency'>, amount: unknown, currency: unknown): string | null {
  const found: string[] = [];
  if (amount !== undefined && amount !== null) {
    const amountText = typeof amount === 'string' ? amount : numberText(amount);
    const value = amountText === undefined ? undefined : parseDecimal(amountText);
    if (value === undefined || compareAmounts(value.toFixed(), row.amount) !== 0) found.push(`amount ${amountText ?? String(amount)} instead of ${row.amount}`);
  }
  if (typeof currency === 'string' && currency !== '' && currency !== row.currency) found.push(`currency ${currency} instead of ${row.currency}`);
  return found.length > 0 ? found.join(', ') : null;
}

export class StatusReader {
  private readonly background: Patience;
  private readonly person: Patience;
  /** Per profile, the read by merchantReference in flight: the next one waits for its answer (which may be the gateway refusing the key). */
  private readonly referenceReadInFlight = new Map<string, Promise<unknown>>();

  constructor(private readonly deps: StatusReaderDeps) {
    const maxRateLimitRetries = deps.maxRateLimitRetries ?? 3;
    this.background = { maxWaitMs: Infinity, maxRetryAfterSeconds: deps.maxRetryAfterSeconds ?? 60, maxRateLimitRetries };
    const userMaxWaitMs = deps.userMaxWaitMs ?? 2_000;
    this.person = { maxWaitMs: userMaxWaitMs, maxRetryAfterSeconds: userMaxWaitMs / 1000, maxRateLimitRetries };
  }

  record(subject: TransactionKind, rowId: number): Promise<TransactionRecord | undefined> {
    return TRANSACTION_KINDS[subject].store(this.deps.repos).byId(rowId);
  }

  /** A read of a ledger row for the verifier or the sweep: it waits for the rate limit as long as needed. */
  async read(subject: TransactionKind, rowId: number, signal?: AbortSignal): Promise<StatusReadOutcome> {
    const before = await this.record(subject, rowId);
    const outcome = initialOutcome(subject, rowId, before);
    if (!before) return { ...outcome, detail: `no ${subject} row ${rowId}` };
    const profile = await this.deps.repos.profiles.get(before.profileId);
    if (!profile) return { ...outcome, detail: `profile ${before.profileId} is gone` };
    const target = rowTarget(subject, before, profile);
    let client: StatusClient;
    try {
      client = (await this.deps.sessions.for(profile)).client;
    } catch (error) {
      return { ...outcome, detail: `cannot reach the gateway of profile "${profile.name}": ${(error as Error).message}` };
    }
    return this.exchange(client, target, outcome, this.background, signal);
  }

  /**
   * A read a person asked for, whether or not the ledger knows the transaction (an answer that
   * names one of our references is matched to its row). It waits for the rate limit a moment at
   * most: when the limit is held longer (a Retry-After in force), it ends at once with result
   * 'rate_limited' and retryAfterSeconds, recorded as not sent. A profile whose gateway cannot be
   * reached (no merchant-token) throws, as every other call to it does. `wait: 'background'` (the
   * automatic settling of unknown attempts) waits for the limit as the verifier's reads do.
   */
  async readFor(profile: Profile, request: ReadRequest, wait: 'person' | 'background' = 'person'): Promise<StatusReadOutcome> {
    const target = await this.requestedTarget(profile, request);
    const { client } = await this.deps.sessions.for(profile);
    const before = target.rowId === null ? undefined : await this.record(target.subject, target.rowId);
    return this.exchange(client, target, initialOutcome(target.subject, target.rowId, before), wait === 'person' ? this.person : this.background);
  }

  /**
   * A read by merchantReference is sent only while the gateway has not said it cannot read that
   * way, one per profile at a time in this process: those asked meanwhile wait for its answer, so
   * a gateway without the lookup is asked once, not once per caller.
   */
  private async exchange(client: StatusClient, target: ReadTarget, start: StatusReadOutcome, patience: Patience, signal?: AbortSignal): Promise<StatusReadOutcome> {
    const outcome = await this.exchangeOnce(client, target, start, patience, signal);
    this.deps.onRead?.(outcome.result);
    return outcome;
  }

  private async exchangeOnce(client: StatusClient, target: ReadTarget, start: StatusReadOutcome, patience: Patience, signal?: AbortSignal): Promise<StatusReadOutcome> {
    if (!extensionRead(target)) return this.exchangeNow(client, target, start, patience, signal);
    const profileId = target.profile.id;
    const before = this.referenceReadInFlight.get(profileId);
    const read = (async (): Promise<StatusReadOutcome> => {
      await before?.catch(() => undefined);
      const refusal = await this.deps.referenceReads.refusal(target.profile);
      if (refusal) return { ...start, result: 'skipped', notAsked: refusal, detail: `not sent: ${refusedReferenceReadText(refusal)}` };
      return this.exchangeNow(client, target, start, patience, signal);
    })();
    this.referenceReadInFlight.set(profileId, read);
    try {
      return await read;
    } finally {
      if (this.referenceReadInFlight.get(profileId) === read) this.referenceReadInFlight.delete(profileId);
    }
  }

  private async exchangeNow(client: StatusClient, target: ReadTarget, start: StatusReadOutcome, patience: Patience, signal?: AbortSignal): Promise<StatusReadOutcome> {
    const { repos, limiter } = this.deps;
    const key = `${target.profile.id}|${target.subject}`;
    const deadline = this.nowMs() + patience.maxWaitMs;
    const outcome = { ...start };
    for (let answers = 0; ; answers++) {
      let waitMs: number;
      try {
        waitMs = await limiter.takeWithin(key, deadline - this.nowMs(), signal);
      } catch (error) {
        if (error instanceof LimiterClosedError || signal?.aborted) return { ...outcome, detail: 'cancelled before it was sent' };
        throw error;
      }
      if (waitMs > 0) return this.heldBack(target, outcome, waitMs);

      const requestedAt = this.deps.now();
      const answer = await TRANSACTION_KINDS[target.subject].readStatus(client, target.request);
      const facts = readFacts(answer, target.idFields);
      const respondedAt = this.deps.now();
      const refused = extensionRead(target) && refusesReferenceReads(answer);
      if (facts.result !== 'rate_limited') return { ...outcome, ...(await this.apply(target, facts, requestedAt, respondedAt, refused)), answer, retryAfterSeconds: null };

      // Honour the Retry-After for every read of this profile and kind, not just this one.
      const seconds = Math.max(1, facts.retryAfterSeconds ?? 1);
      limiter.pause(key, seconds * 1000);
      const error = `rate limited by the gateway (HTTP 429, Retry-After ${seconds} s): retry in ${seconds} s`;
      outcome.read = await recordRead(repos, { ...readOf(target, target.rowId), requestedAt, respondedAt }, { ...facts, error });
      outcome.result = 'rate_limited';
      outcome.answer = answer;
      outcome.rateLimited++;
      outcome.retryAfterSeconds = seconds;
      outcome.detail = error;
      const waitable = answers < patience.maxRateLimitRetries && seconds <= patience.maxRetryAfterSeconds && this.nowMs() + seconds * 1000 <= deadline;
      if (!waitable) return outcome;
    }
  }

  /** The rate limit is held longer than the caller may wait: nothing is sent, and the read says when to retry. */
  private async heldBack(target: ReadTarget, outcome: StatusReadOutcome, waitMs: number): Promise<StatusReadOutcome> {
    const seconds = Math.max(1, Math.ceil(waitMs / 1000));
    const detail = `status reads are rate limited; retry in ${seconds} s`;
    const read = await recordRead(
      this.deps.repos,
      { ...readOf(target, target.rowId), requestedAt: this.deps.now(), respondedAt: null },
      { result: 'rate_limited', httpStatus: null, responseBody: null, statusCode: null, error: `not sent: ${detail}` },
    );
    return { ...outcome, result: 'rate_limited', read, retryAfterSeconds: seconds, detail };
  }

  private async requestedTarget(profile: Profile, request: ReadRequest): Promise<ReadTarget> {
    const { subject, gatewayId, reference = '' } = request;
    const store = TRANSACTION_KINDS[subject].store(this.deps.repos);
    const byId = gatewayId ? await store.byGatewayId(gatewayId, profile.id) : undefined;
    // A pay-in given both may be the row of its request_id; a payout read by payout_id is that id's row only.
    const byReference = !byId && reference && !(gatewayId && subject === 'payout') ? await store.byReference(profile.id, reference) : undefined;
    const rowId = (byId ?? byReference)?.id ?? null;
    return gatewayId ? readTarget(subject, profile, 'gatewayId', gatewayId, rowId) : readTarget(subject, profile, 'reference', reference, rowId);
  }

  /** A read by the gateway's id for a row that never learnt it: the answer's own reference names the row. */
  private async rowNamedBy(target: ReadTarget, found: Loose | null): Promise<number | null> {
    if (!found) return null;
    const kind = TRANSACTION_KINDS[target.subject];
    const reference = text(found[kind.referenceField]);
    if (reference === null) return null;
    return (await kind.store(this.deps.repos).byReference(target.profile.id, reference))?.id ?? null;
  }

  /**
   * Records the read and applies it, all in one ledger transaction; run again whole when PostgreSQL
   * rolled it back as a deadlock's victim (the verifier, a person's resume and another instance may
   * apply reads of the same transaction at once).
   */
  private apply(target: ReadTarget, facts: ReadFacts, requestedAt: Date, respondedAt: Date, refusedKey = false): Promise<Partial<StatusReadOutcome>> {
    const { repos } = this.deps;
    const { subject } = target;
    return repos.transactionRetried(async (): Promise<Partial<StatusReadOutcome>> => {
      const rowId = target.rowId ?? (await this.rowNamedBy(target, facts.found));
      const read = await recordRead(repos, { ...readOf(target, rowId), requestedAt, respondedAt }, facts);
      // The gateway cannot read payouts by merchantReference: remembered with the read that says so.
      if (refusedKey) await this.deps.referenceReads.remember(target.profile, facts.error ?? `HTTP ${facts.httpStatus}`, requestedAt);
      if (rowId === null) {
        return { rowId, read, result: facts.result, statusCode: facts.statusCode === null ? null : String(facts.statusCode), record: undefined, detail: facts.error };
      }
      const kind = TRANSACTION_KINDS[subject];
      const store = kind.store(repos);
      const before = (await store.byId(rowId)) as TransactionRecord;
      const statusCode = facts.result === 'ok' ? facts.statusCode : null;
      if (facts.result !== 'ok' || !facts.found) {
        const contradicted = facts.result === 'not_found' && before.claimState === 'unverified';
        if (contradicted) await store.contradictClaim(rowId, `notified status ${before.lastNotifiedStatus} for a ${subject} the gateway does not know`);
        const ids = contradicted ? await this.markContradicted(subject, rowId, null) : [];
        return { rowId, read, result: facts.result, statusCode: null, record: await store.byId(rowId), claim: contradicted ? 'contradicted' : 'none', contradictedNotifications: ids, detail: facts.error };
      }
      const body = facts.found;
      await applyCreateAnswer<TransactionRecord>(store, rowId, { gatewayId: text(body[kind.gatewayIdField]), redirectUrl: text(body.redirect_url), createdAt: text(body.created_at) });
      const money = moneyContradictions(before, body.amount, body.currency);
      if (money) await store.noteConflict(rowId, `status read: ${money}`, 'facts');
      if (statusCode === null) {
        return { rowId, read, result: 'error', statusCode: null, record: await store.byId(rowId), detail: 'the status read answered without a status_code' };
      }
      const applied = await applyStatus<TransactionRecord>(store, rowId, { statusCode, reasonCode: text(body.reason_code) ?? null, source: 'status_read' });
      const ids = applied.claim === 'contradicted' ? await this.markContradicted(subject, rowId, String(statusCode)) : [];
      return {
        rowId,
        read,
        result: 'ok',
        statusCode: applied.record.lastVerifiedStatus,
        changed: applied.outcome === 'advanced',
        claim: applied.claim,
        record: applied.record,
        contradictedNotifications: ids,
        detail: money,
      };
    });
  }

  /**
   * Re-marks as 'mismatch' the applied notifications of this transaction whose claim the gateway
   * contradicts (gatewayCode null: it does not know the transaction; with `includeAhead`, claims it
   * never caught up with). Returns their ids.
   */
  async markContradicted(subject: TransactionKind, rowId: number, gatewayCode: string | null, includeAhead = false): Promise<number[]> {
    const { notifications } = this.deps.repos;
    const linked = await TRANSACTION_KINDS[subject].notifications(this.deps.repos, rowId);
    const ids: number[] = [];
    for (const n of linked) {
      if (n.outcome !== 'applied' || statusSubjectOf(n.event) !== subject || n.statusCode === null) continue;
      const verdict = gatewayCode === null ? 'contradicted' : resolveClaim(subject, statusFacts(subject, n.statusCode), statusFacts(subject, gatewayCode));
      if (verdict === 'contradicted' || (includeAhead && verdict === 'ahead')) {
        const says = gatewayCode === null ? 'does not know this transaction' : `says status ${gatewayCode}`;
        await notifications.markOutcome(n.id, 'mismatch', { detail: `claimed status ${n.statusCode}; the gateway's status read ${says}` });
        ids.push(n.id);
      }
    }
    return ids;
  }

  private nowMs(): number {
    return this.deps.now().getTime();
  }
}

function initialOutcome(subject: TransactionKind, rowId: number | null, record: TransactionRecord | undefined): StatusReadOutcome {
  return {
    subject, rowId, result: 'skipped', statusCode: null, changed: false, claim: 'none', record, read: null, answer: null,
    rateLimited: 0, retryAfterSeconds: null, contradictedNotifications: [], detail: null, notAsked: null,
  };
}

/**
 * The read of a ledger row: by the gateway's id when known (payin_id, payout_id), else by its
 * reference (request_id; a payout whose create answer never arrived by merchantReference).
 */
function rowTarget(subject: TransactionKind, row: TransactionRecord, profile: Profile): ReadTarget {
  const { reference, gatewayId } = transactionOf(row as PayinRecord | PayoutRecord);
  return gatewayId ? readTarget(subject, profile, 'gatewayId', gatewayId, row.id) : readTarget(subject, profile, 'reference', reference, row.id);
}

function readOf(target: ReadTarget, rowId: number | null) {
  return { profileId: target.profile.id, kind: target.subject, reference: target.reference, rowId, requestBody: target.request };
}
