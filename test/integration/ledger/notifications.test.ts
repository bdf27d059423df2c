import { afterEach, describe, expect, it, vi } from 'vitest';
import { openLedger, schemaVersion } from '../../../src/main/ledger/connection';
import { migrations } from '../../../src/main/ledger/migrations/index';
import type { SqliteEngine } from '../../../src/main/ledger/engine/sqlite';
import { NotificationsRepository, type NewNotification } from '../../../src/main/ledger/repositories/notifications';
import { openReader, testEngine, testLedger, type TestLedger } from '../../helpers/ledger';

let ledger: TestLedger | undefined;
afterEach(async () => {
  await ledger?.close();
  ledger = undefined;
});

function notification(l: TestLedger, over: Partial<NewNotification> = {}): NewNotification {
  const body = Buffer.from(JSON.stringify({ event: 'v2_payin_notification', payin_id: 'p-1', status_code: 200 }));
  return {
    profileId: l.profile.id,
    receivedAt: l.clock.now().toISOString(),
    sourceAddress: '127.0.0.1:50000',
    rawHeaders: ['Host', 'x', 'Content-Type', 'application/json'],
    body,
    bodySize: body.length,
    bodyTruncated: false,
    answerStatus: 200,
    event: 'v2_payin_notification',
    transactionRef: 'p-1',
    requestRef: 'req-1',
    statusCode: '200',
    dedupeKey: 'v2_payin_notification|p-1|200',
    outcome: 'pending',
    detail: null,
    ...over,
  };
}

