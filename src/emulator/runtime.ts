// Side effects behind small interfaces, so tests can freeze time or fix ids on purpose.
import { randomBytes, randomUUID } from 'node:crypto';

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export interface Ids {
  uuid(): string;
  /** An unguessable opaque string (card tokens, merchant tokens). */
  secret(prefix: string): string;
}

export const randomIds: Ids = {
  uuid: () => randomUUID(),
  secret: (prefix) => `${prefix}${randomBytes(18).toString('base64url')}`,
};

export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/**
 * Logs go to stderr, one line each, so stdout carries nothing but the ready line. Callers pass
 * only identifiers and outcomes, never bodies: bodies may hold card data.
 */
export function stderrLogger(quiet: boolean): Logger {
  const write = (level: string, message: string, fields?: Record<string, unknown>): void => {
    const extra = fields ? ` ${JSON.stringify(fields)}` : '';
    process.stderr.write(`[gateway-emulator] ${level} ${message}${extra}\n`);
  };
  return {
    info: (m, f) => (quiet ? undefined : write('info', m, f)),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
  };
}

export const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };

export const iso = (ms: number): string => new Date(ms).toISOString();

/** Ten random upper-case hex characters from `ids`: the unique part of short references (settlements, bank entries, wallets). */
export const referenceToken = (ids: Ids): string => ids.uuid().replaceAll('-', '').slice(-10).toUpperCase();
