// Every migration as an upgrade from the version before it, on a real ledger file holding what
// that version held (Signal's habit: one test per migration). Rows are written with plain SQL, as
// the version before wrote them (today's repositories write columns of later versions). Each test
// checks what its migration changed and that it kept every row it found. 0008 to 0014 have theirs
// beside the feature they serve: notifications.test.ts (0008, 0013), settling-migration.test.ts (0009),
// batch-history.test.ts (0010), migration-0011.test.ts (0011), notification-retention.test.ts (0012),
// migration-ledger-copies.test.ts (0014, and PostgreSQL's 0002 from its version 1).
// SQLite only: these are SQLite's migrations, read through SQLite itself (sqlite_schema, PRAGMAs,
// STRICT). PostgreSQL ledgers start at the schema SQLite reaches at 0013 (docs/ledger.md); the
// guards this schema adds are tried on both engines in schema.test.ts, audit-log.test.ts and
// transactions.test.ts.
import type Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteFile } from '../../../src/main/ledger/connection';
import { migrations } from '../../../src/main/ledger/migrations/index';
import { GENESIS_HASH } from '../../../src/main/ledger/migrations/0005_audit_log';
import { testEngine } from '../../helpers/ledger';
import { tempDir } from '../../helpers/temp-dir';

const AT = '2026-03-01T10:00:00.000Z';
const SECRET = 'p'.repeat(43);
const now = () => new Date(AT);

let cleanup: (() => void) | undefined;
const open: Database.Database[] = [];
afterEach(() => {
  for (const db of open.splice(0)) if (db.open) db.close();
  cleanup?.();
  cleanup = undefined;
});

/** A ledger file at `version` (migrations 1..version applied), and how to upgrade it by one. */
function ledgerAt(version: number): { db: Database.Database; upgrade: () => Database.Database } {
  const temp = tempDir('paydesk-migrations-');
  cleanup = temp.cleanup;
  const file = `${temp.dir}/ledger.sqlite`;
  const db = openSqliteFile({ file, migrations: migrations.slice(0, version), now });
  open.push(db);
  return {
    db,
    upgrade: () => {
      db.close();
      const upgraded = openSqliteFile({ file, migrations: migrations.slice(0, version + 1), now });
      open.push(upgraded);
      expect(upgraded.prepare('SELECT MAX(version) AS version FROM schema_migrations').get()).toEqual({ version: version + 1 });
      return upgraded;
    },
  };
}

