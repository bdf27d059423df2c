// The repositories' shared statement cache: each SQL text compiled once, at most `limit` kept, the
// least recently used dropped first.
import { afterEach, describe, expect, it } from 'vitest';
import { openLedger, type Ledger } from '../../../src/main/ledger/connection';
import { StatementCache } from '../../../src/main/ledger/support';

let db: Ledger | undefined;
afterEach(() => db?.close());

function countingLedger(): { ledger: Ledger; prepared: string[] } {
  const ledger = openLedger({ file: ':memory:' });
  const prepared: string[] = [];
  const prepare = ledger.prepare.bind(ledger);
  // Observe compilations; the statements themselves are real.
  ledger.prepare = ((source: string) => {
    prepared.push(source);
    return prepare(source);
  }) as Ledger['prepare'];
  return { ledger, prepared };
}

describe('StatementCache', () => {
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
    db = openLedger({ file: ':memory:' });
    expect(() => new StatementCache(db as Ledger, 0)).toThrow(RangeError);
  });
});
