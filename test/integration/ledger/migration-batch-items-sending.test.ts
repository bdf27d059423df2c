// The index of the batch items in flight as an upgrade from the version before, on each engine:
// SQLite's 0028 and PostgreSQL's 0016. Every row stays; the partial index is there on both engines,
// the count of items in flight (paydesk_batch_items_in_flight) is right, and on SQLite it is read
// from the index, not from every item of every batch.
import { describe, expect, it } from 'vitest';
import { schemaVersion } from '../../../src/main/ledger/connection';
import { createRepositories } from '../../../src/main/ledger/repositories/index';
import { itemMove } from '../../../src/main/services/payouts-batch/batch-states';
import { inColumnsOf, ledgerAtVersion, ledgerRows, ManualClock, testEngine, upgradedLedger, upgradeVersions } from '../../helpers/ledger';
import { cleanupsAfterEach } from '../../helpers/cleanups';

const clock = new ManualClock();
const cleanups = cleanupsAfterEach();

const { added: ADDED, before: BEFORE } = upgradeVersions({ sqlite: 28, postgres: 16 });

describe(`the index of batch items in flight as an upgrade from version ${BEFORE} (${testEngine})`, () => {
  it('keeps every row, adds the partial index on both engines, and counts the items in flight from it', async () => {
    const old = await ledgerAtVersion(BEFORE, clock.now, cleanups);
    const repos = createRepositories(old.db, clock.now);
    const profile = await repos.profiles.create({ name: 'Shop', environment: 'local', baseUrl: 'http://127.0.0.1:9/api/v2', merchantId: 'm', merchantSiteId: 's' });
    const batch = await repos.batches.createDraft({ profileId: profile.id, environment: 'local', fileName: 'sending.csv', declaredRows: 3 });
    await repos.batches.addItems(batch.id, [1, 2, 3].map((line) => ({ line, merchantReference: `ref-${line}`, method: 'fps', amount: '1.00', currency: 'GBP', beneficiary: 'A', destination: 'd', form: '{}' })));
    const before = await ledgerRows(old.db);
    await old.db.close();

    const db = await upgradedLedger(old.address, clock.now, cleanups);
    expect(await schemaVersion(db)).toBeGreaterThanOrEqual(ADDED);
    expect(inColumnsOf(before, await ledgerRows(db))).toEqual(before);
    const indexed = db.engine === 'sqlite'
      ? await db.get<{ sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = 'batch_items_sending'")
      : await db.get<{ sql: string }>("SELECT indexdef AS sql FROM pg_indexes WHERE schemaname = current_schema() AND indexname = 'batch_items_sending'");
    expect(indexed?.sql).toMatch(/ON (public\.)?batch_items .*\(batch_id\) WHERE .*state.* = 'sending'/i);

    const upgraded = createRepositories(db, clock.now);
    expect(await upgraded.batches.countInFlight()).toBe(0);
    const [first] = await db.all<{ id: number }>('SELECT id FROM batch_items ORDER BY line');
    const payout = await upgraded.payouts.recordRequest({ profileId: profile.id, merchantReference: 'ref-1', method: 'fps', amount: '1.00', currency: 'GBP', email: 'a@example.com' });
    await upgraded.batches.markPrepared(first!.id, itemMove('pending', 'sending'), 'key-1', payout.id);
    expect(await upgraded.batches.countInFlight()).toBe(1);
    if (db.engine === 'sqlite') {
      const plan = await db.all<{ detail: string }>("EXPLAIN QUERY PLAN SELECT count(*) AS n FROM batch_items WHERE state = 'sending'");
      expect(plan.map((p) => p.detail).join('\n')).toContain('batch_items_sending');
    }
  });
});
