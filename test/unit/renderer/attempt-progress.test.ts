// The words of a create call's progress: the try number against the policy's bound, the time
// since the first try (moving between reports), what happens next and why, and how it ends.
import { describe, expect, it } from 'vitest';
import { attemptProgressSchema, type AttemptProgressView } from '../../../src/shared/contract';
import { describeAttemptProgress } from '../../../src/renderer/components/attempt-progress-text';

const base: AttemptProgressView = {
  idempotencyKey: 'key-1',
  profileId: 'p-1',
  kind: 'payout',
  reference: 'po-1',
  phase: 'sending',
  tryNumber: 1,
  startedAt: '2026-03-01T10:00:00.000Z',
  elapsedMs: 0,
  lastAnswer: null,
  wait: null,
  outcome: null,
  stopReason: null,
  policy: { maxTries: 5, maxTotalMs: 60_000, tryTimeoutMs: 20_000 },
};
const at = (patch: Partial<AttemptProgressView>): AttemptProgressView => attemptProgressSchema.parse({ ...base, ...patch });

describe('describeAttemptProgress', () => {
  it('a try on the wire: its number against the bound, the time since the first try, the per-try wait', () => {
    const text = describeAttemptProgress(at({ tryNumber: 2, elapsedMs: 20_500, lastAnswer: 'timeout' }), 3_400);
    expect(text.heading).toBe('Try 2 of at most 5');
    expect(text.elapsed).toBe('23 s elapsed');
    expect(text.now).toBe("Try 2 sent 3 s ago: still waiting for the gateway's answer (each try waits up to 20 s).");
    expect(describeAttemptProgress(at({ tryNumber: 2 }), 400).now).toBe("Try 2 sent: waiting for the gateway's answer (each try waits up to 20 s).");
    expect(text.lastAnswer).toBe('Last answer: timeout');
  });

  it('a wait the gateway asked for counts down, and says the same key and request go again', () => {
    const waiting = at({ phase: 'waiting', tryNumber: 1, elapsedMs: 2_000, lastAnswer: 'HTTP 503', wait: { ms: 3_000, cause: 'retry_after' } });
    expect(describeAttemptProgress(waiting, 0).now).toBe("Retrying with the same Idempotency-Key and the same request: try 2 starts in 3 s (the gateway's Retry-After asked for 3 s).");
    expect(describeAttemptProgress(waiting, 1_200).now).toContain('try 2 starts in 2 s');
    expect(describeAttemptProgress(waiting, 1_200).elapsed).toBe('3 s elapsed');
    const backoff = at({ phase: 'waiting', tryNumber: 3, lastAnswer: 'HTTP 500', wait: { ms: 2_000, cause: 'backoff' } });
    expect(describeAttemptProgress(backoff, 0).now).toContain('try 4 starts in 2 s (our backoff schedule: 2 s)');
  });

  it('states the policy: same key, the bounds, and "unknown" (never failed) when it gives up', () => {
    const { policy } = describeAttemptProgress(at({ kind: 'payin' }), 0);
    expect(policy).toContain('same Idempotency-Key');
    expect(policy).toContain('up to 5 tries, none starting later than 60 s after the first');
    expect(policy).toContain("the pay-in's outcome becomes “unknown”, not failed");
  });

  it('the end: answered, refused, or given up with the reason', () => {
    expect(describeAttemptProgress(at({ phase: 'finished', tryNumber: 2, outcome: 'succeeded', elapsedMs: 9_000 }), 5_000)).toMatchObject({ now: 'The gateway answered after 2 tries.', elapsed: '9 s elapsed' });
    expect(describeAttemptProgress(at({ phase: 'finished', outcome: 'rejected' }), 0).now).toBe('The gateway refused the request after 1 try; a refusal is never resent.');
    expect(describeAttemptProgress(at({ phase: 'finished', tryNumber: 5, outcome: 'unknown', stopReason: 'max_tries' }), 0).now).toBe("Gave up after 5 tries without an answer. The payout's outcome is unknown.");
    expect(describeAttemptProgress(at({ phase: 'finished', tryNumber: 3, outcome: 'unknown', stopReason: 'max_total_time' }), 0).now).toContain('the next try would have started after the 60 s limit');
    expect(describeAttemptProgress(at({ phase: 'finished', outcome: 'unknown', stopReason: 'not_retryable' }), 0).now).toContain('could not be read');
  });
});
