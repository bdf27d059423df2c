// Migration 0009 (settling) as an upgrade from a version-8 ledger with data in it: attempts gain
// their settle note, and the open rows of sandbox and live profiles whose create attempt was sent
// with a loopback notification link are marked for status polling; final rows, local-emulator
// rows and rows sent with a public link are not. SQLite only: an upgrade of SQLite's schema
// (PostgreSQL ledgers start past it, docs/ledger.md).
import { afterEach, describe, expect, it } from 'vitest';
import { openLedger, schemaVersion } from '../../../src/main/ledger/connection';
import { migrations } from '../../../src/main/ledger/migrations/index';
import { createRepositories } from '../../../src/main/ledger/repositories/index';
import { testEngine, testLedger, type TestLedger } from '../../helpers/ledger';

let ledger: TestLedger | undefined;
afterEach(async () => {
  await ledger?.close();
  ledger = undefined;
});

describe.runIf(testEngine === 'sqlite')('migration 0009 (settling)', () => {
  it('upgrades a version-8 ledger: notes empty, open loopback rows of remote profiles marked, nothing else', async () => {
    ledger = await testLedger({ migrations: migrations.filter((m) => m.version <= 8) });
    if (!('file' in ledger.address)) throw new Error('a SQLite ledger was expected');
    const { file } = ledger.address;
    const { repos, db } = ledger;
    const sandbox = await repos.profiles.create({ name: 'Sandbox', environment: 'sandbox', baseUrl: 'https://sb.example/api/v2', merchantId: 'm', merchantSiteId: 's' });
    const loopback = 'http://127.0.0.1:4999/n/abc';
    // Rows as version 8 wrote them (today's repositories write the new column).
    const insert = async (table: 'payins' | 'payouts', profileId: string, reference: string, link: string, final: boolean) => {
      const kind = table === 'payins' ? 'payin' : 'payout';
      const body = table === 'payins' ? { request_id: reference, amount: '1.00', notification_link: link } : { merchantReference: reference, amount: '5.00', notificationUrl: link };
      const attempt = await repos.attempts.prepare({ profileId, kind, idempotencyKey: `key-${reference}`, reference, body });
      const [column, extra] = table === 'payins' ? ['request_id, kind', "?, 'payin'"] : ['merchant_reference', '?'];
      const row = await db.get<{ id: number }>(
        `INSERT INTO ${table} (profile_id, ${column}, method, amount, currency, email, attempt_id, status_code, final, created_at, updated_at) VALUES (?, ${extra}, 'blik', '1.00', 'PLN', 'a@example.com', ?, ?, ?, ?, ?) RETURNING id`,
        [profileId, reference, attempt.id, final ? '200' : null, final ? 1 : 0, '2026-03-01T10:00:00.000Z', '2026-03-01T10:00:00.000Z'],
      );
      if (!row) throw new Error(`no ${table} row inserted`);
      return row.id;
    };
    const open = await insert('payins', sandbox.id, 'open-loopback', loopback, false);
    const finished = await insert('payins', sandbox.id, 'final-loopback', loopback, true);
    const published = await insert('payins', sandbox.id, 'public', 'https://hooks.example/n/abc', false);
    const local = await insert('payins', ledger.profile.id, 'local', loopback, false);
    const payout = await insert('payouts', sandbox.id, 'po-1', 'http://localhost:4999/n/abc', false);
    await db.close();

    const upgraded = await openLedger({ file }, { migrations: migrations.filter((m) => m.version <= 9) });
    try {
      expect(await schemaVersion(upgraded)).toBe(9);
      const after = createRepositories(upgraded);
      expect((await after.payins.byId(open))?.notifyUnreachable).toBe(loopback);
      for (const id of [finished, published, local]) expect((await after.payins.byId(id))?.notifyUnreachable).toBeNull();
      expect((await after.payouts.byId(payout))?.notifyUnreachable).toBe('http://localhost:4999/n/abc');
      expect(await after.attempts.byKey('key-open-loopback')).toMatchObject({ settleNote: null, settleTriedAt: null, state: 'prepared' });
      expect(await after.payins.polledIds(new Date(0))).toEqual([open]);
      const plan = (await upgraded.all<{ detail: string }>('EXPLAIN QUERY PLAN SELECT id FROM payins WHERE final = 0 AND notify_unreachable IS NOT NULL AND created_at >= ? ORDER BY created_at, id', [''])).map((r) => r.detail).join('\n');
      expect(plan).toMatch(/payins_polled/);
    } finally {
      await upgraded.close();
    }
  });
});
