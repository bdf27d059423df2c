// Settlement periods: fixed lengths counted from 1970-01-01T00:00Z, so a day is a UTC day and an
// hour a whole hour. A settlement covers a window: the part of one period between two cut-offs.

export const DAY_MS = 86_400_000;
export const MIN_PERIOD_MS = 1_000;
export const DEFAULT_SETTLEMENT_PERIOD_MS = DAY_MS;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: DAY_MS };

/** "10s", "5m", "2h", "1d", "1500ms" → milliseconds; undefined when not one from 1 s to 1 d. */
export function parsePeriod(text: string): number | undefined {
  const m = /^\s*(\d{1,9})\s*(ms|s|m|h|d)\s*$/.exec(text);
  if (!m) return undefined;
  const ms = Number(m[1]) * (UNIT_MS[m[2] as string] as number);
  return ms >= MIN_PERIOD_MS && ms <= DAY_MS ? ms : undefined;
}

/** A period given as an option, checked before anything starts. */
export function assertPeriod(ms: number): number {
  if (!Number.isInteger(ms) || ms < MIN_PERIOD_MS || ms > DAY_MS) throw new RangeError(`settlement.periodMs must be an integer from ${MIN_PERIOD_MS} to ${DAY_MS}`);
  return ms;
}

/** "1d", "10s", "1500ms": the shortest exact way to write a period. */
export function describePeriod(ms: number): string {
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    const size = UNIT_MS[unit] as number;
    if (ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

export const periodStartOf = (t: number, periodMs: number): number => Math.floor(t / periodMs) * periodMs;

export interface Window {
  start: number;
  end: number;
}

/**
 * The window of a pay-in that succeeded at `t`: its period, cut at the previous run's cut-off
 * (`since`, when it falls inside) and at this run's (`cutoff`).
 */
export function windowOf(t: number, periodMs: number, since: number | undefined, cutoff: number): Window {
  const start = periodStartOf(t, periodMs);
  return {
    start: since !== undefined && since > start && since <= t ? since : start,
    end: Math.min(start + periodMs, cutoff),
  };
}

/** YYYY-MM-DD of an instant, in UTC. */
export const utcDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
