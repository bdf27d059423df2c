import type { DeliverySchedule } from '../options';

/**
 * Delay before attempt `n` (1-based) of a delivery. Attempt 1 follows the event after
 * firstAttemptDelayMs; attempt n >= 2 is retry n-1 and waits firstRetryDelayMs * factor^(n-2),
 * capped at maxDelayMs. Returns undefined when no attempt n may be made.
 */
export function delayBeforeAttempt(n: number, s: DeliverySchedule): number | undefined {
  if (n < 1 || n > s.maxAttempts) return undefined;
  if (n === 1) return s.firstAttemptDelayMs;
  return Math.min(s.firstRetryDelayMs * s.backoffFactor ** (n - 2), s.maxDelayMs);
}

/** Human-readable schedule for --help, docs and the admin info endpoint. */
export function describeSchedule(s: DeliverySchedule): string[] {
  const out: string[] = [];
  for (let n = 1; n <= s.maxAttempts; n++) out.push(`attempt ${n}: +${delayBeforeAttempt(n, s)} ms`);
  return out;
}
