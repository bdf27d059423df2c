// What one HTTP call to the gateway can end in. Every failure is a value, never a thrown error,
// so callers must decide what each case means (for a create call: known, or unknown outcome).
import type { ErrorResponse } from '../../shared/spec/schemas';

export type CallResult<T> =
  /** HTTP 2xx with a JSON object body. The body's own status can still be "failed". */
  | { kind: 'ok'; status: number; body: T; raw: string }
  /** HTTP 4xx other than 429 (400, 401, 413, ...): the gateway refused this request. */
  | { kind: 'rejected'; status: number; body: ErrorResponse; raw: string }
  | { kind: 'rate_limited'; status: 429; retryAfterSeconds: number | null; body: ErrorResponse; raw: string }
  /** retryAfterSeconds: a 503's Retry-After (how long the gateway expects to be unavailable), a floor on the wait. */
  | { kind: 'server_error'; status: number; body: ErrorResponse; raw: string; retryAfterSeconds?: number | null }
  /** No complete answer within the time limit: the gateway may or may not have acted. */
  | { kind: 'timeout' }
  /**
   * The connection failed. connectFailed is true when it failed before the request could leave
   * (refused, host not found); otherwise the gateway may have received it.
   */
  | { kind: 'network_error'; message: string; connectFailed: boolean }
  /** An answer we cannot read as the gateway's: a 2xx that is not a JSON object, a 3xx, an oversized body. */
  | { kind: 'unexpected_response'; status: number; message: string };

export type CallFailure<T = unknown> = Exclude<CallResult<T>, { kind: 'ok' }>;

/** Failures after which the same request may be sent again with the same Idempotency-Key. */
export function isTransient(result: CallResult<unknown>): boolean {
  return result.kind === 'timeout' || result.kind === 'network_error' || result.kind === 'server_error' || result.kind === 'rate_limited';
}

/** One line for logs and the UI; holds status codes and reason codes only, never bodies. */
export function describeResult(result: CallResult<unknown>): string {
  switch (result.kind) {
    case 'ok':
      return `HTTP ${result.status}`;
    case 'rejected':
      return `HTTP ${result.status}${result.body.reason_code ? ` ${result.body.reason_code}` : ''}`;
    case 'server_error':
      return `HTTP ${result.status}${result.body.reason_code ? ` ${result.body.reason_code}` : ''}${typeof result.retryAfterSeconds === 'number' ? ` (Retry-After ${result.retryAfterSeconds} s)` : ''}`;
    case 'rate_limited':
      return `HTTP 429 rate limited${result.retryAfterSeconds !== null ? ` (Retry-After ${result.retryAfterSeconds} s)` : ''}`;
    case 'timeout':
      return 'timeout';
    case 'network_error':
      return `network error: ${result.message}`;
    case 'unexpected_response':
      return `unexpected response: ${result.message}`;
  }
}
