// How many connections a PostgreSQL ledger keeps at most (`npm run server -- --pool-size N`),
// counted by the real server in pg_stat_activity while more statements than that run at once:
// the given size, or DEFAULT_POOL_SIZE without one. Engine-independent: runs in the first pass only.
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openLedger, type Ledger } from '../../../src/main/ledger/connection';
import { DEFAULT_POOL_SIZE } from '../../../src/main/ledger/engine/postgres';
import { adminUrl, createTestDatabase, type TestDatabase } from '../../helpers/test-database';

const databases: TestDatabase[] = [];
afterAll(async () => {
  for (const database of databases) await database.drop();
});

/** The most sessions PostgreSQL counted on `database` while `statements` slow reads ran through the ledger at once. */
async function peakSessions(ledger: Ledger, database: string, statements: number): Promise<number> {
  const observer = new pg.Client({ connectionString: adminUrl() });
  await observer.connect();
  try {
    const reads = Array.from({ length: statements }, () => ledger.get('SELECT pg_sleep(0.3)'));
    let peak = 0;
    // Bounded: the reads end within a few rounds of 0.3 s.
    for (let look = 0; look < 40; look++) {
      const { rows } = await observer.query<{ n: string }>("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = 'paydesk'", [database]);
      peak = Math.max(peak, Number(rows[0]?.n ?? 0));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await Promise.all(reads);
    return peak;
  } finally {
    await observer.end();
  }
}

describe('the PostgreSQL pool', () => {
  it('keeps at most the size it was given, and DEFAULT_POOL_SIZE without one', async () => {
    const database = await createTestDatabase();
    databases.push(database);
    const small = await openLedger({ url: database.url, poolSize: 5 });
    try {
      expect(await peakSessions(small, database.name, 12)).toBe(5);
    } finally {
      await small.close();
    }
    const standard = await openLedger({ url: database.url });
    try {
      expect(await peakSessions(standard, database.name, DEFAULT_POOL_SIZE + 5)).toBe(DEFAULT_POOL_SIZE);
    } finally {
      await standard.close();
    }
  });
});
