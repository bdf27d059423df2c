// Exactly-once create calls (endpoints 1, 3, 4, 5). One attempt = one Idempotency-Key, written
// to the store before the first byte leaves. Transient failures (timeout, connection error,
// 429, 5xx) are retried with the same key and the same bytes; a 4xx never is. When the tries run
// out the attempt is "unknown", not failed: only a status read or a same-key resume settles it.
//
// Two ways in. prepare() then resume(): the attempt is "prepared", each send first marks it
// "sending", and the runner records the outcome. claim() then sendClaimed(): the attempt is
// recorded already "sending" (one durable write fewer) inside the caller's transaction, and the
// outcome comes back unrecorded, with the write that records it, for the caller to commit with
// what follows from it (a batch records several answers and its next intents in one commit).
// A claim lives in this runner's memory (its exact bytes) from claim() until it is sent; a caller
// whose transaction rolls back after claim() calls forget(), and a claim that fails before its
// request leaves is recorded unknown with no try counted.
import type { ErrorResponse, PayinStatusResponse } from '../../shared/spec/schemas';
import { prepareBody, requestHash } from './attempt-body';
import type { AttemptRecord, AttemptStore } from './attempt-store';
import { DEFAULT_RETRY_POLICY, checkPolicy, nextRetry, type RetryPolicy } from './backoff';
import { parseErrorBody, parseObject } from './classify';
import type { CreateTransport } from './client';
import { ENDPOINTS, attemptReference, type CreateEndpoint, type CreateRequests, type Responses } from './endpoints';
import { KeyLock } from './key-lock';
import { describeResult, isTransient, type CallResult } from './result';
import type { Clock, IdSource, Sleep } from './runtime';
import { errorMessage } from '../../shared/error-message';

export type CreateResponse = Responses[CreateEndpoint];

interface Base {
  key: string;
  endpoint: CreateEndpoint;
}

export type AttemptOutcome<R = CreateResponse> =
  /** A 2xx answer (or a status read that found the transaction). tries = 0: settled earlier. */
  | (Base & { state: 'succeeded'; tries: number; httpStatus: number; body: R; raw: string; source: 'create' | 'status_read' })
  | (Base & { state: 'rejected'; tries: number; httpStatus: number; body: ErrorResponse; raw: string })
  /** lookup: what a status read said, when one was made (resolveByStatus). */
  | (Base & { state: 'unknown'; tries: number; reason: string; lookup?: 'not_found' | 'failed' | 'unsupported' })
  /** Recorded, never sent. */
  | (Base & { state: 'prepared' })
  /** The store says another send of this attempt is in flight (or was interrupted and not yet recovered). */
  | (Base & { state: 'busy' })
  /** After a restart the exact body of a card attempt is gone (it was never stored): resume(key, {body}). */
  | (Base & { state: 'needs_body'; why: 'missing' | 'mismatch' });

export type AttemptEvent =
  | { type: 'try'; key: string; endpoint: CreateEndpoint; attempt: number }
  | { type: 'answer'; key: string; endpoint: CreateEndpoint; attempt: number; kind: CallResult<unknown>['kind']; summary: string }
  | { type: 'wait'; key: string; endpoint: CreateEndpoint; ms: number };

/** The outcomes a send ends with: an answer, or unknown when the tries ran out. */
export type SentOutcome = Extract<AttemptOutcome, { state: 'succeeded' | 'rejected' | 'unknown' }>;

/**
 * An outcome of sendClaimed(), not yet in the store. Until record() is committed the attempt stays
 * "sending": a resume answers busy, and after a crash it is unknown and settled under its own key
 * (the gateway replays its answer), so the answer is never lost, only learnt again.
 */
export interface UnrecordedOutcome {
  outcome: SentOutcome;
  /** Records the outcome; run it inside the caller's transaction, at once. */
  record: () => void;
  /** When record() could not be committed: the attempt becomes unknown (best effort), so a resume can settle it. */
  abandon: (reason: string) => void;
}

export interface AttemptRunnerDeps {
  transport: CreateTransport;
  store: AttemptStore;
  clock: Clock;
  sleep: Sleep;
  ids: IdSource;
  policy?: Partial<RetryPolicy>;
  /** Progress for logs and the timeline; receives no bodies. */
  observer?: (event: AttemptEvent) => void;
}

export class AttemptRunner {
  private readonly lock = new KeyLock();
  /** Exact bytes of attempts not yet final, for this process only (card bodies are never stored). */
  private readonly bodies = new Map<string, string>();
  /** Keys recorded by claim() and not yet handed to sendClaimed() or forgotten. */
  private readonly claimed = new Set<string>();
  private readonly policy: RetryPolicy;

