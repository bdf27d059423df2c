// Exactly-once create calls (endpoints 1, 3, 4, 5). One attempt = one Idempotency-Key, written
// to the store (the write awaited, so durable) before the first byte leaves. Transient failures
// (timeout, connection error, 429, 5xx) are retried with the same key and the same bytes; a 4xx
// never is. When the tries run out the attempt is "unknown", not failed: only a status read or a
// same-key resume settles it.
//
// Two ways in. prepare() then resume(): the attempt is "prepared", each send first marks it
// "sending", and the runner records the outcome. claim() then sendClaimed(): the attempt is
// recorded already "sending" (one durable write fewer) inside the caller's transaction, and the
// outcome comes back unrecorded, with the write that records it, for the caller to commit with
// what follows from it (a batch records several answers and its next intents in one commit).
// A claim lives in this runner's memory (its exact bytes) from claim() until it is sent; a caller
// whose transaction rolls back after claim() calls forget(), and a claim that fails before its
// request leaves is recorded unknown with no try counted.
import type { ErrorResponse } from '../../shared/spec/schemas';
import { TRANSACTION_KINDS, type StatusReadAnswer, type TransactionKindEntry } from '../transaction-kinds';
import { prepareBody, requestHash } from './attempt-body';
import type { AttemptRecord, AttemptStore } from './attempt-store';
import { DEFAULT_RETRY_POLICY, checkPolicy, nextRetry, type RetryPolicy, type WaitCause } from './backoff';
import { parseErrorBody, parseObject } from './classify';
import type { CreateTransport } from './client';
import { ENDPOINTS, attemptReference, type CreateEndpoint, type CreateRequests, type Responses } from './endpoints';
import { KeyLock } from './key-lock';
import { describeResult, isTransient } from './result';
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
  /** lookup: what a status read said, when one was made (resolveByStatus); stopReason: why a send gave up. */
  | (Base & { state: 'unknown'; tries: number; reason: string; lookup?: 'not_found' | 'failed'; stopReason?: StopReason })
  /** Recorded, never sent. */
  | (Base & { state: 'prepared' })
  /** The store says another send of this attempt is in flight (or was interrupted and not yet recovered). */
  | (Base & { state: 'busy' })
  /** After a restart the exact body of a card attempt is gone (it was never stored): resume(key, {body}). */
  | (Base & { state: 'needs_body'; why: 'missing' | 'mismatch' });

/** The outcomes a send ends with: an answer, or unknown when the tries ran out. */
export type SentOutcome = Extract<AttemptOutcome, { state: 'succeeded' | 'rejected' | 'unknown' }>;

/** Why a send that ran out of answers made no further try. */
export type StopReason = 'max_tries' | 'max_total_time' | 'not_retryable';

/**
 * Where one send stands, for whoever waits on it: reported before each try, before each wait and
 * at the end. A create can spend a minute on timeouts and retries; this says which try is under
 * way, what the last one got, what comes next, and the policy that bounds it. Codes and counts
 * only, never a body.
 */
export interface AttemptProgress {
  key: string;
  endpoint: CreateEndpoint;
  /** request_id or merchantReference. */
  reference: string;
  phase: 'sending' | 'waiting' | 'finished';
  /** The try under way (sending) or the latest one (waiting, finished); 1 is the first. */
  tryNumber: number;
  /** When this send's first try started, and when this was reported (clock ms). */
  startedAt: number;
  at: number;
  /** The latest try's answer in words (status and reason codes only); null before the first answer. */
  lastAnswer: string | null;
  /** waiting: the next try (same key, same bytes) starts after this wait, this long because of this. */
  wait: { ms: number; cause: WaitCause } | null;
  /** finished: what the send ended in; when unknown, why no further try was made. */
  outcome: SentOutcome['state'] | null;
  stopReason: StopReason | null;
  policy: Pick<RetryPolicy, 'maxTries' | 'maxTotalMs'>;
}

export interface SendOptions {
  /** Told how the send progresses; what it does can never change the attempt's outcome. */
  onProgress?: (progress: AttemptProgress) => void;
}

/**
 * An outcome of sendClaimed(), not yet in the store. Until record() is committed the attempt stays
 * "sending": a resume answers busy, and after a crash it is unknown and settled under its own key
 * (the gateway replays its answer), so the answer is never lost, only learnt again.
 */
export interface UnrecordedOutcome {
  outcome: SentOutcome;
  /** Records the outcome; run (and await) it inside the caller's transaction, at once. */
  record: () => Promise<void>;
  /** When record() could not be committed: the attempt becomes unknown (best effort, never rejects), so a resume can settle it. */
  abandon: (reason: string) => Promise<void>;
}