describe('notifications repository', () => {
  it('stores the raw bytes and headers exactly as received', async () => {
    ledger = await testLedger();
    const body = Buffer.from([0x7b, 0x22, 0xc3, 0xa9, 0x22, 0x3a, 0x31, 0x7d, 0x0a]); // {"é":1}\n
    const id = await ledger.repos.notifications.insert(notification(ledger, { body, bodySize: body.length, rawHeaders: ['X-A', '1', 'x-a', '2'] }));
    const stored = await ledger.repos.notifications.byId(id);
    expect(stored?.body.equals(body)).toBe(true);
    expect(stored?.rawHeaders).toEqual(['X-A', '1', 'x-a', '2']);
    expect(stored).toMatchObject({ outcome: 'pending', answerStatus: 200, sourceAddress: '127.0.0.1:50000' });
  });

  it('writes a batch all or nothing', async () => {
    ledger = await testLedger();
    const good = notification(ledger);
    const bad = { ...notification(ledger), profileId: 'no-such-profile' }; // violates the foreign key
    await expect(ledger.repos.notifications.insertMany([good, good, bad])).rejects.toThrow(/foreign key/i);
    expect(await ledger.db.get('SELECT count(*) AS n FROM notifications')).toEqual({ n: 0 });
    expect(await ledger.repos.notifications.insertMany([good, good])).toHaveLength(2);
  });

  it('stores a batch in input order, each field as a statement parameter stores it (even a lone surrogate)', async () => {
    ledger = await testLedger();
    const l = ledger;
    const odd = notification(l, {
      event: 'ev\ud800', transactionRef: 'p-"\\\u00e9', requestRef: null, detail: 'x\ud83d\ude00y', rawHeaders: ['X-Q', '"\\'],
      body: Buffer.from([0, 255, 1]), bodySize: 3, bodyTruncated: true, outcome: 'malformed', answerStatus: 400,
    });
    const ids = await l.repos.notifications.insertMany([notification(l, { requestRef: 'a' }), odd, notification(l, { requestRef: 'c' })]);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const stored = await Promise.all(ids.map((id) => l.repos.notifications.byId(id)));
    expect(stored.map((s) => s?.requestRef)).toEqual(['a', null, 'c']);
    // The driver's own encoding of that text (PostgreSQL: U+FFFD; better-sqlite3 differs).
    const event = (await l.db.get<{ text: string }>('SELECT ? AS text', ['ev\ud800']))?.text;
    expect(stored[1]).toMatchObject({ event, transactionRef: 'p-"\\\u00e9', detail: 'x\ud83d\ude00y', rawHeaders: ['X-Q', '"\\'], bodyTruncated: true, outcome: 'malformed', answerStatus: 400 });
    expect(stored[1]?.body.equals(Buffer.from([0, 255, 1]))).toBe(true);
  });

  it('finds the first processed notification with the same dedupe key', async () => {
    ledger = await testLedger();
    const { notifications } = ledger.repos;
    const [first, second, third] = (await notifications.insertMany([notification(ledger), notification(ledger), notification(ledger)])) as [number, number, number];
    expect(await notifications.firstWithSameKey(second)).toBeUndefined(); // nothing processed yet
    await notifications.markOutcome(first, 'applied');
    expect((await notifications.firstWithSameKey(third))?.id).toBe(first);
    await notifications.markOutcome(second, 'duplicate');
    await notifications.markOutcome(third, 'duplicate');
    expect((await notifications.laterDuplicates(first)).map((n) => n.id)).toEqual([second, third]);
    expect((await notifications.laterDuplicates(second)).map((n) => n.id)).toEqual([third]);
  });

  // A SQLite upgrade: PostgreSQL ledgers start at the schema SQLite reaches at 0013 (docs/ledger.md).
  it.runIf(testEngine === 'sqlite')('upgrades a version-7 ledger: its processed notifications enter the new index, pending and malformed ones do not', async () => {
    ledger = await testLedger({ migrations: migrations.slice(0, 7) });
    if (!('file' in ledger.address)) throw new Error('a SQLite ledger was expected');
    const { file } = ledger.address;
    const { notifications } = ledger.repos;
    const [applied, pending, malformed] = await notifications.insertMany([
      notification(ledger),
      notification(ledger),
      notification(ledger, { answerStatus: 400, outcome: 'malformed', detail: 'body is not JSON', event: null, transactionRef: null, requestRef: null, statusCode: null, dedupeKey: null }),
    ]) as [number, number, number];
    // As version 7 settled it (today's repository writes columns of later versions).
    await ledger.db.run("UPDATE notifications SET outcome = 'applied', processed_at = ? WHERE id = ?", [ledger.clock.now().toISOString(), applied]);
    await ledger.db.close();

    const upgraded = await openLedger({ file }, { migrations: migrations.filter((m) => m.version <= 8) });
    try {
      expect(await schemaVersion(upgraded)).toBe(8);
      const indexes = (await upgraded.all<{ name: string }>("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'notifications'")).map((r) => r.name);
      expect(indexes).toContain('notifications_processed_dedupe');
      expect(indexes).not.toContain('notifications_dedupe');
      const entries = await upgraded.all("SELECT id FROM notifications INDEXED BY notifications_processed_dedupe WHERE dedupe_key IS NOT NULL AND outcome NOT IN ('pending', 'malformed')");
      expect(entries).toEqual([{ id: applied }]);
      const repo = new NotificationsRepository(upgraded);
      expect((await repo.firstWithSameKey(pending))?.id).toBe(applied);
      expect((await repo.byId(malformed))?.outcome).toBe('malformed');
    } finally {
      await upgraded.close();
    }
  });

  // SQLite's INDEXED BY and query planner; PostgreSQL picks its plan from table statistics, so a
  // plan asserted on a test-sized table would say nothing about a desk-sized one.
  it.runIf(testEngine === 'sqlite')('indexes the dedupe key of processed notifications only, and looks duplicates up through that index (SQLite plan)', async () => {
    ledger = await testLedger();
    const { db } = ledger;
    const { notifications } = ledger.repos;
    const [pending, settled] = (await notifications.insertMany([notification(ledger), notification(ledger)])) as [number, number];
    await notifications.markOutcome(settled, 'applied');
    const entries = await db.all('SELECT id FROM notifications INDEXED BY notifications_processed_dedupe WHERE dedupe_key IS NOT NULL AND outcome NOT IN (\'pending\', \'malformed\')');
    expect(entries).toEqual([{ id: settled }]);
    // The SQL the two lookups really run, captured as they issue it, then explained.
    const issued: string[] = [];
    const spies = (['get', 'all'] as const).map((method) => vi.spyOn(db, method));
    await notifications.firstWithSameKey(pending);
    await notifications.laterDuplicates(settled);
    for (const spy of spies) {
      issued.push(...spy.mock.calls.map(([sql]) => sql));
      spy.mockRestore();
    }
    expect(issued).toHaveLength(2);
    for (const sql of issued) {
      const plan = (await db.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, [1])).map((row) => row.detail).join('\n');
      expect(plan).toMatch(/other USING (COVERING )?INDEX notifications_processed_dedupe/);
    }
  });

  it('lists orphans by gateway id or merchant reference, and pending ones for recovery', async () => {
    ledger = await testLedger();
    const { notifications } = ledger.repos;
    const [a, b, c] = await notifications.insertMany([
      notification(ledger, { transactionRef: 'p-9', requestRef: null }),
      notification(ledger, { transactionRef: null, requestRef: 'req-9' }),
      notification(ledger, { transactionRef: 'p-other', requestRef: 'req-other' }),
    ]) as [number, number, number];
    for (const id of [a, b, c]) await notifications.markOutcome(id, 'orphan');
    expect((await notifications.orphansFor(ledger.profile.id, { transactionRef: 'p-9', requestRef: 'req-9' })).map((n) => n.id)).toEqual([a, b]);
    const pending = await notifications.insert(notification(ledger));
    expect(await notifications.pendingIds()).toEqual([pending]);
  });

  it('is durable: a second connection sees a committed batch at once', async () => {
    ledger = await testLedger();
    await ledger.repos.notifications.insertMany([notification(ledger), notification(ledger)]);
    const reader = await openReader(ledger.address);
    try {
      expect(await reader.get('SELECT count(*) AS n FROM notifications')).toEqual({ n: 2 });
    } finally {
      await reader.close();
    }
  });
});

