import { afterEach, describe, expect, it } from 'vitest';
import { schemaVersion, type Ledger } from '../../../src/main/ledger/connection';
import { migrations, postgresMigrations } from '../../../src/main/ledger/migrations/index';
import { openReader, testEngine, testLedger, type TestLedger } from '../../helpers/ledger';
import { itemMove } from '../../../src/main/services/payouts-batch/batch-states';

let ledger: TestLedger | undefined;
afterEach(async () => {
  await ledger?.close();
  ledger = undefined;
});

const ledgerTables = ['profiles', 'attempts', 'payins', 'payouts', 'card_tokens', 'notifications', 'status_reads', 'audit_log', 'batch_events', 'notification_retention'];

/** The ledger's tables, as the engine's catalogue lists them. */
async function tableNames(db: Ledger): Promise<string[]> {
  const sql = testEngine === 'sqlite'
    ? "SELECT name FROM sqlite_schema WHERE type = 'table'"
    : "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'";
  return (await db.all<{ name: string }>(sql)).map((r) => r.name);
}

/** A table's columns and their declared types, as the engine's catalogue lists them. */
function columns(db: Ledger, table: string): Promise<{ name: string; type: string }[]> {
  return testEngine === 'sqlite'
    ? db.all(`SELECT name, type FROM pragma_table_info('${table}')`)
    : db.all('SELECT column_name AS name, data_type AS type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?', [table]);
}

