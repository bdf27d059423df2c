// The gateway's AttemptStore port (src/main/gateway/attempt-store.ts) on the ledger, for one
// profile. When prepare() resolves, the Idempotency-Key is committed (the engine's write is
// durable when it resolves), and the AttemptRunner sends nothing before that. Called inside a
// transaction (prepareSending, from a batch or a payout), the write joins it (the unit of work
// follows the async context) and is committed with it; the caller sends only after that commit.
import {
  AttemptStateError as GatewayAttemptStateError,
  type AttemptMeta,
  type AttemptRecord,
  type AttemptState,
  type AttemptStore,
  type StoredResponse,
} from '../gateway/attempt-store';
import type { CreateEndpoint } from '../gateway/endpoints';
import { AttemptStateError, IdempotencyConflictError, type Attempt, type AttemptKind, type AttemptsRepository } from './repositories/attempts';

/** The ledger's attempt kind of each create endpoint. */
export const attemptKindOf: Readonly<Record<CreateEndpoint, AttemptKind>> = {
  payin_create: 'payin',
  tokenization_create: 'tokenization',
  token_charge_create: 'token_charge',
  payout_create: 'payout',
};
const endpointOf = Object.fromEntries(Object.entries(attemptKindOf).map(([endpoint, kind]) => [kind, endpoint])) as Record<AttemptKind, CreateEndpoint>;

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
async function asGatewayError(run: () => Promise<unknown>): Promise<void> {
  try {
    await run();
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

  prepare(key: string, requestHash: string, sanitizedBody: string, meta: AttemptMeta): Promise<void> {
    return this.record(key, requestHash, sanitizedBody, meta, 'prepared');
  }

  prepareSending(key: string, requestHash: string, sanitizedBody: string, meta: AttemptMeta): Promise<void> {
    return this.record(key, requestHash, sanitizedBody, meta, 'sending');
  }

  markSending(key: string): Promise<boolean> {
    return this.attempts.markSending(key);
  }

  markSucceeded(key: string, response: StoredResponse): Promise<void> {
    return asGatewayError(() => this.attempts.markSucceeded(key, { httpStatus: response.httpStatus, responseBody: response.body, source: response.source }));
  }

  markRejected(key: string, response: StoredResponse): Promise<void> {
    return asGatewayError(() => this.attempts.markRejected(key, { httpStatus: response.httpStatus, responseBody: response.body, source: response.source }));
  }

  markUnknown(key: string, reason: string): Promise<void> {
    return asGatewayError(() => this.attempts.markUnknown(key, { error: reason }));
  }

  markUnsent(key: string, reason: string): Promise<void> {
    return asGatewayError(() => this.attempts.markUnsent(key, { error: reason }));
  }

  async get(key: string): Promise<AttemptRecord | undefined> {
    const attempt = await this.attempts.byKey(key);
    return attempt && toRecord(attempt);
  }

  async listByState(state: AttemptState): Promise<AttemptRecord[]> {
    return (await this.attempts.byState(state, this.profileId)).map(toRecord);
  }

  private async record(key: string, requestHash: string, sanitizedBody: string, meta: AttemptMeta, state: 'prepared' | 'sending'): Promise<void> {
    try {
      await this.attempts.record({
        profileId: this.profileId,
        kind: attemptKindOf[meta.endpoint],
        idempotencyKey: key,
        reference: meta.reference,
        requestHash,
        requestBody: sanitizedBody,
        replayable: meta.replayable,
        state,
      });
    } catch (error) {
      if (!(error instanceof IdempotencyConflictError)) throw error;
      // The key exists: refused as a move from the state it is in (the caller's transaction is still usable).
      throw new GatewayAttemptStateError(key, (await this.attempts.byKey(key))?.state ?? 'missing', state);
    }
  }
}
