// Where create-call attempts are recorded. The ledger implements this (SQLite or PostgreSQL); the
// methods are asynchronous, and every write is durable when its promise resolves: once prepare()
// resolves, the key is committed (or, inside the caller's transaction, is committed with it), and
// the AttemptRunner sends nothing before that.
//
// State machine (only forward, plus the explicit resume edge):
//
//   prepare ─▶ prepared ──markSending──▶ sending ──▶ succeeded | rejected   (final)
//                                          │  ▲
//                              markUnknown ▼  │ markSending (resume, same key and body)
//                                         unknown ──markSucceeded (status read found it)──▶ succeeded
//
//   prepareSending ─▶ sending   (a claim, sent as soon as it is committed: AttemptRunner.claim)
//                       └──markUnsent──▶ unknown   (the claim failed before its request left)
//
// An attempt left in "sending" by a process that died was interrupted after its request may have
// left: the app moves it to "unknown" (AttemptService.recoverInterrupted, src/main/services/
// payments/attempt-service.ts) at start-up, or once another instance finds that process dead —
// never while its process is alive (the ledger records who claimed it). "unknown" never becomes "rejected" or "failed" by itself: only a status
// read or a same-key retry resolves it.
import type { CreateEndpoint } from './endpoints';

export type AttemptState = 'prepared' | 'sending' | 'succeeded' | 'rejected' | 'unknown';

export interface StoredResponse {
  httpStatus: number;
  /** The answer's raw JSON text (exact amounts). */
  body: string;
  /** "create": the create call's own answer; "status_read": a get-status answer that resolved an unknown attempt. */
  source: 'create' | 'status_read';
}

export interface AttemptMeta {
  endpoint: CreateEndpoint;
  /** request_id (pay-ins) or merchantReference (payouts). */
  reference: string;
  /** True when sanitizedBody is the exact request text, so a resume after a restart can re-send it. */
  replayable: boolean;
}

export interface AttemptRecord extends AttemptMeta {
  /** The Idempotency-Key. */
  key: string;
  /** SHA-256 (hex) of sanitizedBody: see requestHash() (the same rule as the ledger's storedRequest). */
  requestHash: string;
  /** The request as canonical JSON text (sorted keys) with card data masked or removed. */
  sanitizedBody: string;
  state: AttemptState;
  /** Set in succeeded and rejected. */
  response: StoredResponse | null;
  /** Set in unknown: why the outcome is not known (timeout, interrupted, ...). */
  unknownReason: string | null;
}

export interface AttemptStore {
  /** Records a new attempt in state "prepared" (durable when it resolves). Rejects if the key exists. Called before any byte is sent. */
  prepare(key: string, requestHash: string, sanitizedBody: string, meta: AttemptMeta): Promise<void>;
  /**
   * Records a new attempt directly in "sending", its first send counted: for a send that starts
   * right after the record is committed (AttemptRunner.claim), one write instead of two. Rejects if
   * the key exists.
   */
  prepareSending(key: string, requestHash: string, sanitizedBody: string, meta: AttemptMeta): Promise<void>;
  /**
   * Compare-and-set "prepared" | "unknown" → "sending". Resolves false (and changes nothing) in
   * any other state: the attempt is being sent elsewhere or is already final.
   */
  markSending(key: string): Promise<boolean>;
  /** "sending" | "unknown" → "succeeded". */
  markSucceeded(key: string, response: StoredResponse): Promise<void>;
  /** "sending" → "rejected" (a 4xx other than 429: the gateway refused the request). */
  markRejected(key: string, response: StoredResponse): Promise<void>;
  /** "sending" → "unknown". */
  markUnknown(key: string, reason: string): Promise<void>;
  /**
   * "sending" → "unknown" for a claim whose request never left (a failure between its commit and
   * its first send): the try counted when it was claimed is taken back, so the attempt shows none.
   */
  markUnsent(key: string, reason: string): Promise<void>;
  get(key: string): Promise<AttemptRecord | undefined>;
  listByState(state: AttemptState): Promise<AttemptRecord[]>;
}

/** Thrown (rejected with) by stores when a transition is not allowed: a bug in the caller, never an outcome. */
export class AttemptStateError extends Error {
  constructor(key: string, from: AttemptState | 'missing', to: AttemptState) {
    super(`attempt ${key}: ${from} → ${to} is not allowed`);
    this.name = 'AttemptStateError';
  }
}