// SQLite upgrades and query plans: PostgreSQL ledgers start at the schema SQLite reaches at 0013 and
// choose their plans from statistics (docs/ledger.md); the search itself runs on both engines
// (test/integration/verification/inspector-search.test.ts).
describe.runIf(testEngine === 'sqlite')('the webhook inspector search (migration 0013)', () => {
  it('upgrades a version-12 ledger: every row kept, processed ones enter the reference indexes, pending ones do not', async () => {
    ledger = await testLedger({ migrations: migrations.filter((m) => m.version <= 12) });
    const { notifications } = ledger.repos;
    const [applied, orphan, pending] = (await notifications.insertMany([
      notification(ledger, { transactionRef: 'pid-a', requestRef: 'req-a' }),
      notification(ledger, { transactionRef: 'pid-b', requestRef: 'req-b' }),
      notification(ledger, { transactionRef: 'pid-c', requestRef: 'req-c' }),
    ])) as [number, number, number];
    await notifications.markOutcome(applied, 'applied');
    await notifications.markOutcome(orphan, 'orphan');
    const before = await ledger.db.all('SELECT * FROM notifications ORDER BY id');
    await ledger.db.close();
    if (!('file' in ledger.address)) throw new Error('a SQLite ledger was expected');

    const upgraded = await openLedger({ file: ledger.address.file }, { now: ledger.clock.now });
    try {
      expect(await schemaVersion(upgraded)).toBe(migrations.at(-1)!.version);
      expect(await upgraded.all('SELECT * FROM notifications ORDER BY id')).toEqual(before);
      for (const index of ['notifications_transaction_ref', 'notifications_request_ref']) {
        const column = index.replace('notifications_', '');
        const entries = await upgraded.all(`SELECT id FROM notifications INDEXED BY ${index} WHERE outcome <> 'pending' AND ${column} >= '' ORDER BY id`);
        expect(entries, index).toEqual([{ id: applied }, { id: orphan }]);
      }
      const repository = new NotificationsRepository(upgraded);
      expect((await repository.summaryPage({ search: 'pid-' }, { limit: 10 })).items.map((n) => n.id)).toEqual([pending, orphan, applied]);
      expect(await repository.count({ search: 'req-c' })).toBe(1);
    } finally {
      await upgraded.close();
    }
  });

  it('searches through those indexes and the pending queue, never a scan of the table', async () => {
    ledger = await testLedger();
    const db = (ledger.db as SqliteEngine).db;
    const { notifications } = ledger.repos;
    const [settled, waiting] = (await notifications.insertMany([notification(ledger, { transactionRef: 'pid-1', requestRef: 'req-1' }), notification(ledger, { transactionRef: 'pid-2', requestRef: 'req-2' })])) as [number, number];
    await notifications.markOutcome(settled, 'applied');
    // The SQL the list and the count really run, captured as they prepare it, then explained.
    const prepared: { sql: string; params: unknown[] }[] = [];
    const prepare = db.prepare.bind(db);
    const spy = vi.spyOn(db, 'prepare').mockImplementation((sql: string) => {
      const statement = prepare(sql);
      const all = statement.all.bind(statement);
      const get = statement.get.bind(statement);
      return Object.assign(statement, {
        all: (...params: unknown[]) => (prepared.push({ sql, params }), all(...params)),
        get: (...params: unknown[]) => (prepared.push({ sql, params }), get(...params)),
      });
    });
    expect((await notifications.summaryPage({ search: 'pid-', statusCodes: ['200'] }, { limit: 10 })).items.map((n) => n.id)).toEqual([waiting, settled]);
    expect(await notifications.count({ search: 'req-2' })).toBe(1);
    spy.mockRestore();
    expect(prepared).toHaveLength(2);
    for (const { sql, params } of prepared) {
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((row) => row.detail).join('\n');
      expect(plan).toMatch(/USING (COVERING )?INDEX notifications_transaction_ref/);
      expect(plan).toMatch(/USING (COVERING )?INDEX notifications_request_ref/);
      expect(plan).toMatch(/USING (COVERING )?INDEX notifications_pending/);
      expect(plan).not.toMatch(/SCAN notifications(?! USING)/);
    }
  });
});

