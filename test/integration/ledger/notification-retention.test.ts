// The retention rule for notifications nobody can apply now (malformed ones
// and orphans), on a real ledger (either engine): the newest are kept within a per-profile count, size and
// age, byte for byte; beyond, malformed rows are deleted whole and orphans keep their row and facts
// with body and headers dropped and a marker of when; applied, duplicate, mismatch and pending
// rows are never touched; a pruned orphan is still applied when its pay-in appears; every change
// of the rule is audited. Also the upgrade of a ledger of the version before, holding notifications.
import { afterEach, describe, expect, it } from 'vitest';
import { soleCluster } from '../../../src/main/ledger/cluster';
import { openLedger, schemaVersion } from '../../../src/main/ledger/connection';
import { migrations } from '../../../src/main/ledger/migrations/index';
import { createRepositories } from '../../../src/main/ledger/repositories/index';
import type { NewNotification } from '../../../src/main/ledger/repositories/notifications';
import { NotificationApplier } from '../../../src/main/services/notification-applier';
import { DEFAULT_RETENTION, NotificationRetention } from '../../../src/main/services/notification-retention';
import { ServiceError } from '../../../src/main/services/errors';
import { silentLogger } from '../../helpers/app-core';
import { testEngine, testLedger, type TestLedger } from '../../helpers/ledger';
import { upsertFromCreate } from '../../../src/main/services/payments/apply';

const opened: TestLedger[] = [];
/** The current test's ledger. */
let ledger: TestLedger;
afterEach(async () => {
  for (const l of opened.splice(0)) await l.close();
});

async function open(options: Parameters<typeof testLedger>[0] = {}): Promise<TestLedger> {
  ledger = await testLedger(options);
  opened.push(ledger);
  return ledger;
}

const KiB = 1024;
const DAY = 24 * 60 * 60 * 1000;

function malformed(l: TestLedger, index: number, bytes = 1 * KiB): NewNotification {
  const body = Buffer.from(`garbage #${index} ${'g'.repeat(bytes)}`);
  return {
    profileId: l.profile.id,
    receivedAt: l.clock.now().toISOString(),
    sourceAddress: '203.0.113.9:4000',
    rawHeaders: ['Content-Type', 'application/json', 'X-Index', String(index)],
    body,
    bodySize: body.length,
    bodyTruncated: false,
    answerStatus: 400,
    event: null,
    transactionRef: null,
    requestRef: null,
    statusCode: null,
    dedupeKey: null,
    outcome: 'malformed',
    detail: 'body is not JSON',
  };
}

/** A pay-in notification about a transaction the ledger does not hold: stored pending, applied as an orphan. */
function claim(l: TestLedger, payinId: string, status = '200', padding = 0): NewNotification {
  const body = Buffer.from(JSON.stringify({ event: 'v2_payin_notification', payin_id: payinId, request_id: `req-${payinId}`, status_code: Number(status), amount: 10.5, currency: 'EUR', padding: 'p'.repeat(padding) }));
  return {
    ...malformed(l, 0),
    body,
    bodySize: body.length,
    answerStatus: 200,
    event: 'v2_payin_notification',
    transactionRef: payinId,
    requestRef: `req-${payinId}`,
    statusCode: status,
    dedupeKey: `v2_payin_notification|${payinId}|${status}`,
    outcome: 'pending',
    detail: null,
  };
}

async function setUp() {
  await open();
  const applier = new NotificationApplier({ repos: ledger.repos });
  const retention = new NotificationRetention({ repos: ledger.repos, now: ledger.clock.now, log: silentLogger, cluster: soleCluster(silentLogger) });
  /** Stores and applies claims one by one, a millisecond apart (ids and times follow arrival). */
  const store = async (items: NewNotification[]): Promise<number[]> => {
    const ids: number[] = [];
    for (const item of items) {
      ledger.clock.advance(1);
      const id = await ledger.repos.notifications.insert({ ...item, receivedAt: ledger.clock.now().toISOString() });
      if (item.outcome === 'pending') await applier.apply(id);
      ids.push(id);
    }
    return ids;
  };
  return { applier, retention, store };
}

