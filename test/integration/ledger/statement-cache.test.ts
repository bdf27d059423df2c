// The repositories' shared statement cache: each SQL text compiled once, at most `limit` kept, the
// least recently used dropped first. SQLite only: the cache holds better-sqlite3's compiled
// statements (the SQLite engine's); PostgreSQL's driver has no such thing to cache.
import type Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteFile } from '../../../src/main/ledger/connection';
import { StatementCache } from '../../../src/main/ledger/support';
import { testEngine } from '../../helpers/ledger';

let db: Database.Database | undefined;
afterEach(() => db?.close());

function countingLedger(): { ledger: Database.Database; prepared: string[] } {
  const ledger = openSqliteFile({ file: ':memory:' });
  const prepared: string[] = [];
  const prepare = ledger.prepare.bind(ledger);
  // Observe compilations; the statements themselves are real.
  ledger.prepare = ((source: string) => {
    prepared.push(source);
    return prepare(source);
  }) as Database.Database['prepare'];
  return { ledger, prepared };
}

describe.runIf(testEngine === 'sqlite')('StatementCache', () => {
  it('compiles a SQL text once and returns the same working statement', () => {
    const { ledger, prepared } = countingLedger();
    db = ledger;
    const cache = new StatementCache(ledger, 4);
    const first = cache.sql('SELECT ? + 1 AS n');
    expect(cache.sql('SELECT ? + 1 AS n')).toBe(first);
    expect((first.get(41) as { n: number }).n).toBe(42);
    expect(prepared.filter((s) => s === 'SELECT ? + 1 AS n')).toHaveLength(1);
  });

  it('keeps at most its limit, dropping the least recently used', () => {
    const { ledger, prepared } = countingLedger();
    db = ledger;
    const cache = new StatementCache(ledger, 2);
    cache.sql('SELECT 1');
    cache.sql('SELECT 2');
    cache.sql('SELECT 1'); // now the most recently used
    cache.sql('SELECT 3'); // drops SELECT 2
    expect(cache.size).toBe(2);
    const before = prepared.length;
    cache.sql('SELECT 1');
    expect(prepared.length).toBe(before);
    cache.sql('SELECT 2');
    expect(prepared.length).toBe(before + 1);
  });

  it('refuses a limit below one', () => {
    db = openSqliteFile({ file: ':memory:' });
    expect(() => new StatementCache(db as Database.Database, 0)).toThrow(RangeError);
  });
});
