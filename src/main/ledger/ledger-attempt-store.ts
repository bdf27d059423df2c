// The gateway's AttemptStore port (src/main/gateway/attempt-store.ts) on the SQLite ledger, for one
// profile. Synchronous on purpose: when prepare() returns, the Idempotency-Key is committed with
// synchronous=FULL, so there is no gap between "written" and "sent". Called inside a transaction
// (prepareSending, from a batch or a payout), it is committed with that transaction, before the send.
import {
  AttemptStateError as GatewayAttemptStateError,
  type AttemptMeta,
  type AttemptRecord,
  type AttemptState,
  type AttemptStore,
  type StoredResponse,
} from '../gateway/attempt-store';
import type { CreateEndpoint } from '../gateway/endpoints';
import { AttemptStateError, type Attempt, type AttemptKind, type AttemptsRepository } from './repositories/attempts';

const kindOf: Record<CreateEndpoint, AttemptKind> = {
  payin_create: 'payin',
  tokenization_create: 'tokenization',
  token_charge_create: 'token_charge',
  payout_create: 'payout',
};
const endpointOf = Object.fromEntries(Object.entries(kindOf).map(([endpoint, kind]) => [kind, endpoint])) as Record<AttemptKind, CreateEndpoint>;

function toRecord(a: Attempt): AttemptRecord {
  const settled = a.state === 'succeeded' || a.state === 'rejected';
  return {
    key: a.idempotencyKey,
    endpoint: endpointOf[a.kind],
    reference: a.reference,
    replayable: a.replayable,
    requestHash: a.requestHash,
    sanitizedBody: a.requestBody,
    state: a.state,
    response:
      settled && a.httpStatus !== null && a.responseBody !== null
        ? { httpStatus: a.httpStatus, body: a.responseBody, source: a.responseSource ?? 'create' }
        : null,
    unknownReason: a.state === 'unknown' ? a.error : null,
  };
}

/** Repository errors become the port's error type, which the AttemptRunner knows. */
function asGatewayError<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof AttemptStateError) throw new GatewayAttemptStateError(error.key, error.from, error.to);
    throw error;
  }
}

export class LedgerAttemptStore implements AttemptStore {
  constructor(
    private readonly attempts: AttemptsRepository,
    private readonly profileId: string,
  ) {}

  prepare(key: string, requestHash: string, sanitizedBody: string, meta: AttemptMeta): void {
    this.record(key, requestHash, sanitizedBody, meta, 'prepared');
  }

  prepareSending(key: string, requestHash: string, sanitizedBody: string, meta: AttemptMeta): void {
    this.record(key, requestHash, sanitizedBody, meta, 'sending');
  }

  markSending(key: string): boolean {
    return this.attempts.markSending(key);
  }

  markSucceeded(key: string, response: StoredResponse): void {
    asGatewayError(() => this.attempts.markSucceeded(key, { httpStatus: response.httpStatus, responseBody: response.body, source: response.source }));
  }

  markRejected(key: string, response: StoredResponse): void {
    asGatewayError(() => this.attempts.markRejected(key, { httpStatus: response.httpStatus, responseBody: response.body, source: response.source }));
  }

  markUnknown(key: string, reason: string): void {
    asGatewayError(() => this.attempts.markUnknown(key, { error: reason }));
  }

  markUnsent(key: string, reason: string): void {
    asGatewayError(() => this.attempts.markUnsent(key, { error: reason }));
  }

  get(key: string): AttemptRecord | undefined {
    const attempt = this.attempts.byKey(key);
    return attempt && toRecord(attempt);
  }

  listByState(state: AttemptState): AttemptRecord[] {
    return this.attempts.byState(state, this.profileId).map(toRecord);
  }

  private record(key: string, requestHash: string, sanitizedBody: string, meta: AttemptMeta, state: 'prepared' | 'sending'): void {
    const existing = this.attempts.byKey(key);
    if (existing) throw new GatewayAttemptStateError(key, existing.state, state);
    this.attempts.record({
      profileId: this.profileId,
      kind: kindOf[meta.endpoint],
      idempotencyKey: key,
      reference: meta.reference,
      requestHash,
      requestBody: sanitizedBody,
      replayable: meta.replayable,
      state,
    });
  }
}
