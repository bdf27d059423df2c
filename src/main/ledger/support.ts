// Small helpers shared by the repositories: the clock, ISO times, canonical JSON, hashing and
// the compiled-statement cache.
import type Database from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { isJsonObject, stringifyJson } from '../../shared/json';

export type Clock = () => Date;
export const systemClock: Clock = () => new Date();

/** Fixed-width ISO-8601 UTC with milliseconds: text order is time order in every index. */
export function isoTime(value: Date | string): string {
  const date = typeof value === 'string' ? new Date(value) : value;
  if (Number.isNaN(date.getTime())) throw new RangeError(`not a date: ${String(value)}`);
  return date.toISOString();
}

/** JSON with object keys sorted at every depth, so equal content always hashes equal. */
export function canonicalJson(value: unknown): string {
  return stringifyJson(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (isJsonObject(value)) {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortKeys(value[key])]),
    );
  }
  return value;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

export const toFlag = (value: boolean): number => (value ? 1 : 0);

/**
 * A change of state a service decided (services/state-machine.ts): the repository writes `to` only
 * where the row is still in one of `from`, a compare-and-set against a change made meanwhile.
 */
export interface StateMove<S extends string> {
  readonly from: readonly S[];
  readonly to: S;
}

/** UTC days, both included (YYYY-MM-DD; either may be absent), as the instants that bound them: since (included), until (excluded). */
export function dayBounds(days: { from?: string | undefined; to?: string | undefined }): { since?: string; until?: string } {
  return {
    ...(days.from ? { since: `${days.from}T00:00:00.000Z` } : {}),
    ...(days.to ? { until: new Date(Date.parse(`${days.to}T00:00:00.000Z`) + 86_400_000).toISOString() } : {}),
  };
}

/**
 * Statements compiled once per SQL text: compiling costs more than running on the hot paths (a
 * batch item runs a few dozen, a seeded million rows spent a quarter of its time in prepare).
 * Bounded, because some SQL is built per call (filters, column sets): past `limit` texts the one
 * used least recently is dropped, so the statements in constant use stay compiled.
 */
export class StatementCache {
  private readonly statements = new Map<string, Statement>();

  constructor(
    private readonly db: Database.Database,
    readonly limit: number,
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`statement cache limit ${limit}: a positive integer is needed`);
  }

  /** The compiled statement for this SQL text. */
  sql(text: string): Statement {
    const cached = this.statements.get(text);
    if (cached !== undefined) {
      // Most recently used last: Map keeps insertion order, so the first key is the one to drop.
      this.statements.delete(text);
      this.statements.set(text, cached);
      return cached;
    }
    const statement = this.db.prepare(text);
    if (this.statements.size >= this.limit) this.statements.delete(this.statements.keys().next().value as string);
    this.statements.set(text, statement);
    return statement;
  }

  /** How many statements are held (at most `limit`). */
  get size(): number {
    return this.statements.size;
  }
}
