// Totals by UTC day as an upgrade, on each engine: SQLite's migration 0018 from a version-17 ledger
// (the totals index led by the day replaces the one led by created_at), PostgreSQL's 0008 from a
// version-7 one (statistics of the day for its planner). The totals of the upgraded ledger are the
// rows written before it, grouped and added here one by one, to the last decimal and day boundary;
// and SQLite reads them from the new index alone, already grouped: no temporary B-tree sorts the
// rows, with or without a range or a profile.
import { describe, expect, it } from 'vitest';
import { schemaVersion } from '../../../src/main/ledger/connection';
import { createRepositories } from '../../../src/main/ledger/repositories/index';
import type { TotalsRange } from '../../../src/main/ledger/repositories/totals';
import { sumAmounts } from '../../../src/shared/money';
import { ledgerAtVersion, ManualClock, testEngine, upgradedLedger } from '../../helpers/ledger';
import { cleanupsAfterEach } from '../../helpers/cleanups';

const clock = new ManualClock();
const cleanups = cleanupsAfterEach();

const RANGES: TotalsRange[] = [{}, { from: '2025-03-02' }, { to: '2025-03-02' }, { from: '2025-03-02', to: '2025-03-03' }];

const VERSIONS = testEngine === 'sqlite' ? { before: 17, added: 18 } : { before: 7, added: 8 };

describe(`totals by day, as an upgrade from version ${VERSIONS.before} (${testEngine})`, () => {
  it('gives the same totals, day boundaries included (on SQLite from the new index alone, without sorting)', async () => {
    const old = await ledgerAtVersion(VERSIONS.before, clock.now, cleanups);
    const profiles = await Promise.all(['a', 'b'].map((m) => createRepositories(old.db, clock.now).profiles.create({ name: m, environment: 'local', baseUrl: 'http://127.0.0.1:9/api/v2', merchantId: m, merchantSiteId: m })));
    // Rows on either side of midnight, in three currencies, methods and statuses, two profiles.
    const times = ['2025-03-01T23:59:59.999Z', '2025-03-02T00:00:00.000Z', '2025-03-02T12:00:00.000Z', '2025-03-03T23:59:59.999Z', '2025-03-04T00:00:00.000Z'];
    const written: { subject: 'payin' | 'payout'; profileId: string; day: string; currency: string; method: string; statusCode: string | null; amount: string }[] = [];
    let n = 0;
    for (const created of times) {
      for (const [currency, method, amount, status] of [['PLN', 'blik', '0.10', '302'], ['PLN', 'blik', '0.20', '302'], ['USD', 'crypto', '0.0000000001', '200'], ['EUR', 'credit_card', '12.5', null]] as const) {
        const profile = profiles[n++ % 2]!;
        await old.db.run(
          `INSERT INTO payins (profile_id, kind, request_id, method, amount, currency, email, status_code, status_category, final, created_at, updated_at)
           VALUES (?, 'payin', ?, ?, ?, ?, 'day@example.com', ?, NULL, 0, ?, ?)`,
          [profile.id, `r-${n}`, method, amount, currency, status, created, created],
        );
        await old.db.run(
          `INSERT INTO payouts (profile_id, merchant_reference, method, amount, currency, email, status_code, status_category, final, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, 'day@example.com', 'P100', NULL, 0, ?, ?)`,
          [profile.id, `po-${n}`, method, amount, currency, created, created],
        );
        const row = { profileId: profile.id, day: created.slice(0, 10), currency, method, amount };
        written.push({ ...row, subject: 'payin', statusCode: status }, { ...row, subject: 'payout', statusCode: 'P100' });
      }
    }
    await old.db.close();
    const scopes: TotalsRange[] = [...RANGES, ...RANGES.map((r) => ({ ...r, profileId: profiles[1]!.id }))];
    const subjects = ['payin', 'payout'] as const;
    const totalsOf = async (r: ReturnType<typeof createRepositories>) => Promise.all(scopes.flatMap((scope) => subjects.map((subject) => r.totals.groups(subject, scope))));
    // The same groups, added one by one, in the repository's order (day, currency, method, status, no status first).
    const expected = scopes.flatMap((scope) =>
      subjects.map((subject) => {
        const groups = new Map<string, { day: string; currency: string; method: string; statusCode: string | null; count: number; sum: string }>();
        for (const w of written) {
          if (w.subject !== subject || (scope.from && w.day < scope.from) || (scope.to && w.day > scope.to) || (scope.profileId && w.profileId !== scope.profileId)) continue;
          const key = [w.day, w.currency, w.method, w.statusCode ?? ''].join('\u0000');
          const group = groups.get(key) ?? { day: w.day, currency: w.currency, method: w.method, statusCode: w.statusCode, count: 0, sum: '0' };
          groups.set(key, { ...group, count: group.count + 1, sum: sumAmounts([group.sum, w.amount]) });
        }
        return [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, group]) => group);
      }),
    );
    expect(expected[0]).toContainEqual({ day: '2025-03-02', currency: 'PLN', method: 'blik', statusCode: '302', count: 4, sum: '0.6' });

    const db = await upgradedLedger(old.address, clock.now, cleanups);
    expect(await schemaVersion(db)).toBeGreaterThanOrEqual(VERSIONS.added);
    expect(await totalsOf(createRepositories(db, clock.now))).toEqual(expected);
    if (testEngine === 'postgres') {
      const statistics = await db.all<{ name: string }>('SELECT stxname AS name FROM pg_statistic_ext ORDER BY 1');
      expect(statistics.map((r) => r.name)).toEqual(['payins_day_totals', 'payouts_day_totals']);
      return;
    }
    const indexes = (await db.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE '%totals'")).map((r) => r.name).sort();
    expect(indexes).toEqual(['payins_day_totals', 'payouts_day_totals']);

    // The statements the repository runs, as SQLite plans them.
    const statements: string[] = [];
    const all = db.all.bind(db);
    db.all = (async (sql: string, params?: unknown[]) => {
      statements.push(sql);
      return all(sql, params as never);
    }) as typeof db.all;
    await totalsOf(createRepositories(db, clock.now));
    db.all = all;
    expect(statements).toHaveLength(scopes.length * 2);
    for (const [i, sql] of statements.entries()) {
      const scope = scopes[Math.floor(i / 2)]!;
      const params = [scope.from, scope.to, scope.profileId].filter((v) => v !== undefined);
      const plan = (await db.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, params)).map((r) => r.detail);
      expect(plan, sql).toEqual([expect.stringMatching(/^(SCAN|SEARCH) pay(in|out)s USING COVERING INDEX pay(in|out)s_day_totals/)]);
    }
  });
});