type RawRow = { body: Buffer; raw_headers: string; raw_pruned_at: string | null; body_size: number; outcome: string };
const rawOf = (id: number) => ledger.db.get<RawRow>('SELECT body, raw_headers, raw_pruned_at, body_size, outcome FROM notifications WHERE id = ?', [id]);
const rawsOf = (ids: readonly number[]) => Promise.all(ids.map(rawOf));

describe('notification retention', () => {
  it('keeps the newest within the count, orphans before malformed ones, byte for byte, and drops the rest as the rule says', async () => {
    const { retention, store } = await setUp();
    const orphanItems = Array.from({ length: 4 }, (_, i) => claim(ledger, `orphan-${i}`));
    const malformedItems = Array.from({ length: 30 }, (_, i) => malformed(ledger, i, 500 + i * 37));
    const orphans = await store(orphanItems.slice(0, 2));
    const garbage = await store(malformedItems);
    orphans.push(...(await store(orphanItems.slice(2))));
    const before = new Map(await Promise.all([...orphans, ...garbage].map(async (id) => [id, await rawOf(id)] as const)));
    expect((await rawsOf(orphans)).map((row) => row?.outcome)).toEqual(['orphan', 'orphan', 'orphan', 'orphan']);
    // Rows the rule never touches: an applied claim and a duplicate of it.
    await upsertFromCreate(ledger.repos.payins, { profileId: ledger.profile.id, kind: 'payin', requestId: 'req-known', method: 'open_banking', amount: '10.50', currency: 'EUR', email: 'a@example.com' }, { gatewayId: 'known', statusCode: 100 });
    const [applied, duplicate] = (await store([claim(ledger, 'known'), claim(ledger, 'known')])) as [number, number];
    expect((await rawsOf([applied, duplicate])).map((row) => row?.outcome)).toEqual(['applied', 'duplicate']);

    const view = await retention.update({ profileId: ledger.profile.id, maxCount: 10, maxMiB: 64, maxAgeDays: 30 });
    // Kept: the four orphans, then the six newest malformed ones.
    const keptGarbage = garbage.slice(-6);
    expect(view.kept.count).toBe(10);
    expect(view.dropped).toMatchObject({ malformedDeleted: 24, orphanBodiesPruned: 0, lastAt: ledger.clock.now().toISOString() });
    for (const id of [...orphans, ...keptGarbage]) expect(await rawOf(id), `kept ${id} intact`).toEqual(before.get(id));
    for (const id of garbage.slice(0, -6)) expect(await rawOf(id), `deleted ${id}`).toBeUndefined();
    expect(view.dropped.bytes).toBe(garbage.slice(0, -6).reduce((sum, id) => sum + (before.get(id)?.body.length ?? 0) + (before.get(id)?.raw_headers.length ?? 0), 0));
    expect(view.kept.bytes).toBe([...orphans, ...keptGarbage].reduce((sum, id) => sum + (before.get(id)?.body.length ?? 0) + (before.get(id)?.raw_headers.length ?? 0), 0));
    expect((await rawsOf([applied, duplicate])).map((row) => row?.outcome)).toEqual(['applied', 'duplicate']);

    // Tighter still: past the malformed ones, the oldest orphans lose body and headers but keep their row and facts.
    ledger.clock.advance(1000);
    const tighter = await retention.update({ profileId: ledger.profile.id, maxCount: 10, maxMiB: 64, maxAgeDays: 30 });
    expect(tighter.dropped.malformedDeleted).toBe(24); // unchanged rule: nothing more to drop
    await store(Array.from({ length: 8 }, (_, i) => claim(ledger, `late-${i}`)));
    const after = await retention.prune(ledger.profile.id);
    expect(after).toMatchObject({ malformedDeleted: 6, orphanBodiesPruned: 2 });
    for (const id of orphans.slice(0, 2)) {
      const row = await rawOf(id);
      expect(row).toMatchObject({ outcome: 'orphan', raw_headers: '[]', raw_pruned_at: ledger.clock.now().toISOString(), body_size: before.get(id)?.body_size });
      expect(row?.body.length).toBe(0);
      expect(await ledger.repos.notifications.byId(id)).toMatchObject({ transactionRef: `orphan-${orphans.indexOf(id)}`, statusCode: '200', rawPrunedAt: ledger.clock.now().toISOString() });
    }
    for (const id of orphans.slice(2)) expect(await rawOf(id)).toEqual(before.get(id));
  });

  it('keeps no more than the size allows, and never cuts a kept body', async () => {
    const { retention, store } = await setUp();
    const ids = await store(Array.from({ length: 12 }, (_, i) => malformed(ledger, i, 200 * KiB)));
    const view = await retention.update({ profileId: ledger.profile.id, maxCount: 1000, maxMiB: 1, maxAgeDays: 30 });
    // 200 KiB and a few bytes each: five fit in 1 MiB, the sixth would not.
    expect(view.kept.count).toBe(5);
    expect(view.kept.bytes).toBeLessThanOrEqual(1024 * KiB);
    for (const id of ids.slice(-5)) expect((await rawOf(id))?.body.toString()).toBe(`garbage #${ids.indexOf(id)} ${'g'.repeat(200 * KiB)}`);
    expect(await rawsOf(ids.slice(0, -5))).toEqual(ids.slice(0, -5).map(() => undefined));
  });

  it('drops what is older than the age at each run, and a pruned orphan is still applied when its pay-in appears', async () => {
    const { applier, retention, store } = await setUp();
    const [orphan] = (await store([claim(ledger, 'waiting', '200', 5 * KiB)])) as [number];
    const [old] = (await store([malformed(ledger, 1)])) as [number];
    ledger.clock.advance(DEFAULT_RETENTION.maxAgeDays * DAY - 10);
    const [fresh] = (await store([malformed(ledger, 2)])) as [number];
    expect(await retention.prune(ledger.profile.id)).toMatchObject({ malformedDeleted: 0, orphanBodiesPruned: 0 });
    ledger.clock.advance(20);
    expect(await retention.prune(ledger.profile.id)).toMatchObject({ malformedDeleted: 1, orphanBodiesPruned: 1 });
    expect(await rawOf(old)).toBeUndefined();
    expect((await rawOf(fresh))?.body.toString()).toMatch(/^garbage #2 /);
    expect(await rawOf(orphan)).toMatchObject({ outcome: 'orphan', raw_pruned_at: ledger.clock.now().toISOString() });

    // The pay-in is recorded later (its create answer was slow): the pruned orphan's claim applies by its kept facts.
    const row = await upsertFromCreate(ledger.repos.payins, 
      { profileId: ledger.profile.id, kind: 'payin', requestId: 'req-waiting', method: 'open_banking', amount: '10.50', currency: 'EUR', email: 'a@example.com' },
      { gatewayId: 'waiting', statusCode: 100 },
    );
    const [result] = await applier.matchOrphans('payin', row.id);
    expect(result).toMatchObject({ id: orphan, outcome: 'applied', needsVerification: true });
    expect(result?.detail).toMatch(/body was dropped by the notification retention rule on .*: amount and currency not compared/);
    expect(await ledger.repos.payins.byId(row.id)).toMatchObject({ statusCode: '100', lastNotifiedStatus: '200' });
  });

  it('runs by itself at start and every period', async () => {
    await open();
    const retention = new NotificationRetention({ repos: ledger.repos, now: ledger.clock.now, log: silentLogger, periodMs: 50, cluster: soleCluster(silentLogger) });
    const first = await ledger.repos.notifications.insert(malformed(ledger, 1));
    ledger.clock.advance(31 * DAY);
    await retention.start();
    try {
      expect(await rawOf(first)).toBeUndefined();
      const second = await ledger.repos.notifications.insert(malformed(ledger, 2));
      ledger.clock.advance(31 * DAY);
      await expect.poll(() => rawOf(second), { timeout: 5_000, interval: 20 }).toBeUndefined();
    } finally {
      retention.close();
    }
  });

  it('audits every change of the rule, and only changes', async () => {
    const { retention } = await setUp();
    expect(await retention.view(ledger.profile.id)).toMatchObject({ policy: DEFAULT_RETENTION, isDefault: true, changedAt: null });
    await retention.update({ profileId: ledger.profile.id, maxCount: 500, maxMiB: 16, maxAgeDays: 7 });
    await retention.update({ profileId: ledger.profile.id, maxCount: 500, maxMiB: 16, maxAgeDays: 7 });
    ledger.clock.advance(1000);
    const view = await retention.update({ profileId: ledger.profile.id, maxCount: 500, maxMiB: 16, maxAgeDays: 14 });
    expect(view).toMatchObject({ policy: { maxCount: 500, maxMiB: 16, maxAgeDays: 14 }, isDefault: false, changedAt: ledger.clock.now().toISOString() });
    const entries = (await ledger.repos.audit.list()).filter((entry) => entry.action === 'settings.notification-retention').sort((a, b) => a.seq - b.seq);
    expect(entries.map((entry) => JSON.parse(entry.details) as unknown)).toEqual([
      { from: DEFAULT_RETENTION, to: { maxCount: 500, maxMiB: 16, maxAgeDays: 7 } },
      { from: { maxCount: 500, maxMiB: 16, maxAgeDays: 7 }, to: { maxCount: 500, maxMiB: 16, maxAgeDays: 14 } },
    ]);
    expect(entries.every((entry) => entry.actor === 'user' && entry.profileId === ledger.profile.id && entry.subject === ledger.profile.name)).toBe(true);
    expect(await ledger.repos.audit.verify()).toMatchObject({ ok: true });
    await expect(retention.update({ profileId: 'no-such-profile', maxCount: 10, maxMiB: 1, maxAgeDays: 1 })).rejects.toThrow(ServiceError);
  });

  // A SQLite upgrade (and its query plan): PostgreSQL ledgers start at the schema SQLite reaches at 0013 (docs/ledger.md).
  it.runIf(testEngine === 'sqlite')('upgrades a ledger of the version before: its notifications keep everything, and the rule applies to the malformed and orphan ones', async () => {
    await open({ migrations: migrations.filter((m) => m.version < 12) });
    if (!('file' in ledger.address)) throw new Error('a SQLite ledger was expected');
    const { file } = ledger.address;
    const { notifications } = ledger.repos;
    const [orphan, bad, applied] = (await notifications.insertMany([claim(ledger, 'ghost'), malformed(ledger, 1), claim(ledger, 'p-1')])) as [number, number, number];
    // Their outcomes as that version recorded them (today's markOutcome reads back columns it did not have).
    const processed = (id: number, outcome: string) => ledger.db.run('UPDATE notifications SET outcome = ?, processed_at = ? WHERE id = ?', [outcome, ledger.clock.now().toISOString(), id]);
    await processed(orphan, 'orphan');
    await processed(applied, 'applied');
    const before = await ledger.db.all<Record<string, unknown>>('SELECT * FROM notifications ORDER BY id');
    await ledger.db.close();

    const upgraded = await openLedger({ file }, { now: ledger.clock.now });
    try {
      expect(await schemaVersion(upgraded)).toBe(migrations.at(-1)?.version);
      const after = await upgraded.all<Record<string, unknown>>('SELECT * FROM notifications ORDER BY id');
      expect(after).toEqual(before.map((row) => ({ ...row, raw_pruned_at: null })));
      // The rule's selection reads the new partial index, which holds exactly the orphan and the malformed row.
      const plan = await upgraded.all<{ detail: string }>("EXPLAIN QUERY PLAN SELECT id FROM notifications WHERE profile_id = ? AND outcome IN ('malformed', 'orphan') AND raw_pruned_at IS NULL", [ledger.profile.id]);
      expect(plan.map((step) => step.detail).join(' ')).toMatch(/notifications_unclaimed_raw/);
      const indexed = await upgraded.all("SELECT id FROM notifications INDEXED BY notifications_unclaimed_raw WHERE profile_id = ? AND outcome IN ('malformed', 'orphan') AND raw_pruned_at IS NULL ORDER BY id", [ledger.profile.id]);
      expect(indexed).toEqual([{ id: orphan }, { id: bad }]);
      ledger.clock.advance(31 * DAY);
      const retention = new NotificationRetention({ repos: createRepositories(upgraded, ledger.clock.now), now: ledger.clock.now, log: silentLogger, cluster: soleCluster(silentLogger) });
      expect(await retention.prune(ledger.profile.id)).toMatchObject({ malformedDeleted: 1, orphanBodiesPruned: 1 });
      expect(await upgraded.all('SELECT id, outcome FROM notifications ORDER BY id')).toEqual([{ id: orphan, outcome: 'orphan' }, { id: applied, outcome: 'applied' }]);
    } finally {
      await upgraded.close();
    }
  });
});
