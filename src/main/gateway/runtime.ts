// Side effects the gateway code needs, behind small interfaces so tests can freeze time, skip
// waits or fix ids on purpose, and integration tests can run the real ones.
import { randomUUID } from 'node:crypto';

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export type Sleep = (ms: number) => Promise<void>;

export interface IdSource {
  /** A random UUID v4 (Idempotency-Key, JWT jti). */
  uuid(): string;
}

export const systemClock: Clock = { now: () => Date.now() };

export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

export const randomIds: IdSource = { uuid: () => randomUUID() };
