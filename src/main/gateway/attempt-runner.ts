// Exactly-once create calls (endpoints 1, 3, 4, 5). One attempt = one Idempotency-Key, written
// to the store before the first byte leaves. Transient failures (timeout, connection error,
// 429, 5xx) are retried with the same key and the same bytes; a 4xx never is. When the tries run
// out the attempt is "unknown", not failed: only a status read or a same-key resume settles it.
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
  private readonly policy: RetryPolicy;

  constructor(private readonly deps: AttemptRunnerDeps) {
    this.policy = checkPolicy({ ...DEFAULT_RETRY_POLICY, ...deps.policy });
  }

  /** Records a new attempt with a fresh Idempotency-Key, sends nothing, returns the key. */
  prepare<E extends CreateEndpoint>(endpoint: E, body: CreateRequests[E]): string {
    const prepared = prepareBody<E>(body);
    const key = this.deps.ids.uuid();
    this.deps.store.prepare(key, prepared.requestHash, prepared.sanitizedText, {
      endpoint,
      reference: attemptReference(endpoint, body),
      replayable: prepared.replayable,
    });
    this.bodies.set(key, prepared.bodyText);
    return key;
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

  /** At startup: attempts left in "sending" by a crash become "unknown". Returns their keys. */
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

  private async sendLocked(key: string, supplied: CreateRequests[CreateEndpoint] | undefined): Promise<AttemptOutcome> {
    const record = this.record(key);
    const base = { key, endpoint: record.endpoint };
    if (record.state === 'succeeded' || record.state === 'rejected') return storedOutcome(record);
    if (record.state === 'sending') return { ...base, state: 'busy' };
    const body = this.bodyFor(record, supplied);
    if (typeof body !== 'string') return { ...base, state: 'needs_body', why: body.why };
    if (!this.deps.store.markSending(key)) return { ...base, state: 'busy' };
    try {
      return await this.sendWithRetries(record, body);
    } catch (error) {
      // A store or programming failure mid-flight: the request may have left, so "unknown" is the only honest state.
      try {
        this.deps.store.markUnknown(key, 'internal error while sending');
      } catch {
        // Left in "sending": recoverInterrupted() turns it into "unknown" at the next start.
      }
      throw error;
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

  private async sendWithRetries(record: AttemptRecord, bodyText: string): Promise<AttemptOutcome> {
    const { key, endpoint } = record;
    const { store, clock, transport } = this.deps;
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
      if (result.kind === 'ok') {
        store.markSucceeded(key, { httpStatus: result.status, body: result.raw, source: 'create' });
        this.bodies.delete(key);
        return { key, endpoint, state: 'succeeded', tries: attempt, httpStatus: result.status, body: result.body, raw: result.raw, source: 'create' };
      }
      if (result.kind === 'rejected') {
        store.markRejected(key, { httpStatus: result.status, body: result.raw, source: 'create' });
        this.bodies.delete(key);
        return { key, endpoint, state: 'rejected', tries: attempt, httpStatus: result.status, body: result.body, raw: result.raw };
      }
      const decision = isTransient(result)
        ? nextRetry({ triesSoFar: attempt, startedAt, now: clock.now(), retryAfterSeconds: result.kind === 'rate_limited' ? result.retryAfterSeconds : null, policy: this.policy })
        : ({ retry: false, why: 'not_retryable' } as const);
      if (!decision.retry) {
        const reason = `${describeResult(result)}; no further try (${decision.why}) after ${attempt} tries`;
        store.markUnknown(key, reason);
        return { key, endpoint, state: 'unknown', tries: attempt, reason };
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
