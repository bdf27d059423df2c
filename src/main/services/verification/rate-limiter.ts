// Client-side token bucket for status reads, shaped like the gateway's documented limit (PRODUCT.md:
// per merchant, 20 reads at once, refilled at 10 per second, pay-ins and payouts counted apart), so
// the verifier, the sweep and a person's reads (one limiter for all, see StatusReader) rarely meet
// an HTTP 429. When one comes anyway, pause() holds the bucket for the Retry-After the gateway
// asked for. Waits are timers that never keep the process alive, and close() ends every wait at
// once.

export interface RateLimit {
  burst: number;
  refillPerSecond: number;
}

export const GATEWAY_READ_LIMIT: RateLimit = { burst: 20, refillPerSecond: 10 };

export class LimiterClosedError extends Error {
  constructor() {
    super('the status read limiter is closed');
    this.name = 'LimiterClosedError';
  }
}

interface Bucket {
  tokens: number;
  at: number;
  blockedUntil: number;
}

interface Waiter {
  timer: NodeJS.Timeout;
  fail: (error: unknown) => void;
}

export class ReadRateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly waiters = new Set<Waiter>();
  private closed = false;

  constructor(
    private readonly limit: RateLimit = GATEWAY_READ_LIMIT,
    private readonly nowMs: () => number = Date.now,
  ) {
    if (!(limit.burst >= 1) || !(limit.refillPerSecond > 0)) throw new RangeError('a read limit needs burst >= 1 and refillPerSecond > 0');
  }

  /** Resolves once a read may be sent under this key; rejects when aborted or closed. */
  async take(key: string, signal?: AbortSignal): Promise<void> {
    await this.takeWithin(key, Infinity, signal);
  }

  /**
   * Takes a slot under this key if one comes within `maxWaitMs`, waiting for it: resolves 0. When
   * the wait would be longer (a Retry-After in force), takes nothing and resolves the ms until a
   * slot may be free, so a person's read can say "retry in N s" instead of hanging.
   */
  async takeWithin(key: string, maxWaitMs: number, signal?: AbortSignal): Promise<number> {
    const deadline = this.nowMs() + Math.max(0, maxWaitMs);
    // Bounded: each round waits at least until a token is due, and a token is due within
    // 1 / refillPerSecond seconds unless pause() pushed it later.
    for (let round = 0; round < 10_000; round++) {
      if (this.closed) throw new LimiterClosedError();
      signal?.throwIfAborted();
      const waitMs = this.tryTake(key);
      if (waitMs === 0) return 0;
      if (this.nowMs() + waitMs > deadline) return waitMs;
      await this.sleep(waitMs, signal);
    }
    throw new Error(`no read slot for ${key} after 10000 rounds`);
  }

  /** 0 when a token was taken, else how many ms until one may be. */
  tryTake(key: string): number {
    const now = this.nowMs();
    const bucket = this.bucket(key, now);
    if (now < bucket.blockedUntil) return bucket.blockedUntil - now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil(((1 - bucket.tokens) / this.limit.refillPerSecond) * 1000));
  }

  /**
   * The gateway answered 429: nothing under this key is sent before `ms` from now; then one read
   * may go, and the bucket refills from empty.
   */
  pause(key: string, ms: number): void {
    const now = this.nowMs();
    const bucket = this.bucket(key, now);
    bucket.blockedUntil = Math.max(bucket.blockedUntil, now + ms);
    bucket.tokens = 1;
    bucket.at = Math.max(bucket.at, bucket.blockedUntil);
  }

  close(): void {
    this.closed = true;
    for (const waiter of this.waiters) {
      clearTimeout(waiter.timer);
      waiter.fail(new LimiterClosedError());
    }
    this.waiters.clear();
  }

  private bucket(key: string, now: number): Bucket {
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = { tokens: this.limit.burst, at: now, blockedUntil: 0 };
      this.buckets.set(key, bucket);
    }
    if (now > bucket.at) {
      bucket.tokens = Math.min(this.limit.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.limit.refillPerSecond);
      bucket.at = now;
    }
    return bucket;
  }

  private sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        clearTimeout(waiter.timer);
        this.waiters.delete(waiter);
        reject(signal?.reason ?? new Error('aborted'));
      };
      const waiter: Waiter = {
        timer: setTimeout(() => {
          this.waiters.delete(waiter);
          signal?.removeEventListener('abort', onAbort);
          resolve();
        }, ms),
        fail: (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      waiter.timer.unref();
      this.waiters.add(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
