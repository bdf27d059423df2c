import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { schemaVersion } from '../../../src/main/ledger/connection';
import { migrations } from '../../../src/main/ledger/migrations/index';
import { testLedger, type TestLedger } from '../../helpers/ledger';

let ledger: TestLedger;
afterEach(() => ledger?.close());

const ledgerTables = ['profiles', 'attempts', 'payins', 'payouts', 'card_tokens', 'notifications', 'status_reads', 'audit_log'];

describe('ledger schema (real SQLite file)', () => {
  it('applies every migration in order on a fresh file and again on reopen without change', () => {
    ledger = testLedger();
    expect(migrations.map((m) => m.version)).toEqual(migrations.map((_, i) => i + 1));
    expect(schemaVersion(ledger.db)).toBe(migrations.length);
    const tables = (ledger.db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name);
    expect(tables).toEqual(expect.arrayContaining(ledgerTables));
  });

  it('makes every ledger table STRICT and declares no REAL column anywhere (money is exact text)', () => {
    ledger = testLedger();
    for (const table of ledgerTables) {
      const info = ledger.db.prepare('SELECT strict FROM pragma_table_list WHERE name = ?').get(table) as { strict: number };
      expect(info.strict, table).toBe(1);
      const columns = ledger.db.prepare(`SELECT name, type FROM pragma_table_info('${table}')`).all() as { name: string; type: string }[];
      expect(columns.filter((c) => /REAL|FLOA|DOUB|NUMERIC/i.test(c.type)), table).toEqual([]);
    }
    for (const table of ['payins', 'payouts']) {
      const amount = ledger.db.prepare(`SELECT type FROM pragma_table_info('${table}') WHERE name = 'amount'`).get() as { type: string };
      expect(amount.type).toBe('TEXT');
    }
  });

  it('has no column that could hold a merchant-token, private key or card secret', () => {
    ledger = testLedger();
    for (const table of ledgerTables) {
      const columns = (ledger.db.prepare(`SELECT name FROM pragma_table_info('${table}')`).all() as { name: string }[]).map((c) => c.name);
      const allowed = new Set(['listener_path_secret', 'token_ref', 'token_row_id']);
      const suspicious = columns.filter((c) => /token|secret|private|password|cvv|pan$|card_?num|jwt/i.test(c) && !allowed.has(c));
      expect(suspicious, table).toEqual([]);
    }
  });

  it('refuses a card token row holding more than first 6 / last 4 digits', () => {
    ledger = testLedger();
    const { repos, profile } = ledger;
    expect(() => repos.tokens.upsert({ profileId: profile.id, tokenRef: 'tok_1', bin: '4111111111111111' })).toThrow(/CHECK constraint/);
    expect(() => repos.tokens.upsert({ profileId: profile.id, tokenRef: 'tok_2', last4: '11111' })).toThrow(/CHECK constraint/);
    expect(repos.tokens.upsert({ profileId: profile.id, tokenRef: 'tok_3', bin: '411111', last4: '1111' }).bin).toBe('411111');
  });

  it('keeps at most one active profile, enforced by the database', () => {
    ledger = testLedger();
    const { repos, db } = ledger;
    const other = repos.profiles.create({ name: 'Sandbox', environment: 'sandbox', baseUrl: 'https://sb/api/v2', merchantId: 'm', merchantSiteId: 's' });
    repos.profiles.activate(ledger.profile.id);
    repos.profiles.activate(other.id);
    expect(repos.profiles.active()?.id).toBe(other.id);
    expect(() => db.prepare('UPDATE profiles SET is_active = 1').run()).toThrow(/UNIQUE/);
  });

  it('gives every profile a distinct unguessable listener path and rotates it on request', () => {
    ledger = testLedger();
    const { repos, profile } = ledger;
    expect(profile.listenerPathSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const rotated = repos.profiles.rotateListenerPath(profile.id);
    expect(rotated.listenerPathSecret).not.toBe(profile.listenerPathSecret);
    expect(repos.profiles.byListenerPath(profile.listenerPathSecret)).toBeUndefined();
    expect(repos.profiles.byListenerPath(rotated.listenerPathSecret)?.id).toBe(profile.id);
  });

  it('refuses to delete a profile that ledger rows refer to', () => {
    ledger = testLedger();
    const { repos, profile } = ledger;
    repos.payins.recordRequest({ profileId: profile.id, kind: 'payin', requestId: 'r1', method: 'blik', amount: '1', currency: 'PLN', email: 'a@b.c' });
    expect(() => repos.profiles.delete(profile.id)).toThrow(/FOREIGN KEY/);
  });

  it('is readable by a second connection on the same file (WAL), as the listener test relies on', () => {
    ledger = testLedger();
    const reader = new Database(ledger.file, { readonly: true });
    expect(reader.prepare('SELECT count(*) AS n FROM profiles').get()).toEqual({ n: 1 });
    reader.close();
  });
});
