import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LedgerVersionError, openLedger, schemaVersion } from '../../src/main/ledger/connection';
import type { Migration } from '../../src/main/ledger/migrations/index';
import { migrations } from '../../src/main/ledger/migrations/index';
import { tempDir } from '../helpers/temp-dir';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((cleanup) => cleanup()));

function ledgerPath(): string {
  const { dir, cleanup } = tempDir();
  cleanups.push(cleanup);
  return path.join(dir, 'nested', 'ledger.sqlite');
}

describe('ledger bootstrap (real SQLite file)', () => {
  it('creates the file with WAL, synchronous=FULL and foreign keys on', () => {
    const db = openLedger({ file: ledgerPath() });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    db.close();
  });

  it('applies every numbered migration once and records it', () => {
    const file = ledgerPath();
    openLedger({ file, now: () => new Date('2026-01-02T03:04:05Z') }).close();
    const db = openLedger({ file });
    const rows = db.prepare('SELECT version, name, applied_at FROM schema_migrations ORDER BY version').all();
    expect(rows).toEqual(migrations.map((m) => ({ version: m.version, name: m.name, applied_at: '2026-01-02T03:04:05.000Z' })));
    expect(schemaVersion(db)).toBe(migrations.at(-1)?.version);
    db.close();
  });

  it('rolls a failing migration back whole and records nothing for it', () => {
    const file = ledgerPath();
    const broken: Migration = {
      version: 99,
      name: 'broken',
      up: (db) => {
        db.exec('CREATE TABLE half_done (id INTEGER)');
        throw new Error('boom');
      },
    };
    expect(() => openLedger({ file, migrations: [...migrations, broken] })).toThrow('boom');
    const raw = new Database(file);
    expect(raw.prepare("SELECT name FROM sqlite_master WHERE name = 'half_done'").get()).toBeUndefined();
    expect(raw.prepare('SELECT MAX(version) AS v FROM schema_migrations').get()).toEqual({ v: migrations.at(-1)?.version });
    raw.close();
  });

  it('refuses a ledger written by a newer version, with a clear message, and leaves it unchanged', () => {
    const file = ledgerPath();
    openLedger({ file }).close();
    const raw = new Database(file);
    raw.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'from-the-future', 'x')").run();
    raw.pragma('wal_checkpoint(TRUNCATE)');
    raw.close();
    const before = readFileSync(file);
    expect(() => openLedger({ file })).toThrow(LedgerVersionError);
    expect(() => openLedger({ file })).toThrow(/newer Paydesk \(schema version 999/);
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it('refuses a ledger whose migration history diverges', () => {
    const file = ledgerPath();
    openLedger({ file }).close();
    const raw = new Database(file);
    raw.prepare("UPDATE schema_migrations SET name = 'something-else' WHERE version = 1").run();
    raw.close();
    expect(() => openLedger({ file })).toThrow(/diverges/);
  });
});