  constructor(private readonly deps: AttemptRunnerDeps) {
    this.policy = checkPolicy({ ...DEFAULT_RETRY_POLICY, ...deps.policy });
  }

  /** Records a new attempt with a fresh Idempotency-Key, sends nothing, returns the key. */
  prepare<E extends CreateEndpoint>(endpoint: E, body: CreateRequests[E]): string {
    return this.write(endpoint, body, 'prepared');
  }

  /**
   * Records a new attempt already "sending" (its first send counted) and returns its key. The
   * caller commits it (usually inside its own transaction) and calls sendClaimed(key) as soon as
   * that commits, before anything else: durably "sending" before any byte leaves. If the
   * transaction rolls back instead, the caller calls forget(key).
   */
  claim<E extends CreateEndpoint>(endpoint: E, body: CreateRequests[E]): string {
    const key = this.write(endpoint, body, 'sending');
    this.claimed.add(key);
    return key;
  }

  /**
   * A claim whose transaction rolled back was never made: drops what this runner keeps of it (the
   * exact bytes, which for a card payout hold the full card number, and the claim), so it can
   * never be sent. A key that is not an unsent claim of this runner is left alone.
   */
  forget(key: string): void {
    if (this.claimed.delete(key)) this.bodies.delete(key);
  }

  /** True while this runner keeps anything of the attempt in memory: its exact bytes, or a claim on it. */
  holds(key: string): boolean {
    return this.claimed.has(key) || this.bodies.has(key);
  }

  /**
   * Sends a claimed attempt, with retries as resume() does, once per claim; the outcome comes
   * back unrecorded (see UnrecordedOutcome). Throws only on a failure of the store or of this
   * code, never for an answer: before the request left, the attempt becomes unknown with no try
   * counted and nothing of it stays in memory; after, it becomes unknown (it may have arrived).
   */
  sendClaimed(key: string): Promise<UnrecordedOutcome> {
    // Taken at once, not when the lock runs the send: from here on the claim is this send's, and forget() leaves it alone.
    if (!this.claimed.delete(key)) return Promise.reject(new Error(`attempt ${key} was not claimed by this runner, or was sent already, or was forgotten`));
    return this.lock.run(key, async () => {
      let record: AttemptRecord;
      let body: string | undefined;
      try {
        record = this.record(key);
        body = this.bodies.get(key);
        if (record.state !== 'sending' || body === undefined) throw new Error(`attempt ${key} is ${record.state}, not a claim about to be sent`);
      } catch (error) {
        this.dropUnsentClaim(key, error);
        throw error;
      }
      try {
        return await this.sendWithRetries(record, body);
      } catch (error) {
        this.markUnknownAfterFailure(key);
        throw error;
      }
    });
  }

  /** A new payment attempt: prepare, then send with retries. */
  async start<E extends CreateEndpoint>(endpoint: E, body: CreateRequests[E]): Promise<AttemptOutcome<Responses[E]>> {
    return (await this.resume(this.prepare(endpoint, body))) as AttemptOutcome<Responses[E]>;
  }

  /**
   * Sends a prepared or unknown attempt again with its own key and bytes. A final attempt is
   * returned as stored, without a request. `body` is needed only after a restart, for attempts
   * whose body held card data; it must match the stored request hash.
   */
  resume(key: string, options: { body?: CreateRequests[CreateEndpoint] } = {}): Promise<AttemptOutcome> {
    return this.lock.run(key, () => this.sendLocked(key, options.body));
  }

  /**
   * Settles an unknown pay-in attempt with a status read by request_id. Found: succeeded (source
   * status_read). Not found: stays unknown, and resume() with the same key is then safe. Payout
   * attempts cannot be looked up (the status read needs the payout_id the lost answer held).
   */
  resolveByStatus(key: string): Promise<AttemptOutcome> {
    return this.lock.run(key, () => this.resolveLocked(key));
  }

  /**
   * The same, with a status read by request_id (or payin_id) the caller has already made (the
   * app's rate-limited StatusReader), or one it could not send: found settles the attempt, as
   * resolveByStatus does; nothing else changes it. Never a request of its own.
   */
  settleByRead(key: string, read: CallResult<PayinStatusResponse> | { kind: 'not_sent'; reason: string }): Promise<AttemptOutcome> {
    return this.lock.run(key, () => this.resolveLocked(key, read));
  }