describe('status reads and tokens', () => {
  it('records a status read with its redacted request for the timeline', async () => {
    ledger = await testLedger();
    const payin = await ledger.repos.payins.recordRequest({ profileId: ledger.profile.id, kind: 'payin', requestId: 'r', method: 'blik', amount: '1', currency: 'PLN', email: 'a@b.c' });
    const read = await ledger.repos.statusReads.record({
      profileId: ledger.profile.id,
      kind: 'payin',
      reference: 'r',
      payinRowId: payin.id,
      requestBody: { merchant_id: 'm-1', request_id: 'r' },
      requestedAt: ledger.clock.now(),
      httpStatus: 200,
      responseBody: '{"status_code":200}',
      respondedAt: ledger.clock.now(),
      result: 'ok',
      statusCode: 200,
    });
    expect(read).toMatchObject({ statusCode: '200', result: 'ok', requestBody: '{"merchant_id":"m-1","request_id":"r"}' });
    expect((await ledger.repos.statusReads.forPayin(payin.id)).map((r) => r.id)).toEqual([read.id]);
  });

  it('upserts token metadata without overwriting what is known, and revokes', async () => {
    ledger = await testLedger();
    const { tokens } = ledger.repos;
    const first = await tokens.upsert({ profileId: ledger.profile.id, tokenRef: 'tok_1', brand: 'visa', bin: '411111', last4: '1111', expMonth: '12', expYear: '2030' });
    const again = await tokens.upsert({ profileId: ledger.profile.id, tokenRef: 'tok_1', brand: 'other', payinId: 'p-1' });
    expect(again).toMatchObject({ id: first.id, brand: 'visa', payinId: 'p-1', state: 'active' });
    expect((await tokens.revoke(first.id))?.state).toBe('revoked');
    expect(await tokens.list(ledger.profile.id, 'active')).toEqual([]);
  });
});
