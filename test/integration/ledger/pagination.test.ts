import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { PayinRecord } from '../../../src/main/ledger/repositories/payins';
import type { TransactionFilter } from '../../../src/main/ledger/repositories/transactions';
import type { PageOrder } from '../../../src/main/ledger/repositories/page';
import { testEngine, testLedger, type TestLedger } from '../../helpers/ledger';
import { applyStatus } from '../../../src/main/services/payments/apply';

let ledger: TestLedger | undefined;
afterEach(async () => {
  await ledger?.close();
  ledger = undefined;
});

async function open(): Promise<TestLedger> {
  ledger = await testLedger();
  return ledger;
}

const methods = ['credit_card', 'blik', 'crypto'] as const;
const codes = ['100', '200', '302', '777'] as const;
const currencies = ['EUR', 'PLN'] as const;

interface Seed {
  method: (typeof methods)[number];
  code: (typeof codes)[number] | null;
  currency: (typeof currencies)[number];
  /** 0 makes rows share created_at, so the id tie-break is exercised. */
  gapMs: number;
}

let nextRef = 0;

async function fill(l: TestLedger, seeds: readonly Seed[]): Promise<PayinRecord[]> {
  const rows: PayinRecord[] = [];
  for (const s of seeds) {
    l.clock.advance(s.gapMs);
    const row = await l.repos.payins.recordRequest({ profileId: l.profile.id, kind: 'payin', requestId: `r${nextRef++}`, method: s.method, amount: '1', currency: s.currency, email: 'a@b.c' });
    rows.push(s.code === null ? row : (await applyStatus(l.repos.payins, row.id, { statusCode: s.code, source: 'create' })).record);
  }
  return rows;
}

/** The expected result, computed in plain TypeScript from what was inserted. */
function expected(rows: readonly PayinRecord[], f: TransactionFilter): number[] {
  return rows
    .filter((r) => !f.statusCodes?.length || (r.statusCode !== null && f.statusCodes.includes(r.statusCode)))
    .filter((r) => !f.methods?.length || f.methods.includes(r.method))
    .filter((r) => !f.currencies?.length || f.currencies.includes(r.currency))
    .filter((r) => !f.categories?.length || (r.statusCategory !== null && f.categories.includes(r.statusCategory)))
    .filter((r) => f.final === undefined || r.final === f.final)
    .filter((r) => f.createdFrom === undefined || r.createdAt >= new Date(f.createdFrom).toISOString())
    .filter((r) => f.createdTo === undefined || r.createdAt < new Date(f.createdTo).toISOString())
    .sort((a, b) => (a.createdAt === b.createdAt ? b.id - a.id : a.createdAt < b.createdAt ? 1 : -1))
    .map((r) => r.id);
}

/** Walks every page; bounded so a cursor bug cannot loop forever. */
async function walk(l: TestLedger, f: TransactionFilter, limit: number, maxPages: number, order: PageOrder = 'newest'): Promise<number[]> {
  const ids: number[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < maxPages; page++) {
    const result = await l.repos.payins.page(f, { limit, cursor, order });
    expect(result.items.length).toBeLessThanOrEqual(limit);
    ids.push(...result.items.map((r) => r.id));
    if (result.nextCursor === null) return ids;
    cursor = result.nextCursor;
  }
  throw new Error(`more than ${maxPages} pages`);
}

const seedArb = fc.record({
  method: fc.constantFrom(...methods),
  code: fc.option(fc.constantFrom(...codes), { nil: null }),
  currency: fc.constantFrom(...currencies),
  gapMs: fc.constantFrom(0, 0, 1, 1000),
});

const filterArb = fc.record(
  {
    statusCodes: fc.subarray([...codes]),
    methods: fc.subarray([...methods]),
    currencies: fc.subarray([...currencies]),
    categories: fc.subarray(['pending', 'success', 'decline', 'unknown'] as const),
    final: fc.boolean(),
    createdFrom: fc.integer({ min: 0, max: 40_000 }).map((ms) => new Date(Date.parse('2026-03-01T10:00:00Z') + ms)),
  },
  { requiredKeys: [] },
);