  /**
   * At startup, before this runner sends anything: attempts of its store left in "sending" by a
   * crash become "unknown". Returns their keys. The app does this for every profile at once, before
   * any runner exists (AttemptService.recoverInterrupted); a live runner's claims would be taken too.
   */
  recoverInterrupted(): string[] {
    const keys: string[] = [];
    for (const record of this.deps.store.listByState('sending')) {
      if (this.lock.isBusy(record.key)) continue;
      this.deps.store.markUnknown(record.key, 'interrupted: the app stopped while the request may have been in flight');
      keys.push(record.key);
    }
    return keys;
  }

  private record(key: string): AttemptRecord {
    const record = this.deps.store.get(key);
    if (!record) throw new Error(`no attempt with key ${key}`);
    return record;
  }

  /** A new attempt under a fresh key, "prepared" or already "sending"; its exact bytes are kept in memory. */
  private write<E extends CreateEndpoint>(endpoint: E, body: CreateRequests[E], state: 'prepared' | 'sending'): string {
    const prepared = prepareBody<E>(body);
    const key = this.deps.ids.uuid();
    const meta = { endpoint, reference: attemptReference(endpoint, body), replayable: prepared.replayable };
    if (state === 'sending') this.deps.store.prepareSending(key, prepared.requestHash, prepared.sanitizedText, meta);
    else this.deps.store.prepare(key, prepared.requestHash, prepared.sanitizedText, meta);
    this.bodies.set(key, prepared.bodyText);
    return key;
  }

  private async sendLocked(key: string, supplied: CreateRequests[CreateEndpoint] | undefined): Promise<AttemptOutcome> {
    const record = this.record(key);
    const base = { key, endpoint: record.endpoint };
    if (record.state === 'succeeded' || record.state === 'rejected') return storedOutcome(record);
    if (record.state === 'sending') return { ...base, state: 'busy' };
    const body = this.bodyFor(record, supplied);
    if (typeof body !== 'string') return { ...base, state: 'needs_body', why: body.why };
    if (!this.deps.store.markSending(key)) return { ...base, state: 'busy' };
    try {
      const sent = await this.sendWithRetries(record, body);
      sent.record();
      return sent.outcome;
    } catch (error) {
      this.markUnknownAfterFailure(key);
      throw error;
    }
  }

  /** A store or programming failure mid-flight: the request may have left, so "unknown" is the only honest state. */
  private markUnknownAfterFailure(key: string, reason = 'internal error while sending'): void {
    try {
      this.deps.store.markUnknown(key, reason);
    } catch {
      // Left in "sending": AttemptService.recoverInterrupted() turns it into "unknown" at the next start.
    }
  }

  /**
   * A claim that failed before its request left: unknown, its counted try taken back (best
   * effort), and its bytes dropped (a resume re-sends a replayable body from the store, or asks
   * for the card data again).
   */
  private dropUnsentClaim(key: string, error: unknown): void {
    this.bodies.delete(key);
    try {
      this.deps.store.markUnsent(key, `not sent: ${errorMessage(error)}`);
    } catch {
      // Not a "sending" claim (rolled back, or moved on), or the store is failing: left as it is.
      // A row still "sending" becomes unknown at the next start (AttemptService.recoverInterrupted).
    }
  }

  private bodyFor(record: AttemptRecord, supplied: CreateRequests[CreateEndpoint] | undefined): string | { why: 'missing' | 'mismatch' } {
    const inMemory = this.bodies.get(record.key);
    if (inMemory !== undefined) return inMemory;
    if (supplied !== undefined) {
      const prepared = prepareBody(supplied);
      if (prepared.requestHash !== record.requestHash) return { why: 'mismatch' };
      this.bodies.set(record.key, prepared.bodyText);
      return prepared.bodyText;
    }
    if (!record.replayable) return { why: 'missing' };
    // A replayable body is stored verbatim; the hash check keeps a damaged row from going out under this key.
    return requestHash(record.sanitizedBody) === record.requestHash ? record.sanitizedBody : { why: 'mismatch' };
  }