describe('ledger schema (a real ledger on this run\'s engine)', () => {
  it('applies every migration in order on a fresh ledger', async () => {
    ledger = await testLedger();
    const engineMigrations = testEngine === 'sqlite' ? migrations : postgresMigrations;
    expect(engineMigrations.map((m) => m.version)).toEqual(engineMigrations.map((_, i) => i + 1));
    expect(await schemaVersion(ledger.db)).toBe(engineMigrations.length);
    expect(await tableNames(ledger.db)).toEqual(expect.arrayContaining(ledgerTables));
  });

  // STRICT is SQLite's: without it a SQLite column takes any type. PostgreSQL columns are always typed.
  it.runIf(testEngine === 'sqlite')('makes every ledger table STRICT (SQLite)', async () => {
    ledger = await testLedger();
    for (const table of ledgerTables) {
      expect((await ledger.db.get<{ strict: number }>('SELECT strict FROM pragma_table_list WHERE name = ?', [table]))?.strict, table).toBe(1);
    }
  });

  it('declares no floating or numeric column anywhere, and amounts as text (money is exact text)', async () => {
    ledger = await testLedger();
    for (const table of ledgerTables) {
      expect((await columns(ledger.db, table)).filter((c) => /REAL|FLOA|DOUB|NUMERIC/i.test(c.type)), table).toEqual([]);
    }
    for (const table of ['payins', 'payouts']) {
      expect((await columns(ledger.db, table)).find((c) => c.name === 'amount')?.type.toUpperCase()).toBe('TEXT');
    }
  });

  it('has no column that could hold a merchant-token, private key or card secret', async () => {
    ledger = await testLedger();
    const allowed = new Set(['listener_path_secret', 'token_ref', 'token_row_id']);
    for (const table of ledgerTables) {
      const names = (await columns(ledger.db, table)).map((c) => c.name);
      expect(names.length, table).toBeGreaterThan(0);
      const suspicious = names.filter((c) => /token|secret|private|password|cvv|pan$|card_?num|jwt/i.test(c) && !allowed.has(c));
      expect(suspicious, table).toEqual([]);
    }
  });

  it('refuses a card token row holding more than first 6 / last 4 digits', async () => {
    ledger = await testLedger();
    const { repos, profile } = ledger;
    await expect(repos.tokens.upsert({ profileId: profile.id, tokenRef: 'tok_1', bin: '4111111111111111' })).rejects.toThrow(/check constraint/i);
    await expect(repos.tokens.upsert({ profileId: profile.id, tokenRef: 'tok_2', last4: '11111' })).rejects.toThrow(/check constraint/i);
    expect((await repos.tokens.upsert({ profileId: profile.id, tokenRef: 'tok_3', bin: '411111', last4: '1111' })).bin).toBe('411111');
  });

  it('keeps at most one active profile, enforced by the database', async () => {
    ledger = await testLedger();
    const { repos, db } = ledger;
    const other = await repos.profiles.create({ name: 'Sandbox', environment: 'sandbox', baseUrl: 'https://sb/api/v2', merchantId: 'm', merchantSiteId: 's' });
    await repos.profiles.activate(ledger.profile.id);
    await repos.profiles.activate(other.id);
    expect((await repos.profiles.active())?.id).toBe(other.id);
    await expect(db.run('UPDATE profiles SET is_active = 1')).rejects.toThrow(/unique/i);
  });

  it('gives every profile a distinct unguessable listener path and rotates it on request', async () => {
    ledger = await testLedger();
    const { repos, profile } = ledger;
    expect(profile.listenerPathSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const rotated = await repos.profiles.rotateListenerPath(profile.id);
    expect(rotated.listenerPathSecret).not.toBe(profile.listenerPathSecret);
    expect(await repos.profiles.byListenerPath(profile.listenerPathSecret)).toBeUndefined();
    expect((await repos.profiles.byListenerPath(rotated.listenerPathSecret))?.id).toBe(profile.id);
  });

  it('refuses to delete a profile that ledger rows refer to', async () => {
    ledger = await testLedger();
    const { repos, profile } = ledger;
    await repos.payins.recordRequest({ profileId: profile.id, kind: 'payin', requestId: 'r1', method: 'blik', amount: '1', currency: 'PLN', email: 'a@b.c' });
    expect(await repos.profiles.delete(profile.id)).toBe('in_use');
    expect(await repos.profiles.get(profile.id)).toBeDefined();
  });

  it('is readable by a second connection (WAL on SQLite), as the listener test relies on', async () => {
    ledger = await testLedger();
    const reader = await openReader(ledger.address);
    try {
      expect(Number((await reader.get<{ n: number | string }>('SELECT count(*) AS n FROM profiles'))?.n)).toBe(1);
    } finally {
      await reader.close();
    }
  });
});

// The guards the schema itself keeps, tried through the engine: SQLite's triggers and
// PostgreSQL's trigger functions must refuse the same changes with the same words.
describe('the guards the database keeps, on either engine', () => {
  it('moves a batch item forward only: its key and a settled state never change, an item in flight never goes back', async () => {
    ledger = await testLedger();
    const { repos, profile, db } = ledger;
    const batch = await repos.batches.createDraft({ profileId: profile.id, environment: 'local', fileName: 'guards.csv', declaredRows: 2 });
    await repos.batches.addItems(batch.id, [1, 2].map((line) => ({ line, merchantReference: `ref-${line}`, method: 'fps', amount: '1.00', currency: 'GBP', beneficiary: 'A', destination: 'd', form: '{}' })));
    const [first, second] = (await db.all<{ id: number }>('SELECT id FROM batch_items WHERE batch_id = ? ORDER BY line', [batch.id])).map((row) => row.id) as [number, number];
    const payout = await repos.payouts.recordRequest({ profileId: profile.id, merchantReference: 'ref-1', method: 'fps', amount: '1.00', currency: 'GBP', email: 'a@example.com' });
    await repos.batches.markPrepared(first, itemMove('pending', 'sending'), 'key-1', payout.id);
    const refused = /batch_items: an item only moves forward/;
    await expect(db.run("UPDATE batch_items SET state = 'pending' WHERE id = ?", [first])).rejects.toThrow(refused);
    await expect(db.run("UPDATE batch_items SET state = 'cancelled' WHERE id = ?", [first])).rejects.toThrow(refused);
    await expect(db.run("UPDATE batch_items SET idempotency_key = 'key-2' WHERE id = ?", [first])).rejects.toThrow(refused);
    await repos.batches.moveItem(first, itemMove('sending', 'sent'), null);
    await expect(db.run("UPDATE batch_items SET state = 'unknown' WHERE id = ?", [first])).rejects.toThrow(refused);
    expect(await repos.batches.moveItems(batch.id, itemMove('pending', 'cancelled'), 'cancelled before it was sent')).toBe(1);
    await expect(db.run("UPDATE batch_items SET state = 'pending' WHERE id = ?", [second])).rejects.toThrow(refused);
    expect([(await repos.batches.item(first))?.state, (await repos.batches.item(second))?.state]).toEqual(['sent', 'cancelled']);
  });

  it('keeps a batch history append-only', async () => {
    ledger = await testLedger();
    const { repos, profile, db } = ledger;
    const batch = await repos.batches.createDraft({ profileId: profile.id, environment: 'local', fileName: 'history.csv', declaredRows: 1 });
    await db.run("INSERT INTO batch_events (batch_id, kind, at, actor) VALUES (?, 'started', ?, 'user')", [batch.id, ledger.clock.now().toISOString()]);
    await expect(db.run("UPDATE batch_events SET actor = 'system'")).rejects.toThrow(/batch_events is append-only: UPDATE refused/);
    await expect(db.run('DELETE FROM batch_events')).rejects.toThrow(/batch_events is append-only: DELETE refused/);
    expect((await repos.batchEvents.latest(batch.id, 10)).map((e) => [e.kind, e.actor])).toEqual([['started', 'user']]);
  });
});
