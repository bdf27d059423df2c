import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openLedger, schemaVersion } from '../../../src/main/ledger/connection';
import { migrations } from '../../../src/main/ledger/migrations/index';
import { NotificationsRepository, type NewNotification } from '../../../src/main/ledger/repositories/notifications';
import { testLedger, type TestLedger } from '../../helpers/ledger';

let ledger: TestLedger;
afterEach(() => ledger?.close());

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
  it('stores the raw bytes and headers exactly as received', () => {
    ledger = testLedger();
    const body = Buffer.from([0x7b, 0x22, 0xc3, 0xa9, 0x22, 0x3a, 0x31, 0x7d, 0x0a]); // {"é":1}\n
    const id = ledger.repos.notifications.insert(notification(ledger, { body, bodySize: body.length, rawHeaders: ['X-A', '1', 'x-a', '2'] }));
    const stored = ledger.repos.notifications.byId(id);
    expect(stored?.body.equals(body)).toBe(true);
    expect(stored?.rawHeaders).toEqual(['X-A', '1', 'x-a', '2']);
    expect(stored).toMatchObject({ outcome: 'pending', answerStatus: 200, sourceAddress: '127.0.0.1:50000' });
  });

  it('writes a batch all or nothing', () => {
    ledger = testLedger();
    const good = notification(ledger);
    const bad = { ...notification(ledger), profileId: 'no-such-profile' }; // violates the foreign key
    expect(() => ledger.repos.notifications.insertMany([good, good, bad])).toThrow(/FOREIGN KEY/);
    expect(ledger.db.prepare('SELECT count(*) AS n FROM notifications').get()).toEqual({ n: 0 });
    expect(ledger.repos.notifications.insertMany([good, good])).toHaveLength(2);
  });

  it('finds the first processed notification with the same dedupe key', () => {
    ledger = testLedger();
    const { notifications } = ledger.repos;
    const [first, second, third] = notifications.insertMany([notification(ledger), notification(ledger), notification(ledger)]) as [number, number, number];
    expect(notifications.firstWithSameKey(second)).toBeUndefined(); // nothing processed yet
    notifications.markOutcome(first, 'applied');
    expect(notifications.firstWithSameKey(third)?.id).toBe(first);
    notifications.markOutcome(second, 'duplicate');
    notifications.markOutcome(third, 'duplicate');
    expect(notifications.laterDuplicates(first).map((n) => n.id)).toEqual([second, third]);
    expect(notifications.laterDuplicates(second).map((n) => n.id)).toEqual([third]);
  });

  it('upgrades a version-7 ledger: its processed notifications enter the new index, pending and malformed ones do not', () => {
    ledger = testLedger({ migrations: migrations.slice(0, 7) });
    const { notifications } = ledger.repos;
    const [applied, pending, malformed] = notifications.insertMany([
      notification(ledger),
      notification(ledger),
      notification(ledger, { answerStatus: 400, outcome: 'malformed', detail: 'body is not JSON', event: null, transactionRef: null, requestRef: null, statusCode: null, dedupeKey: null }),
    ]) as [number, number, number];
    notifications.markOutcome(applied, 'applied');
    ledger.db.close();

    const upgraded = openLedger({ file: ledger.file });
    try {
      expect(schemaVersion(upgraded)).toBe(8);
      const indexes = (upgraded.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'notifications'").all() as { name: string }[]).map((r) => r.name);
      expect(indexes).toContain('notifications_processed_dedupe');
      expect(indexes).not.toContain('notifications_dedupe');
      const entries = upgraded.prepare("SELECT id FROM notifications INDEXED BY notifications_processed_dedupe WHERE dedupe_key IS NOT NULL AND outcome NOT IN ('pending', 'malformed')").all();
      expect(entries).toEqual([{ id: applied }]);
      const repo = new NotificationsRepository(upgraded);
      expect(repo.firstWithSameKey(pending)?.id).toBe(applied);
      expect(repo.byId(malformed)?.outcome).toBe('malformed');
    } finally {
      upgraded.close();
    }
  });

  it('indexes the dedupe key of processed notifications only, and looks duplicates up through that index', () => {
    ledger = testLedger();
    const { db } = ledger;
    const { notifications } = ledger.repos;
    const [pending, settled] = notifications.insertMany([notification(ledger), notification(ledger)]) as [number, number];
    notifications.markOutcome(settled, 'applied');
    const entries = db.prepare('SELECT id FROM notifications INDEXED BY notifications_processed_dedupe WHERE dedupe_key IS NOT NULL AND outcome NOT IN (\'pending\', \'malformed\')').all();
    expect(entries).toEqual([{ id: settled }]);
    // The SQL the two lookups really run, captured as they prepare it, then explained.
    const prepared: string[] = [];
    const prepare = db.prepare.bind(db);
    const spy = vi.spyOn(db, 'prepare').mockImplementation((sql: string) => (prepared.push(sql), prepare(sql)));
    notifications.firstWithSameKey(pending);
    notifications.laterDuplicates(settled);
    spy.mockRestore();
    expect(prepared).toHaveLength(2);
    for (const sql of prepared) {
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(1) as { detail: string }[]).map((row) => row.detail).join('\n');
      expect(plan).toMatch(/other USING (COVERING )?INDEX notifications_processed_dedupe/);
    }
  });

  it('lists orphans by gateway id or merchant reference, and pending ones for recovery', () => {
    ledger = testLedger();
    const { notifications } = ledger.repos;
    const [a, b, c] = notifications.insertMany([
      notification(ledger, { transactionRef: 'p-9', requestRef: null }),
      notification(ledger, { transactionRef: null, requestRef: 'req-9' }),
      notification(ledger, { transactionRef: 'p-other', requestRef: 'req-other' }),
    ]) as [number, number, number];
    for (const id of [a, b, c]) notifications.markOutcome(id, 'orphan');
    expect(notifications.orphansFor(ledger.profile.id, { transactionRef: 'p-9', requestRef: 'req-9' }).map((n) => n.id)).toEqual([a, b]);
    const pending = notifications.insert(notification(ledger));
    expect(notifications.pendingIds()).toEqual([pending]);
  });

  it('is durable: a second connection sees a committed batch at once', () => {
    ledger = testLedger();
    ledger.repos.notifications.insertMany([notification(ledger), notification(ledger)]);
    const reader = new Database(ledger.file, { readonly: true });
    expect(reader.prepare('SELECT count(*) AS n FROM notifications').get()).toEqual({ n: 2 });
    reader.close();
  });
});

describe('status reads and tokens', () => {
  it('records a status read with its redacted request for the timeline', () => {
    ledger = testLedger();
    const payin = ledger.repos.payins.recordRequest({ profileId: ledger.profile.id, kind: 'payin', requestId: 'r', method: 'blik', amount: '1', currency: 'PLN', email: 'a@b.c' });
    const read = ledger.repos.statusReads.record({
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
    expect(ledger.repos.statusReads.forPayin(payin.id).map((r) => r.id)).toEqual([read.id]);
  });

  it('upserts token metadata without overwriting what is known, and revokes', () => {
    ledger = testLedger();
    const { tokens } = ledger.repos;
    const first = tokens.upsert({ profileId: ledger.profile.id, tokenRef: 'tok_1', brand: 'visa', bin: '411111', last4: '1111', expMonth: '12', expYear: '2030' });
    const again = tokens.upsert({ profileId: ledger.profile.id, tokenRef: 'tok_1', brand: 'other', payinId: 'p-1' });
    expect(again).toMatchObject({ id: first.id, brand: 'visa', payinId: 'p-1', state: 'active' });
    expect(tokens.revoke(first.id)?.state).toBe('revoked');
    expect(tokens.list(ledger.profile.id, 'active')).toEqual([]);
  });
});
