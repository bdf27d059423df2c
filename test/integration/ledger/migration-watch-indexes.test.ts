// The watches' indexes as an upgrade from the version before, on each engine: SQLite's 0024 and
// PostgreSQL's 0012 (the same expectations for both: the two migrations agree). Every row stays;
// the two indexes are there with the same columns on both engines, and the watches' questions
// ("told already?", "the profile's newest notification?") are answered from them.
import { describe, expect, it } from 'vitest';
import { openLedger, schemaVersion } from '../../../src/main/ledger/connection';
import type { Ledger } from '../../../src/main/ledger/connection';
import { createRepositories } from '../../../src/main/ledger/repositories/index';
import { inColumnsOf, ledgerAtVersion, ledgerRows, ManualClock, testEngine, upgradeVersions } from '../../helpers/ledger';
import { cleanupsAfterEach } from '../../helpers/cleanups';

const clock = new ManualClock();
const cleanups = cleanupsAfterEach();

const { added: ADDED, before: BEFORE } = upgradeVersions({ sqlite: 24, postgres: 12 });

const INDEXES = { notices_told: ['kind', 'subject', 'created_at'], notifications_profile_received: ['profile_id', 'received_at'] };

async function indexColumns(db: Ledger, name: string): Promise<string[]> {
  if (db.engine === 'sqlite') return (await db.all<{ name: string }>(`SELECT name FROM pragma_index_info('${name}') ORDER BY seqno`)).map((c) => c.name);
  const row = await db.get<{ def: string }>('SELECT indexdef AS def FROM pg_indexes WHERE schemaname = current_schema() AND indexname = ?', [name]);
  return row ? /\(([^)]*)\)/.exec(row.def)![1]!.split(',').map((c) => c.trim()) : [];
}

describe(`the watches' indexes as an upgrade from version ${BEFORE} (${testEngine})`, () => {
  it('keeps every row and adds the two indexes, the same on both engines, which answer the watches', async () => {
    const old = await ledgerAtVersion(BEFORE, clock.now, cleanups);
    const repos = createRepositories(old.db, clock.now);
    await repos.profiles.create({ name: 'Shop', environment: 'live', baseUrl: 'https://pay.example.com/api/v2', merchantId: 'm', merchantSiteId: 's' });
    await repos.notices.add({ kind: 'approval.reminder', subject: 'approval:1', title: 't', body: 'b', link: '#/approvals/1' }, { people: [''] });
    const before = await ledgerRows(old.db);
    for (const name of Object.keys(INDEXES)) expect(await indexColumns(old.db, name)).toEqual([]);
    await old.db.close();

    const db = await openLedger(old.address, { now: clock.now });
    cleanups.push(() => db.close());
    expect(await schemaVersion(db)).toBeGreaterThanOrEqual(ADDED);
    expect(inColumnsOf(before, await ledgerRows(db))).toEqual(before);
    for (const [name, columns] of Object.entries(INDEXES)) expect(await indexColumns(db, name), name).toEqual(columns);

    const upgraded = createRepositories(db, clock.now);
    expect(await upgraded.watches.told('approval.reminder', 'approval:1')).toBe(true);
    expect(await upgraded.watches.told('approval.escalated', 'approval:1')).toBe(false);
    if (db.engine === 'sqlite') {
      const plan = await db.all<{ detail: string }>("EXPLAIN QUERY PLAN SELECT 1 FROM notices WHERE kind = 'approval.reminder' AND subject = 'approval:1' AND created_at >= '' LIMIT 1");
      expect(plan.map((p) => p.detail).join('\n')).toContain('USING COVERING INDEX notices_told');
    }
  });
});
