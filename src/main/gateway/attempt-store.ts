// Where create-call attempts are recorded. The ledger implements this with SQLite; the methods
// are synchronous on purpose (better-sqlite3): when prepare() returns, the key is committed (or,
// inside the caller's transaction, is committed with it), so no await gap exists between
// "written" and "sent".
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
// An attempt found in "sending" at startup was interrupted after its request may have left: the
// app's start-up (AttemptService.recoverInterrupted, src/main/services/payments/attempt-service.ts)
// moves it to "unknown". "unknown" never becomes "rejected" or "failed" by itself: only a status
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
  /** Records a new attempt in state "prepared". Throws if the key exists. Called before any byte is sent. */
  prepare(key: string, requestHash: string, sanitizedBody: string, meta: AttemptMeta): void;
  /**
   * Records a new attempt directly in "sending", its first send counted: for a send that starts
   * right after the record is committed (AttemptRunner.claim), one write instead of two. Throws if
   * the key exists.
   */
  prepareSending(key: string, requestHash: string, sanitizedBody: string, meta: AttemptMeta): void;
  /**
   * Compare-and-set "prepared" | "unknown" → "sending". Returns false (and changes nothing) in
   * any other state: the attempt is being sent elsewhere or is already final.
   */
  markSending(key: string): boolean;
  /** "sending" | "unknown" → "succeeded". */
  markSucceeded(key: string, response: StoredResponse): void;
  /** "sending" → "rejected" (a 4xx other than 429: the gateway refused the request). */
  markRejected(key: string, response: StoredResponse): void;
  /** "sending" → "unknown". */
  markUnknown(key: string, reason: string): void;
  /**
   * "sending" → "unknown" for a claim whose request never left (a failure between its commit and
   * its first send): the try counted when it was claimed is taken back, so the attempt shows none.
   */
  markUnsent(key: string, reason: string): void;
  get(key: string): AttemptRecord | undefined;
  listByState(state: AttemptState): AttemptRecord[];
}

/** Thrown by stores when a transition is not allowed: a bug in the caller, never an outcome. */
export class AttemptStateError extends Error {
  constructor(key: string, from: AttemptState | 'missing', to: AttemptState) {
    super(`attempt ${key}: ${from} → ${to} is not allowed`);
    this.name = 'AttemptStateError';
  }
}
