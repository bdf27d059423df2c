// Token bucket for get-status reads: per merchant and per kind (pay-ins and payouts apart).
import type { RateLimit } from '../options';
import type { Clock } from '../runtime';

export type ReadKind = 'payin' | 'payout';

export type TakeResult = { ok: true } | { ok: false; retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  at: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly clock: Clock,
    public limit: RateLimit,
  ) {}

  take(merchantId: string, kind: ReadKind): TakeResult {
    const key = `${merchantId}\u0000${kind}`;
    const now = this.clock.now();
    const b = this.buckets.get(key) ?? { tokens: this.limit.burst, at: now };
    b.tokens = Math.min(this.limit.burst, b.tokens + ((now - b.at) / 1000) * this.limit.refillPerSecond);
    b.at = now;
    this.buckets.set(key, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return { ok: true };
    }
    // Whole seconds (Retry-After has no fractions), never 0: "retry now" would be wrong.
    const seconds = this.limit.refillPerSecond > 0 ? Math.ceil((1 - b.tokens) / this.limit.refillPerSecond) : 60;
    return { ok: false, retryAfterSeconds: Math.max(1, seconds) };
  }

  /** Applies new settings and refills every bucket (admin change). */
  configure(limit: RateLimit): void {
    this.limit = limit;
    this.buckets.clear();
  }
}
