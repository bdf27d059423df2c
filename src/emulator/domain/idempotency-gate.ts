// Idempotency for create calls. Requests with the same key run one after another (an in-flight
// lock per key), so concurrent duplicates create one transaction: the second waits, then finds
// the first one's stored response and replays it.
import { createHash } from 'node:crypto';
import { isJsonObject, isLosslessNumber } from '../../shared/json';
import type { IdempotencyRepo, StoredResponse } from '../store/idempotency';

export interface GateResponse {
  httpStatus: number;
  text: string;
  /** Only successful creations bind the key; refusals and server errors leave it free. */
  bind: boolean;
}

export type GateOutcome =
  | { kind: 'fresh'; response: GateResponse }
  | { kind: 'replay'; stored: StoredResponse }
  | { kind: 'conflict' };

/** Key order and whitespace do not matter; numbers compare by their exact source text. */
export function canonicalJson(value: unknown): string {
  if (isLosslessNumber(value)) return value.value;
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isJsonObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function requestHash(endpoint: string, body: unknown): string {
  return createHash('sha256').update(endpoint).update('\n').update(canonicalJson(body)).digest('hex');
}

export class IdempotencyGate {
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(
    private readonly repo: IdempotencyRepo,
    private readonly now: () => string,
  ) {}

  async run(merchantId: string, key: string, hash: string, handler: () => Promise<GateResponse>): Promise<GateOutcome> {
    const lockKey = `${merchantId}\u0000${key}`;
    const previous = this.locks.get(lockKey) ?? Promise.resolve();
    const current = previous.then(() => this.runLocked(merchantId, key, hash, handler));
    const settled = current.catch(() => undefined);
    this.locks.set(lockKey, settled);
    void settled.then(() => {
      if (this.locks.get(lockKey) === settled) this.locks.delete(lockKey);
    });
    return current;
  }

  private async runLocked(merchantId: string, key: string, hash: string, handler: () => Promise<GateResponse>): Promise<GateOutcome> {
    const stored = this.repo.find(merchantId, key);
    if (stored) return stored.request_hash === hash ? { kind: 'replay', stored } : { kind: 'conflict' };
    const response = await handler();
    if (response.bind) this.repo.save(merchantId, key, { request_hash: hash, http_status: response.httpStatus, response: response.text }, this.now());
    return { kind: 'fresh', response };
  }
}