  /** Sends until an answer or the end of the tries; records nothing (the caller runs `record`). */
  private async sendWithRetries(record: AttemptRecord, bodyText: string): Promise<UnrecordedOutcome> {
    const { key, endpoint } = record;
    const { store, clock, transport } = this.deps;
    const unrecorded = (outcome: SentOutcome, record: () => void): UnrecordedOutcome => ({ outcome, record, abandon: (reason) => this.markUnknownAfterFailure(key, reason) });
    const observer = (event: AttemptEvent): void => {
      try {
        this.deps.observer?.(event);
      } catch {
        // Progress reporting must never change an attempt's outcome.
      }
    };
    const startedAt = clock.now();
    for (let attempt = 1; ; attempt++) {
      observer({ type: 'try', key, endpoint, attempt });
      const result = await transport.sendCreate(endpoint, bodyText, key);
      observer({ type: 'answer', key, endpoint, attempt, kind: result.kind, summary: describeResult(result) });
      // A final answer: the gateway will replay it for this key, so the exact bytes are not needed again.
      if (result.kind === 'ok') {
        this.bodies.delete(key);
        return unrecorded({ key, endpoint, state: 'succeeded', tries: attempt, httpStatus: result.status, body: result.body, raw: result.raw, source: 'create' }, () =>
          store.markSucceeded(key, { httpStatus: result.status, body: result.raw, source: 'create' }),
        );
      }
      if (result.kind === 'rejected') {
        this.bodies.delete(key);
        return unrecorded({ key, endpoint, state: 'rejected', tries: attempt, httpStatus: result.status, body: result.body, raw: result.raw }, () =>
          store.markRejected(key, { httpStatus: result.status, body: result.raw, source: 'create' }),
        );
      }
      const decision = isTransient(result)
        ? nextRetry({ triesSoFar: attempt, startedAt, now: clock.now(), retryAfterSeconds: result.kind === 'rate_limited' ? result.retryAfterSeconds : null, policy: this.policy })
        : ({ retry: false, why: 'not_retryable' } as const);
      if (!decision.retry) {
        const reason = `${describeResult(result)}; no further try (${decision.why}) after ${attempt} tries`;
        return unrecorded({ key, endpoint, state: 'unknown', tries: attempt, reason }, () => store.markUnknown(key, reason));
      }
      observer({ type: 'wait', key, endpoint, ms: decision.delayMs });
      await this.deps.sleep(decision.delayMs);
    }
  }

  private async resolveLocked(key: string, made?: CallResult<PayinStatusResponse> | { kind: 'not_sent'; reason: string }): Promise<AttemptOutcome> {
    const record = this.record(key);
    const base = { key, endpoint: record.endpoint };
    if (record.state === 'succeeded' || record.state === 'rejected') return storedOutcome(record);
    if (record.state === 'sending') return { ...base, state: 'busy' };
    if (record.state === 'prepared') return { ...base, state: 'prepared' };
    const reason = record.unknownReason ?? 'outcome unknown';
    if (ENDPOINTS[record.endpoint].family !== 'payin') return { ...base, state: 'unknown', tries: 0, reason, lookup: 'unsupported' };
    if (made?.kind === 'not_sent') return { ...base, state: 'unknown', tries: 0, reason: `${reason}; status read not sent: ${made.reason}`, lookup: 'failed' };

    const merchantId = parseObject(record.sanitizedBody)?.merchant_id;
    const result = made ?? (await this.deps.transport.payinStatus({ merchant_id: typeof merchantId === 'string' ? merchantId : '', request_id: record.reference }));
    // A read by payin_id names its request_id: it must be this attempt's.
    const ours = result.kind === 'ok' && typeof result.body.payin_id === 'string' && (typeof result.body.request_id !== 'string' || result.body.request_id === record.reference);
    if (result.kind === 'ok' && ours) {
      this.deps.store.markSucceeded(key, { httpStatus: result.status, body: result.raw, source: 'status_read' });
      this.bodies.delete(key);
      return { ...base, state: 'succeeded', tries: 0, httpStatus: result.status, body: result.body, raw: result.raw, source: 'status_read' };
    }
    const lookup = result.kind === 'rejected' && result.status === 400 ? 'not_found' : 'failed';
    return { ...base, state: 'unknown', tries: 0, reason: `${reason}; status read: ${describeResult(result)}`, lookup };
  }
}

/** The outcome of an attempt settled earlier, rebuilt from the store (no request made). */
export function storedOutcome(record: AttemptRecord): AttemptOutcome {
  const base = { key: record.key, endpoint: record.endpoint };
  const response = record.response;
  if (record.state === 'succeeded' && response) {
    const parsed = ENDPOINTS[record.endpoint].response.safeParse(parseObject(response.body) ?? {});
    const body = (parsed.success ? parsed.data : {}) as CreateResponse;
    return { ...base, state: 'succeeded', tries: 0, httpStatus: response.httpStatus, body, raw: response.body, source: response.source };
  }
  if (record.state === 'rejected' && response) {
    return { ...base, state: 'rejected', tries: 0, httpStatus: response.httpStatus, body: parseErrorBody(response.body), raw: response.body };
  }
  if (record.state === 'prepared') return { ...base, state: 'prepared' };
  if (record.state === 'sending') return { ...base, state: 'busy' };
  return { ...base, state: 'unknown', tries: 0, reason: record.unknownReason ?? 'outcome unknown' };
}