describe('keyset pagination of pay-ins (newest first on created_at, id)', () => {
  // One ledger per property, emptied before each run (a database per run would cost PostgreSQL runs most of their time).
  it('returns every matching row exactly once, in order, for any data, filter and page size', async () => {
    const l = await open();
    await fc.assert(
      fc.asyncProperty(fc.array(seedArb, { minLength: 0, maxLength: 60 }), filterArb, fc.integer({ min: 1, max: 9 }), async (seeds, filter, limit) => {
        await l.db.run('DELETE FROM payins');
        const rows = await fill(l, seeds);
        const want = expected(rows, filter);
        const got = await walk(l, filter, limit, want.length + 2);
        expect(got).toEqual(want);
      }),
      { numRuns: 40, seed: 20260301 },
    );
  });

  it('walks the same rows oldest first when asked, for any data, filter and page size', async () => {
    const l = await open();
    await fc.assert(
      fc.asyncProperty(fc.array(seedArb, { minLength: 0, maxLength: 60 }), filterArb, fc.integer({ min: 1, max: 9 }), async (seeds, filter, limit) => {
        await l.db.run('DELETE FROM payins');
        const want = expected(await fill(l, seeds), filter).reverse();
        expect(await walk(l, filter, limit, want.length + 2, 'oldest')).toEqual(want);
      }),
      { numRuns: 30, seed: 20260302 },
    );
  });

  it('neither repeats nor skips rows when new rows arrive between pages', async () => {
    const l = await open();
    const seeds: Seed[] = Array.from({ length: 45 }, (_, i) => ({ method: methods[i % 3] as Seed['method'], code: '200', currency: 'EUR', gapMs: i % 4 === 0 ? 0 : 500 }));
    const original = expected(await fill(l, seeds), {});
    const seen: number[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 20; page++) {
      const result = await l.repos.payins.page({}, { limit: 10, cursor });
      seen.push(...result.items.map((r) => r.id));
      // Newer rows (and some with the very same created_at) arrive while the user scrolls.
      await fill(l, [
        { method: 'blik', code: '100', currency: 'PLN', gapMs: 0 },
        { method: 'blik', code: '100', currency: 'PLN', gapMs: 10 },
      ]);
      if (result.nextCursor === null) break;
      cursor = result.nextCursor;
    }
    expect(seen).toEqual(original);
  });

  it('refuses a forged or damaged cursor and an invalid limit', async () => {
    const l = await open();
    await expect(l.repos.payins.page({}, { cursor: 'not-a-cursor' })).rejects.toThrow(/invalid page cursor/);
    await expect(l.repos.payins.page({}, { cursor: Buffer.from('["x", 1]').toString('base64url') })).rejects.toThrow(/invalid page cursor/);
    await expect(l.repos.payins.page({}, { limit: 0 })).rejects.toThrow(/positive integer/);
  });

  // SQLite's query planner; PostgreSQL's picks its plan from table statistics, so a plan asserted
  // on a test-sized table would say nothing about a desk-sized one.
  it.runIf(testEngine === 'sqlite')('serves single-value filters from an index in created_at order, with no sort step (SQLite plan)', async () => {
    const l = await open();
    await fill(l, [{ method: 'blik', code: '200', currency: 'EUR', gapMs: 1 }]);
    const cursor = (await l.repos.payins.page({}, { limit: 1 })).items[0];
    const filters: TransactionFilter[] = [
      {},
      { statusCodes: ['200'] },
      { statusCodes: ['200'], methods: ['blik'], createdFrom: '2026-01-01', createdTo: '2026-04-01' },
      { methods: ['blik'] },
      { currencies: ['EUR'] },
      { categories: ['decline'] },
      { mismatch: true },
      { final: false },
      { profileId: l.profile.id },
    ];
    for (const filter of filters) {
      for (const order of ['newest', 'oldest'] as const) {
        const query = l.repos.payins.pageQuery(filter, { order, cursor: cursor && Buffer.from(JSON.stringify([cursor.createdAt, cursor.id])).toString('base64url') });
        const plan = (await l.db.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${query.sql}`, query.params)).map((p) => p.detail).join(' | ');
        expect(plan, `${order} ${JSON.stringify(filter)}`).toMatch(/USING (COVERING )?INDEX payins_/);
        expect(plan, `${order} ${JSON.stringify(filter)}`).not.toMatch(/TEMP B-TREE|SCAN payins/);
      }
    }
  });
});
