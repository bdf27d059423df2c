// Opens the ledger on its engine (see docs/ledger.md):
// - SQLite (the default): one file, WAL, synchronous=FULL, foreign keys on, migrations applied in
//   one IMMEDIATE transaction (two processes opening it at once migrate it once);
// - PostgreSQL (`--database postgres://…`): engine/open-postgres.ts.
// A ledger written by a newer Paydesk, or whose history diverges, is refused untouched.
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { checkHistory, type AppliedMigration } from './engine/history';
import { openPostgres } from './engine/open-postgres';
import { SqliteEngine } from './engine/sqlite';
import type { LedgerEngine, Sql } from './engine/types';
import { type Migration, migrations as allMigrations } from './migrations/index';

export { LedgerOpenError, LedgerVersionError } from './engine/history';

/** The open ledger, on either engine: repositories are built on it (repositories/index.ts). */
export type Ledger = LedgerEngine;

export type LedgerAddress = { file: string } | { url: string };

export interface OpenLedgerOptions {
  now?: () => Date;
  /** SQLite only: the migrations to apply (tests of an upgrade open an older schema). */
  migrations?: readonly Migration[];
}

export async function openLedger(address: LedgerAddress, { now = () => new Date(), migrations }: OpenLedgerOptions = {}): Promise<Ledger> {
  if ('url' in address) return openPostgres(address.url, now);
  return new SqliteEngine(openSqliteFile({ file: address.file, now, migrations }), address.file);
}

/** The SQLite file itself, migrated: the engine's connection, and what migration tests inspect. */
export function openSqliteFile({ file, migrations = allMigrations, now = () => new Date() }: { file: string } & OpenLedgerOptions): Database.Database {
  if (file !== ':memory:') {
    mkdirSync(path.dirname(file), { recursive: true });
  }
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    applyMigrations(db, migrations, now, file);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * Whether every commit is on disk before it returns: SQLite's synchronous=FULL, as openSqliteFile
 * sets it, or PostgreSQL's synchronous_commit (on, or waiting for a standby too).
 */
export async function commitsAreDurable(ledger: Sql): Promise<boolean> {
  if (ledger.engine === 'sqlite') return (await ledger.get<{ synchronous: number }>('PRAGMA synchronous'))?.synchronous === 2;
  const setting = (await ledger.get<{ synchronous_commit: string }>('SHOW synchronous_commit'))?.synchronous_commit;
  return setting === 'on' || setting === 'remote_write' || setting === 'remote_apply';
}

export async function schemaVersion(ledger: Sql): Promise<number> {
  const row = await ledger.get<{ version: number | null }>('SELECT MAX(version) AS version FROM schema_migrations');
  return row?.version ?? 0;
}

function applyMigrations(db: Database.Database, migrations: readonly Migration[], now: () => Date, file: string): void {
  const record = () => db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  // IMMEDIATE: the write lock is taken before the history is read, so a second process opening the
  // file at the same time waits (busy_timeout), then finds every migration applied.
  db.transaction(() => {
    db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      applied_at TEXT NOT NULL
    ) STRICT`);
    const applied = db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all() as AppliedMigration[];
    checkHistory(applied, migrations, `SQLite ${file}`);
    const done = new Set(applied.map((row) => row.version));
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      migration.up(db);
      record().run(migration.version, migration.name, now().toISOString());
    }
  }).immediate();
}
