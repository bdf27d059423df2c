// Idempotency for create calls. Requests with the same key run one after another (an in-flight
// lock per key), so concurrent duplicates create one transaction: the second waits, then finds
// the first one's stored response and replays it. A creation's writes and the binding of its key
// are committed together: both are stored, or neither.
import { hash } from 'node:crypto';
import { isLosslessNumber } from '../../shared/json';
import type { IdempotencyRepo, StoredResponse } from '../store/idempotency';

export interface GateResponse {
  httpStatus: number;
  text: string;
  /** Only successful creations bind the key; refusals and server errors leave it free. */
  bind: boolean;
}

/**
 * What a create handler hands the gate: a finished answer (a refusal), or the creation's writes
 * as a synchronous step, which the gate commits together with the binding of the key.
 */
export type GateStep = GateResponse | (() => GateResponse);

export type GateOutcome =
  | { kind: 'fresh'; response: GateResponse }
  | { kind: 'replay'; stored: StoredResponse }
  | { kind: 'conflict' };

/** Runs synchronous writes as one unit and resolves once they are committed (store/group-commit.ts). */
export interface Committer {
  run<T>(work: () => T): Promise<T>;
}

/** JSON.stringify(s), without its cost for the usual string that it would only wrap in quotes. */
function quote(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // What JSON.stringify escapes (quotes, backslashes, controls, lone surrogates), and surrogate pairs.
    if (c === 0x22 || c === 0x5c || c < 0x20 || (c >= 0xd800 && c <= 0xdfff)) return JSON.stringify(s);
  }
  return `"${s}"`;
}

/**
 * Key order and whitespace do not matter; numbers compare by their exact source text. The text is
 * what a binding's hash was computed from since the first release: it must not change, or
 * bindings kept with --data would stop matching their replays.
 */
export function canonicalJson(value: unknown): string {
  if (typeof value === 'string') return quote(value);
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  if (isLosslessNumber(value)) return value.value;
  let out: string;
  if (Array.isArray(value)) {
    out = '[';
    for (let i = 0; i < value.length; i++) out += (i > 0 ? ',' : '') + canonicalJson(value[i]);
    return `${out}]`;
  }
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object).sort();
  out = '{';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    out += `${i > 0 ? ',' : ''}${quote(key)}:${canonicalJson(object[key])}`;
  }
  return `${out}}`;
}

export function requestHash(endpoint: string, body: unknown): string {
  return hash('sha256', `${endpoint}\n${canonicalJson(body)}`, 'hex');
}

export class IdempotencyGate {
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(
    private readonly repo: IdempotencyRepo,
    private readonly now: () => string,
    private readonly commits: Committer,
  ) {}

  async run(merchantId: string, key: string, fingerprint: string, handler: () => Promise<GateStep>): Promise<GateOutcome> {
    const lockKey = `${merchantId}\u0000${key}`;
    const previous = this.locks.get(lockKey);
    // Without a request in flight for this key there is nothing to wait for.
    const current = previous === undefined ? this.runLocked(merchantId, key, fingerprint, handler) : previous.then(() => this.runLocked(merchantId, key, fingerprint, handler));
    const settled = current.catch(() => undefined);
    this.locks.set(lockKey, settled);
    void settled.then(() => {
      if (this.locks.get(lockKey) === settled) this.locks.delete(lockKey);
    });
    return current;
  }

  private async runLocked(merchantId: string, key: string, fingerprint: string, handler: () => Promise<GateStep>): Promise<GateOutcome> {
    const stored = this.repo.find(merchantId, key);
    if (stored) return stored.request_hash === fingerprint ? { kind: 'replay', stored } : { kind: 'conflict' };
    const step = await handler();
    if (typeof step !== 'function') return { kind: 'fresh', response: step };
    const response = await this.commits.run(() => {
      const r = step();
      if (r.bind) this.repo.save(merchantId, key, { request_hash: fingerprint, http_status: r.httpStatus, response: r.text }, this.now());
      return r;
    });
    return { kind: 'fresh', response };
  }
}