const rows = (db: Database.Database, table: string) => db.prepare(`SELECT * FROM ${table} ORDER BY rowid`).all();
const tables = (db: Database.Database) => (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
const indexes = (db: Database.Database, table: string) => (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL").all(table) as { name: string }[]).map((r) => r.name);
const columns = (db: Database.Database, table: string) => (db.prepare(`SELECT name FROM pragma_table_info('${table}')`).all() as { name: string }[]).map((r) => r.name);
const isStrict = (db: Database.Database, table: string) => (db.prepare('SELECT strict FROM pragma_table_list WHERE name = ?').get(table) as { strict: number } | undefined)?.strict === 1;

function insertSetting(db: Database.Database): void {
  db.prepare("INSERT INTO settings (key, value, updated_at) VALUES ('theme', '\"dark\"', ?)").run(AT);
}

function insertProfile(db: Database.Database, id = 'prof-1', active = 1): void {
  db.prepare(
    `INSERT INTO profiles (id, name, environment, base_url, merchant_id, merchant_site_id, kid, listener_path_secret, is_active, created_at, updated_at)
     VALUES (?, 'Local emulator', 'local', 'http://127.0.0.1:9/api/v2', 'm-1', 's-1', 'kid-1', ?, ?, ?, ?)`,
  ).run(id, `${SECRET}${id}`, active, AT, AT);
}

/** An attempt, a pay-in (final 200) and a payout (P100) of prof-1, as version 3 wrote them. */
function insertPayments(db: Database.Database): { payin: number; payout: number } {
  const attempt = Number(
    db
      .prepare(
        `INSERT INTO attempts (profile_id, kind, idempotency_key, reference, request_hash, request_body, state, created_at, updated_at)
         VALUES ('prof-1', 'payin', 'key-1', 'r-1', 'h', '{"request_id":"r-1"}', 'succeeded', ?, ?)`,
      )
      .run(AT, AT).lastInsertRowid,
  );
  const payin = Number(
    db
      .prepare(
        `INSERT INTO payins (profile_id, kind, request_id, payin_id, method, amount, currency, email, status_code, status_category, final, attempt_id, created_at, updated_at)
         VALUES ('prof-1', 'payin', 'r-1', 'p-1', 'blik', '10.50', 'PLN', 'a@example.com', '200', 'success', 1, ?, ?, ?)`,
      )
      .run(attempt, AT, AT).lastInsertRowid,
  );
  const payout = Number(
    db
      .prepare(
        `INSERT INTO payouts (profile_id, merchant_reference, payout_id, method, amount, currency, email, status_code, status_category, created_at, updated_at)
         VALUES ('prof-1', 'po-1', 'po-id-1', 'fps', '25.00', 'GBP', 'a@example.com', 'P100', 'pending', ?, ?)`,
      )
      .run(AT, AT).lastInsertRowid,
  );
  return { payin, payout };
}

function insertNotification(db: Database.Database, payin: number): void {
  db.prepare(
    `INSERT INTO notifications (profile_id, received_at, raw_headers, body, body_size, answer_status, event, transaction_ref, request_ref, status_code, dedupe_key, outcome, payin_row_id, processed_at)
     VALUES ('prof-1', ?, '[]', x'7b7d', 2, 200, 'v2_payin_notification', 'p-1', 'r-1', '200', 'v2_payin_notification|p-1|200', 'applied', ?, ?)`,
  ).run(AT, payin, AT);
}

/** Everything versions 1 to `version` hold, written as those versions wrote it. */
function fill(db: Database.Database, version: number): { payin: number; payout: number } | undefined {
  if (version >= 1) insertSetting(db);
  if (version >= 2) insertProfile(db);
  const payments = version >= 3 ? insertPayments(db) : undefined;
  if (version >= 4 && payments) insertNotification(db, payments.payin);
  if (version >= 5) {
    db.prepare("INSERT INTO audit_log (seq, at, actor, action, profile_id, subject, details, prev_hash, hash) VALUES (1, ?, 'user', 'profile.create', 'prof-1', NULL, '{}', ?, ?)").run(AT, GENESIS_HASH, 'a'.repeat(64));
  }
  return payments;
}

/** The rows of every table the version before held: the upgrade must keep them all, unchanged. */
function snapshot(db: Database.Database): Record<string, unknown[]> {
  return Object.fromEntries(tables(db).filter((t) => t !== 'schema_migrations').map((t) => [t, rows(db, t)]));
}

describe.runIf(testEngine === 'sqlite')('every migration upgrades the version before it, keeping its data', () => {
  it('0001 settings: a fresh file (version 0, nothing to keep) gets a STRICT key-value table', () => {
    const { db, upgrade } = ledgerAt(0);
    expect(tables(db)).toEqual(['schema_migrations']);
    const v1 = upgrade();
    expect(isStrict(v1, 'settings')).toBe(true);
    insertSetting(v1);
    expect(v1.prepare("SELECT value FROM settings WHERE key = 'theme'").get()).toEqual({ value: '"dark"' });
    expect(() => v1.prepare("INSERT INTO settings (key, value, updated_at) VALUES ('theme', 'x', ?)").run(AT)).toThrow(/UNIQUE|PRIMARY KEY/);
    expect(() => v1.prepare("INSERT INTO settings (key, value, updated_at) VALUES ('n', x'00', ?)").run(AT)).toThrow(/cannot store BLOB/);
  });

  it('0002 profiles: settings kept; profiles with one active at most, a long listener path, a known environment', () => {
    const { db, upgrade } = ledgerAt(1);
    fill(db, 1);
    const before = snapshot(db);
    const v2 = upgrade();
    expect(snapshot(v2)).toMatchObject(before);
    expect(columns(v2, 'profiles')).not.toEqual(expect.arrayContaining(['merchant_token', 'private_key']));
    insertProfile(v2, 'prof-1', 1);
    expect(() => insertProfile(v2, 'prof-2', 1)).toThrow(/UNIQUE/);
    insertProfile(v2, 'prof-2', 0);
    expect(() => v2.prepare("INSERT INTO profiles (id, name, environment, base_url, merchant_id, merchant_site_id, listener_path_secret, created_at, updated_at) VALUES ('x', 'X', 'local', 'u', 'm', 's', 'short', ?, ?)").run(AT, AT)).toThrow(/CHECK/);
    expect(() => v2.prepare("INSERT INTO profiles (id, name, environment, base_url, merchant_id, merchant_site_id, listener_path_secret, created_at, updated_at) VALUES ('y', 'Y', 'prod', 'u', 'm', 's', ?, ?, ?)").run(`${SECRET}y`, AT, AT)).toThrow(/CHECK/);
  });

  it('0003 payments: profiles and settings kept; attempts, pay-ins, payouts and card tokens, a final status that never changes', () => {
    const { db, upgrade } = ledgerAt(2);
    fill(db, 2);
    const before = snapshot(db);
    const v3 = upgrade();
    expect(snapshot(v3)).toMatchObject(before);
    for (const table of ['attempts', 'payins', 'payouts', 'card_tokens']) expect(isStrict(v3, table), table).toBe(true);
    const { payin } = insertPayments(v3);
    expect(v3.prepare('SELECT amount, typeof(amount) AS type FROM payins WHERE id = ?').get(payin)).toEqual({ amount: '10.50', type: 'text' });
    expect(() => v3.prepare("UPDATE payins SET status_code = '302' WHERE id = ?").run(payin)).toThrow(/a final status never changes/);
    expect(() => v3.prepare("INSERT INTO payins (profile_id, kind, request_id, method, amount, currency, email, created_at, updated_at) VALUES ('prof-1', 'payin', 'r-1', 'blik', '1', 'PLN', 'b@example.com', ?, ?)").run(AT, AT)).toThrow(/UNIQUE/);
    expect(() => v3.prepare("INSERT INTO card_tokens (profile_id, token_ref, bin, created_at, updated_at) VALUES ('prof-1', 'tok', '4111111', ?, ?)").run(AT, AT)).toThrow(/CHECK/);
    expect(() => v3.prepare("INSERT INTO payins (profile_id, kind, request_id, method, amount, currency, email, created_at, updated_at) VALUES ('nobody', 'payin', 'r-2', 'blik', '1', 'PLN', 'b@example.com', ?, ?)").run(AT, AT)).toThrow(/FOREIGN KEY/);
  });

  it('0004 notifications: payments kept; raw notifications and status reads, linked to their transactions', () => {
    const { db, upgrade } = ledgerAt(3);
    const { payin } = fill(db, 3) ?? { payin: 0 };
    const before = snapshot(db);
    const v4 = upgrade();
    expect(snapshot(v4)).toMatchObject(before);
    expect(isStrict(v4, 'notifications') && isStrict(v4, 'status_reads')).toBe(true);
    insertNotification(v4, payin);
    expect(v4.prepare('SELECT payin_row_id, hex(body) AS body FROM notifications').get()).toEqual({ payin_row_id: payin, body: '7B7D' });
    expect(indexes(v4, 'notifications')).toEqual(expect.arrayContaining(['notifications_dedupe', 'notifications_pending', 'notifications_orphan_tx', 'notifications_payin']));
    expect(() => v4.prepare("UPDATE notifications SET outcome = 'ignored'").run()).toThrow(/CHECK/);
    expect(() => v4.prepare("INSERT INTO status_reads (profile_id, kind, reference, payin_row_id, request_body, requested_at, result) VALUES ('prof-1', 'payin', 'r-1', 999, '{}', ?, 'ok')").run(AT)).toThrow(/FOREIGN KEY/);
  });

  it('0005 audit log: everything kept; an append-only, hash-chained log', () => {
    const { db, upgrade } = ledgerAt(4);
    fill(db, 4);
    const before = snapshot(db);
    const v5 = upgrade();
    expect(snapshot(v5)).toMatchObject(before);
    const append = (seq: number, prev: string, hash: string) =>
      v5.prepare("INSERT INTO audit_log (seq, at, actor, action, details, prev_hash, hash) VALUES (?, ?, 'user', 'x', '{}', ?, ?)").run(seq, AT, prev, hash);
    expect(() => append(1, 'b'.repeat(64), 'c'.repeat(64))).toThrow(/extend the current head/);
    append(1, GENESIS_HASH, 'a'.repeat(64));
    append(2, 'a'.repeat(64), 'b'.repeat(64));
    expect(() => append(3, 'a'.repeat(64), 'c'.repeat(64))).toThrow(/extend the current head/);
    expect(() => v5.prepare("UPDATE audit_log SET actor = 'system'").run()).toThrow(/append-only/);
    expect(() => v5.prepare('DELETE FROM audit_log').run()).toThrow(/append-only/);
  });

  it('0006 verification: existing pay-ins and payouts keep their values and gain an empty claim state and split conflicts', () => {
    const { db, upgrade } = ledgerAt(5);
    const { payin, payout } = fill(db, 5) ?? { payin: 0, payout: 0 };
    const before = snapshot(db);
    const v6 = upgrade();
    const after = snapshot(v6);
    for (const table of ['payins', 'payouts']) {
      expect(columns(v6, table)).toEqual(expect.arrayContaining(['claim_state', 'status_conflict', 'facts_conflict']));
      expect(after[table]).toEqual((before[table] as object[]).map((row) => ({ ...row, claim_state: null, status_conflict: null, facts_conflict: null })));
      expect(indexes(v6, table)).toEqual(expect.arrayContaining([`${table}_claim_unverified`, `${table}_totals`, `${table}_reason`]));
    }
    v6.prepare("UPDATE payouts SET claim_state = 'unverified' WHERE id = ?").run(payout);
    expect(() => v6.prepare("UPDATE payins SET claim_state = 'maybe' WHERE id = ?").run(payin)).toThrow(/CHECK/);
    expect(indexes(v6, 'notifications')).toEqual(expect.arrayContaining(['notifications_duplicate', 'notifications_mismatch']));
    expect(indexes(v6, 'audit_log')).toContain('audit_log_subject');
  });

  it('0007 payout batches: everything kept; limits, batches and items that only move forward', () => {
    const { db, upgrade } = ledgerAt(6);
    fill(db, 6);
    const before = snapshot(db);
    const v7 = upgrade();
    expect(snapshot(v7)).toMatchObject(before);
    expect(() => v7.prepare("INSERT INTO payout_limits (environment, currency, updated_at) VALUES ('any', 'EUR', ?)").run(AT)).toThrow(/CHECK/);
    expect(() => v7.prepare("INSERT INTO payout_limits (environment, currency, per_payout_max, updated_at) VALUES ('any', 'eur', '5', ?)").run(AT)).toThrow(/CHECK/);
    v7.prepare("INSERT INTO payout_limits (environment, currency, per_payout_max, updated_at) VALUES ('any', 'EUR', '500.00', ?)").run(AT);
    const batch = Number(v7.prepare("INSERT INTO batches (profile_id, environment, file_name, state, declared_rows, created_at, updated_at) VALUES ('prof-1', 'local', 'a.csv', 'running', 1, ?, ?)").run(AT, AT).lastInsertRowid);
    const item = (line: number, state: string, key: string | null) =>
      v7
        .prepare("INSERT INTO batch_items (batch_id, line, merchant_reference, method, amount, currency, beneficiary, destination, form, state, idempotency_key, updated_at) VALUES (?, ?, ?, 'fps', '1.00', 'GBP', 'A', 'd', '{}', ?, ?, ?)")
        .run(batch, line, `ref-${line}`, state, key, AT);
    expect(() => item(1, 'sending', null)).toThrow(/CHECK/);
    item(1, 'sent', 'key-1');
    expect(() => v7.prepare("UPDATE batch_items SET state = 'pending' WHERE line = 1").run()).toThrow(/only moves forward/);
    expect(() => v7.prepare("UPDATE batch_items SET idempotency_key = 'key-2' WHERE line = 1").run()).toThrow(/only moves forward/);
  });
});
