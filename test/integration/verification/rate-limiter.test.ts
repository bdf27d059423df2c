// The client-side token bucket in front of status reads: the gateway's documented shape, a pause
// for Retry-After, and waits that end on abort or close.
import { describe, expect, it } from 'vitest';
import { GATEWAY_READ_LIMIT, LimiterClosedError, ReadRateLimiter } from '../../../src/main/services/verification/rate-limiter';

describe('status read rate limiter', () => {
  it('allows a burst of 20, then 10 per second, pay-ins and payouts counted apart', () => {
    let now = 0;
    const limiter = new ReadRateLimiter(GATEWAY_READ_LIMIT, () => now);
    for (let i = 0; i < 20; i++) expect(limiter.tryTake('p1|payin')).toBe(0);
    expect(limiter.tryTake('p1|payin')).toBe(100);
    expect(limiter.tryTake('p1|payout')).toBe(0);
    now += 100;
    expect(limiter.tryTake('p1|payin')).toBe(0);
    expect(limiter.tryTake('p1|payin')).toBeGreaterThan(0);
    now += 10_000;
    for (let i = 0; i < 20; i++) expect(limiter.tryTake('p1|payin')).toBe(0);
    expect(limiter.tryTake('p1|payin')).toBeGreaterThan(0);
  });

  it('holds a key for the Retry-After of a 429, then lets one read go', () => {
    let now = 1_000;
    const limiter = new ReadRateLimiter(GATEWAY_READ_LIMIT, () => now);
    limiter.pause('k', 2_000);
    expect(limiter.tryTake('k')).toBe(2_000);
    now += 1_999;
    expect(limiter.tryTake('k')).toBe(1);
    now += 1;
    expect(limiter.tryTake('k')).toBe(0);
    expect(limiter.tryTake('k')).toBeGreaterThan(0);
  });

  it("waits a bounded time for a slot, else takes nothing and says how long until one (a person's read)", async () => {
    let now = 5_000;
    const limiter = new ReadRateLimiter({ burst: 1, refillPerSecond: 10 }, () => now);
    expect(await limiter.takeWithin('k', 0)).toBe(0);
    limiter.pause('k', 7_000);
    expect(await limiter.takeWithin('k', 2_000)).toBe(7_000);
    expect(await limiter.takeWithin('k', 2_000)).toBe(7_000); // nothing was taken meanwhile
    now += 6_500;
    expect(await limiter.takeWithin('k', 0)).toBe(500);
    now += 500;
    expect(await limiter.takeWithin('k', 0)).toBe(0);
  });

  it('waits for a slot with a timer, and ends waits on abort and on close', async () => {
    const limiter = new ReadRateLimiter({ burst: 1, refillPerSecond: 20 });
    await limiter.take('k');
    const started = Date.now();
    await limiter.take('k');
    expect(Date.now() - started).toBeGreaterThanOrEqual(40);
    limiter.pause('k', 60_000);
    const controller = new AbortController();
    const aborted = limiter.take('k', controller.signal);
    controller.abort(new Error('stop'));
    await expect(aborted).rejects.toThrow('stop');
    const closed = limiter.take('k');
    limiter.close();
    await expect(closed).rejects.toBeInstanceOf(LimiterClosedError);
    await expect(limiter.take('other')).rejects.toBeInstanceOf(LimiterClosedError);
  });
});