export interface AttemptRunnerDeps {
  transport: CreateTransport;
  store: AttemptStore;
  clock: Clock;
  sleep: Sleep;
  ids: IdSource;
  policy?: Partial<RetryPolicy>;
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

  /**
   * Records a new attempt with a fresh Idempotency-Key, sends nothing, and resolves to the key once
   * the record is written: committed, or, inside the caller's transaction, written in it and
   * committed with it (send it only after that commit has resolved).
   */
  prepare<E extends CreateEndpoint>(endpoint: E, body: CreateRequests[E]): Promise<string> {
    return this.write(endpoint, body, 'prepared');
  }

  /**
   * Records a new attempt already "sending" (its first send counted) and resolves to its key. The
   * caller commits it (usually inside its own transaction, which the store's write joins) and
   * calls sendClaimed(key) as soon as that commit has resolved, before anything else: durably
   * "sending" before any byte leaves. If the transaction rolls back instead, the caller calls
   * forget(key).
   */
  async claim<E extends CreateEndpoint>(endpoint: E, body: CreateRequests[E]): Promise<string> {
    const key = await this.write(endpoint, body, 'sending');
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

  /**
   * A claim not to be sent now, but looked up first (a batch item of a restored ledger, which the
   * server that made the backup may have sent after it): it becomes unknown with no try counted,
   * inside the caller's transaction, and nothing of it stays in memory. It is then settled under
   * its own key (looked up; resent only where the gateway has none), never under another.
   */
  async withhold(key: string, reason: string): Promise<void> {
    if (!this.claimed.delete(key)) throw new Error(`attempt ${key} is not an unsent claim of this runner`);
    this.bodies.delete(key);
    await this.deps.store.markUnsent(key, reason);
  }

  /** True while this runner keeps anything of the attempt in memory: its exact bytes, or a claim on it. */
  holds(key: string): boolean {
    return this.claimed.has(key) || this.bodies.has(key);
  }

  /**
   * Sends a claimed attempt, with retries as resume() does, once per claim; the outcome comes
   * back unrecorded (see UnrecordedOutcome). Rejects only on a failure of the store or of this
   * code, never for an answer: before the request left, the attempt becomes unknown with no try
   * counted and nothing of it stays in memory; after, it becomes unknown (it may have arrived).
   */
  sendClaimed(key: string, options: SendOptions = {}): Promise<UnrecordedOutcome> {
    // Taken at once, not when the lock runs the send: from here on the claim is this send's, and forget() leaves it alone.
    if (!this.claimed.delete(key)) return Promise.reject(new Error(`attempt ${key} was not claimed by this runner, or was sent already, or was forgotten`));
    return this.lock.run(key, async () => {
      let record: AttemptRecord;
      let body: string | undefined;
      try {
        record = await this.record(key);
        body = this.bodies.get(key);
        if (record.state !== 'sending' || body === undefined) throw new Error(`attempt ${key} is ${record.state}, not a claim about to be sent`);
      } catch (error) {
        await this.dropUnsentClaim(key, error);
        throw error;
      }
      try {
        return await this.sendWithRetries(record, body, options);
      } catch (error) {
        await this.markUnknownAfterFailure(key);
        throw error;
      }
    });
  }

  /** A new payment attempt: prepare, then send with retries. */
  async start<E extends CreateEndpoint>(endpoint: E, body: CreateRequests[E], options: SendOptions = {}): Promise<AttemptOutcome<Responses[E]>> {
    return (await this.resume(await this.prepare(endpoint, body), options)) as AttemptOutcome<Responses[E]>;
  }

  /**
   * Sends a prepared or unknown attempt again with its own key and bytes. A final attempt is
   * returned as stored, without a request. `body` is needed only after a restart, for attempts
   * whose body held card data; it must match the stored request hash.
   */
  resume(key: string, options: SendOptions & { body?: CreateRequests[CreateEndpoint] } = {}): Promise<AttemptOutcome> {
    return this.lock.run(key, () => this.sendLocked(key, options.body, options));
  }

  /**
   * Settles an unknown attempt with a status read by its own reference: a pay-in by request_id, a
   * payout by merchantReference (where the gateway supports it; the spec reads payouts by the
   * payout_id the lost answer held). Found: succeeded (source status_read). Not found: stays
   * unknown (lookup 'not_found'), and resume() with the same key is then safe; a gateway that
   * cannot look it up leaves it unknown (lookup 'failed').
   */
  resolveByStatus(key: string): Promise<AttemptOutcome> {
    return this.lock.run(key, () => this.resolveLocked(key));
  }

  /**
   * The same, with a status read by its reference (or payin_id) the caller has already made (the
   * app's rate-limited StatusReader), or one it could not send: found settles the attempt, as
   * resolveByStatus does; nothing else changes it. Never a request of its own.
   */
  settleByRead(key: string, read: StatusReadAnswer | { kind: 'not_sent'; reason: string }): Promise<AttemptOutcome> {
    return this.lock.run(key, () => this.resolveLocked(key, read));
  }

  /**
   * At startup, before this runner sends anything: attempts of its store left in "sending" by a
   * crash become "unknown". Returns their keys. For a store only this runner writes to (a process
   * of its own): it cannot tell another process's live claims. The app does not call it: its
   * ledger is shared, and AttemptService.recoverInterrupted takes over only the claims of dead
   * instances, for every profile at once. Each move runs under the attempt's key lock, so a send
   * asked for meanwhile waits for it.
   */
  async recoverInterrupted(): Promise<string[]> {
    const keys: string[] = [];
    for (const record of await this.deps.store.listByState('sending')) {
      if (this.lock.isBusy(record.key)) continue;
      await this.lock.run(record.key, () => this.deps.store.markUnknown(record.key, 'interrupted: the app stopped while the request may have been in flight'));
      keys.push(record.key);
    }
    return keys;
  }

  private async record(key: string): Promise<AttemptRecord> {
    const record = await this.deps.store.get(key);
    if (!record) throw new Error(`no attempt with key ${key}`);
    return record;
  }

  /**
   * A new attempt under a fresh key, "prepared" or already "sending"; its exact bytes are kept in
   * memory once the store's write has resolved (a failed write leaves nothing of it here).
   */
  private async write<E extends CreateEndpoint>(endpoint: E, body: CreateRequests[E], state: 'prepared' | 'sending'): Promise<string> {
    const prepared = prepareBody<E>(body);
    const key = this.deps.ids.uuid();
    const meta = { endpoint, reference: attemptReference(endpoint, body), replayable: prepared.replayable };
    if (state === 'sending') await this.deps.store.prepareSending(key, prepared.requestHash, prepared.sanitizedText, meta);
    else await this.deps.store.prepare(key, prepared.requestHash, prepared.sanitizedText, meta);
    this.bodies.set(key, prepared.bodyText);
    return key;
  }

  private async sendLocked(key: string, supplied: CreateRequests[CreateEndpoint] | undefined, options: SendOptions): Promise<AttemptOutcome> {
    const record = await this.record(key);
    const base = { key, endpoint: record.endpoint };
    if (record.state === 'succeeded' || record.state === 'rejected') return storedOutcome(record);
    if (record.state === 'sending') return { ...base, state: 'busy' };
    const body = this.bodyFor(record, supplied);
    if (typeof body !== 'string') return { ...base, state: 'needs_body', why: body.why };
    if (!(await this.deps.store.markSending(key))) return { ...base, state: 'busy' };
    try {
      const sent = await this.sendWithRetries(record, body, options);
      await sent.record();
      return sent.outcome;
    } catch (error) {
      await this.markUnknownAfterFailure(key);
      throw error;
    }
  }

  /** A store or programming failure mid-flight: the request may have left, so "unknown" is the only honest state. Never rejects. */
  private async markUnknownAfterFailure(key: string, reason = 'internal error while sending'): Promise<void> {
    try {
      await this.deps.store.markUnknown(key, reason);
    } catch {
      // Left in "sending": AttemptService.recoverInterrupted() turns it into "unknown" at the next start.
    }
  }

  /**
   * A claim that failed before its request left: unknown, its counted try taken back (best
   * effort), and its bytes dropped (a resume re-sends a replayable body from the store, or asks
   * for the card data again).
   */
  private async dropUnsentClaim(key: string, error: unknown): Promise<void> {
    this.bodies.delete(key);
    try {
      await this.deps.store.markUnsent(key, `not sent: ${errorMessage(error)}`);
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
  private async sendWithRetries(record: AttemptRecord, bodyText: string, options: SendOptions): Promise<UnrecordedOutcome> {
    const { key, endpoint } = record;
    const { store, clock, transport } = this.deps;
    const startedAt = clock.now();
    let lastAnswer: string | null = null;
    const report = (progress: Pick<AttemptProgress, 'phase' | 'tryNumber'> & Partial<Pick<AttemptProgress, 'wait' | 'outcome' | 'stopReason'>>): void => {
      if (!options.onProgress) return;
      try {
        const { maxTries, maxTotalMs } = this.policy;
        options.onProgress({ key, endpoint, reference: record.reference, startedAt, at: clock.now(), lastAnswer, wait: null, outcome: null, stopReason: null, policy: { maxTries, maxTotalMs }, ...progress });
      } catch {
        // Progress reporting must never change an attempt's outcome.
      }
    };
    const unrecorded = (outcome: SentOutcome, record: () => Promise<void>): UnrecordedOutcome => {
      report({ phase: 'finished', tryNumber: outcome.tries, outcome: outcome.state, ...(outcome.state === 'unknown' ? { stopReason: outcome.stopReason } : {}) });
      return { outcome, record, abandon: (reason) => this.markUnknownAfterFailure(key, reason) };
    };
    for (let attempt = 1; ; attempt++) {
      report({ phase: 'sending', tryNumber: attempt });
      const result = await transport.sendCreate(endpoint, bodyText, key);
      lastAnswer = describeResult(result);
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
        ? nextRetry({ triesSoFar: attempt, startedAt, now: clock.now(), retryAfterSeconds: result.kind === 'rate_limited' || result.kind === 'server_error' ? (result.retryAfterSeconds ?? null) : null, policy: this.policy })
        : ({ retry: false, why: 'not_retryable' } as const);
      if (!decision.retry) {
        const reason = `${lastAnswer}; no further try (${decision.why}) after ${attempt} tries`;
        return unrecorded({ key, endpoint, state: 'unknown', tries: attempt, reason, stopReason: decision.why }, () => store.markUnknown(key, reason));
      }
      report({ phase: 'waiting', tryNumber: attempt, wait: { ms: decision.delayMs, cause: decision.cause } });
      await this.deps.sleep(decision.delayMs);
    }
  }

  private async resolveLocked(key: string, made?: StatusReadAnswer | { kind: 'not_sent'; reason: string }): Promise<AttemptOutcome> {
    const record = await this.record(key);
    const base = { key, endpoint: record.endpoint };
    if (record.state === 'succeeded' || record.state === 'rejected') return storedOutcome(record);
    if (record.state === 'sending') return { ...base, state: 'busy' };
    if (record.state === 'prepared') return { ...base, state: 'prepared' };
    const reason = record.unknownReason ?? 'outcome unknown';
    if (made?.kind === 'not_sent') return { ...base, state: 'unknown', tries: 0, reason: `${reason}; status read not sent: ${made.reason}`, lookup: 'failed' };

    const kind = TRANSACTION_KINDS[ENDPOINTS[record.endpoint].family];
    const merchantId = parseObject(record.sanitizedBody)?.merchant_id;
    const merchant_id = typeof merchantId === 'string' ? merchantId : '';
    const result: StatusReadAnswer = made ?? (await kind.readStatus(this.deps.transport, { merchant_id, [kind.referenceField]: record.reference }));
    if (result.kind === 'ok' && answersFor(kind, result.body, record.reference)) {
      await this.deps.store.markSucceeded(key, { httpStatus: result.status, body: result.raw, source: 'status_read' });
      this.bodies.delete(key);
      return { ...base, state: 'succeeded', tries: 0, httpStatus: result.status, body: result.body as CreateResponse, raw: result.raw, source: 'status_read' };
    }
    return { ...base, state: 'unknown', tries: 0, reason: `${reason}; status read: ${describeResult(result)}`, lookup: notFoundBy(kind, result) ? 'not_found' : 'failed' };
  }
}

/**
 * Whether a status read found this attempt's transaction: one with the gateway's id (payin_id,
 * payout_id) whose reference (request_id, merchantReference), when named, is this attempt's.
 */
function answersFor(kind: TransactionKindEntry, body: Record<string, unknown>, reference: string): boolean {
  const { gatewayIdField: id, referenceField: own } = kind;
  return typeof body[id] === 'string' && (typeof body[own] !== 'string' || body[own] === reference);
}

/**
 * Whether the gateway said it has no such transaction: a 400. For a read by a reference the spec
 * does not read by (a payout's merchantReference, an extension), only a 400 naming that field in
 * its details: a gateway that does not know the field answers 400 too, naming what it misses (payout_id).
 */
function notFoundBy(kind: TransactionKindEntry, result: StatusReadAnswer): boolean {
  if (result.kind !== 'rejected' || result.status !== 400) return false;
  if (kind.referenceReadInSpec) return true;
  const details = result.body.details;
  return typeof details === 'object' && details !== null && kind.referenceField in details;
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
