// When to send a create call again after a transient failure. Bounded twice: by a number of
// tries and by a total time after which no new try starts. No jitter: Paydesk is one client per
// merchant sending one attempt at a time, not a fleet, and a fixed schedule is easier to audit.

export interface RetryPolicy {
  /** Tries in all, the first included (1 = never retry). */
  maxTries: number;
  /** No try starts later than this after the first one started. */
  maxTotalMs: number;
  /** Wait before the first retry. */
  baseDelayMs: number;
  /** Each further retry waits this factor longer... */
  factor: number;
  /** ...up to this. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxTries: 5,
  maxTotalMs: 60_000,
  baseDelayMs: 500,
  factor: 2,
  maxDelayMs: 8_000,
};

/** Refuses a policy that could retry without bound or never wait. */
export function checkPolicy(policy: RetryPolicy): RetryPolicy {
  const ok =
    Number.isInteger(policy.maxTries) && policy.maxTries >= 1 && policy.maxTries <= 20 &&
    policy.maxTotalMs >= 0 && policy.baseDelayMs >= 0 && policy.factor >= 1 && policy.maxDelayMs >= policy.baseDelayMs;
  if (!ok) throw new RangeError('retry policy out of range (maxTries 1-20, delays >= 0, factor >= 1)');
  return policy;
}

/** Wait before retry number `retry` (1 = the second try): base · factor^(retry-1), capped. */
export function backoffDelay(retry: number, policy: RetryPolicy): number {
  const raw = policy.baseDelayMs * policy.factor ** Math.max(0, retry - 1);
  return Math.min(policy.maxDelayMs, Number.isFinite(raw) ? raw : policy.maxDelayMs);
}

/** The whole schedule, for the settings screen and tests: waits before tries 2..maxTries. */
export function backoffSchedule(policy: RetryPolicy): number[] {
  return Array.from({ length: Math.max(0, policy.maxTries - 1) }, (_, i) => backoffDelay(i + 1, policy));
}

/** Why a wait is as long as it is: the gateway's Retry-After, or our own backoff schedule. */
export type WaitCause = 'retry_after' | 'backoff';

export type RetryDecision = { retry: true; delayMs: number; cause: WaitCause } | { retry: false; why: 'max_tries' | 'max_total_time' };

/**
 * After `triesSoFar` tries that started at `startedAt`: retry, and after how long? A server's
 * Retry-After is a floor on the wait, never shortened; if it does not fit the time budget we
 * stop rather than send early.
 */
export function nextRetry(input: { triesSoFar: number; startedAt: number; now: number; retryAfterSeconds: number | null; policy: RetryPolicy }): RetryDecision {
  const { triesSoFar, startedAt, now, retryAfterSeconds, policy } = input;
  if (triesSoFar >= policy.maxTries) return { retry: false, why: 'max_tries' };
  const backoffMs = backoffDelay(triesSoFar, policy);
  const retryAfterMs = (retryAfterSeconds ?? 0) * 1000;
  const delayMs = Math.max(backoffMs, retryAfterMs);
  if (now + delayMs - startedAt > policy.maxTotalMs) return { retry: false, why: 'max_total_time' };
  return { retry: true, delayMs, cause: retryAfterMs > backoffMs ? 'retry_after' : 'backoff' };
}
