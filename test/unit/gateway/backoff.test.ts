import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY, backoffDelay, backoffSchedule, checkPolicy, nextRetry, type RetryPolicy } from '../../../src/main/gateway/backoff';

const policy: RetryPolicy = { maxTries: 6, maxTotalMs: 30_000, baseDelayMs: 500, factor: 2, maxDelayMs: 4_000 };

describe('backoff schedule', () => {
  it('doubles from the base delay and stops growing at the cap', () => {
    expect(backoffSchedule(policy)).toEqual([500, 1_000, 2_000, 4_000, 4_000]);
    expect(backoffDelay(50, policy)).toBe(4_000);
    expect(backoffDelay(5_000, policy)).toBe(4_000);
  });

  it('the default policy tries 5 times over at most a minute', () => {
    expect(backoffSchedule(DEFAULT_RETRY_POLICY)).toEqual([500, 1_000, 2_000, 4_000]);
    expect(DEFAULT_RETRY_POLICY.maxTotalMs).toBe(60_000);
  });

  it('one try means no retry', () => {
    expect(backoffSchedule({ ...policy, maxTries: 1 })).toEqual([]);
    expect(nextRetry({ triesSoFar: 1, startedAt: 0, now: 0, retryAfterSeconds: null, policy: { ...policy, maxTries: 1 } })).toEqual({ retry: false, why: 'max_tries' });
  });
});

describe('nextRetry', () => {
  it('retries with the backoff delay until maxTries', () => {
    expect(nextRetry({ triesSoFar: 1, startedAt: 0, now: 100, retryAfterSeconds: null, policy })).toEqual({ retry: true, delayMs: 500, cause: 'backoff' });
    expect(nextRetry({ triesSoFar: 3, startedAt: 0, now: 100, retryAfterSeconds: null, policy })).toEqual({ retry: true, delayMs: 2_000, cause: 'backoff' });
    expect(nextRetry({ triesSoFar: 6, startedAt: 0, now: 100, retryAfterSeconds: null, policy })).toEqual({ retry: false, why: 'max_tries' });
  });

  it('never starts a try after the total time budget', () => {
    expect(nextRetry({ triesSoFar: 2, startedAt: 0, now: 29_000, retryAfterSeconds: null, policy })).toEqual({ retry: true, delayMs: 1_000, cause: 'backoff' });
    expect(nextRetry({ triesSoFar: 2, startedAt: 0, now: 29_001, retryAfterSeconds: null, policy })).toEqual({ retry: false, why: 'max_total_time' });
  });

  it('waits at least Retry-After, and gives up rather than send early when it does not fit', () => {
    expect(nextRetry({ triesSoFar: 1, startedAt: 0, now: 0, retryAfterSeconds: 3, policy })).toEqual({ retry: true, delayMs: 3_000, cause: 'retry_after' });
    // A shorter Retry-After than our own schedule: the schedule's wait, and it says so.
    expect(nextRetry({ triesSoFar: 4, startedAt: 0, now: 0, retryAfterSeconds: 1, policy })).toEqual({ retry: true, delayMs: 4_000, cause: 'backoff' });
    expect(nextRetry({ triesSoFar: 1, startedAt: 0, now: 0, retryAfterSeconds: 31, policy })).toEqual({ retry: false, why: 'max_total_time' });
  });

  it('rejects a policy that could loop without bound', () => {
    expect(() => checkPolicy({ ...policy, maxTries: 0 })).toThrow(RangeError);
    expect(() => checkPolicy({ ...policy, maxTries: 1.5 })).toThrow(RangeError);
    expect(() => checkPolicy({ ...policy, maxTries: 1000 })).toThrow(RangeError);
    expect(() => checkPolicy({ ...policy, factor: 0.5 })).toThrow(RangeError);
    expect(checkPolicy(policy)).toEqual(policy);
  });
});
