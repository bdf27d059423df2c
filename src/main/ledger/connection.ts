// Opens the ledger on its engine (see docs/ledger.md):
// - SQLite (the default): one file, WAL, synchronous=FULL, foreign keys on, migrations applied in
//   one IMMEDIATE transaction (two processes opening it at once migrate it once);
// - PostgreSQL (`--database postgres://…`): engine/open-postgres.ts.
// A ledger written by a newer Paydesk, or whose history diverges, is refused untouched (a team
// server's, migrated further by newer instances, is opened if those steps are declared compatible).
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { checkHistory, oldestCompatible, type AppliedMigration } from './engine/history';
import { openPostgres } from './engine/open-postgres';
import { PostgresEngine } from './engine/postgres';
import { SqliteEngine } from './engine/sqlite';
import type { LedgerEngine, Sql } from './engine/types';
import { type Declared, type Migration, migrations as allMigrations, type PostgresMigration } from './migrations/index';

export { LedgerOpenError, LedgerVersionError } from './engine/history';

/** The open ledger, on either engine: repositories are built on it (repositories/index.ts). */
export type Ledger = LedgerEngine;

/** A SQLite file, or a PostgreSQL URL and the most connections to keep to it (DEFAULT_POOL_SIZE). */
export type LedgerAddress = { file: string } | { url: string; poolSize?: number };

export interface OpenLedgerOptions {
  now?: () => Date;
  /**
   * The migrations to apply instead of this build's (migrations/index.ts derives both lists from
   * its steps): tests open an older schema to upgrade, or a newer one than this build's.
   */
  migrations?: readonly Declared<Migration>[];
  postgresMigrations?: readonly Declared<PostgresMigration>[];
}

export async function openLedger(address: LedgerAddress, { now = () => new Date(), migrations, postgresMigrations }: OpenLedgerOptions = {}): Promise<Ledger> {
  if ('url' in address) return openPostgres(address.url, now, postgresMigrations, address.poolSize);
  return new SqliteEngine(stageOutsideTheFile(openSqliteFile({ file: address.file, now, migrations })), address.file);
}

/** The tables an import stages its lines in (settlement-lines.ts, bank-lines.ts). */
const STAGING_TABLES = ['settlement_staging', 'bank_staging'] as const;

/**
 * SQLite: an import stages its lines in TEMP tables of the connection, named and shaped as the
 * ledger's own (which stay empty), so they never pass through the WAL nor the ledger file: a
 * million staged lines were written there twice (the WAL, then its checkpoint) and deleted again,
 * for a file whose lines are copied into the ledger once, in the import's last transaction. SQLite
 * keeps them in a temporary file (better-sqlite3 builds it with SQLITE_TEMP_STORE=1), deleted when
 * the connection closes, so a crash mid-import leaves nothing staged; lines an older Paydesk staged
 * in the ledger itself and left there are dropped.
 */
function stageOutsideTheFile(db: Database.Database): Database.Database {
  for (const table of STAGING_TABLES) {
    // Declared as the ledger's own is now (its migrations' CREATE and ALTERs, as SQLite keeps its text).
    const declared = db.prepare<[string], { sql: string }>("SELECT sql FROM main.sqlite_master WHERE type = 'table' AND name = ?").get(table);
    if (!declared) continue;
    db.exec(`DELETE FROM main.${table}`);
    db.exec(declared.sql.replace(/^CREATE TABLE/i, 'CREATE TEMP TABLE'));
  }
  return db;
}

/** The SQLite file itself, migrated: the engine's connection, and what migration tests inspect. */
export function openSqliteFile({ file, migrations = allMigrations, now = () => new Date() }: { file: string } & Omit<OpenLedgerOptions, 'postgresMigrations'>): Database.Database {
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

/** The migrations recorded after `version` (a newer Paydesk applied them), with what each declared. */
/** A PostgreSQL ledger's pool now: connections in use and queries waiting for one (null on SQLite: one connection, no pool). */
export function poolUsage(ledger: LedgerEngine): { size: number; inUse: number; waiting: number } | null {
  if (!(ledger instanceof PostgresEngine)) return null;
  const { totalCount, idleCount, waitingCount, options } = ledger.pool;
  return { size: options.max, inUse: totalCount - idleCount, waiting: waitingCount };
}

/** The newest migration recorded on the ledger (0 on none): a readiness check's first question, whether the ledger answers at all. */
export async function newestRecordedMigration(ledger: Sql): Promise<number> {
  return Number((await ledger.get<{ version: number | null }>('SELECT MAX(version) AS version FROM schema_migrations'))?.version ?? 0);
}

export function migrationsAfter(ledger: Sql, version: number): Promise<AppliedMigration[]> {
  return ledger.all<AppliedMigration>('SELECT version, name, oldest_compatible FROM schema_migrations WHERE version > ? ORDER BY version', [version]);
}

// A desk is the only process on its file: a ledger migrated past this build is refused, however
// compatible (a team server's ledger is another matter: engine/open-postgres.ts).
function applyMigrations(db: Database.Database, migrations: readonly Declared<Migration>[], now: () => Date, file: string): void {
  const oldest = oldestCompatible(migrations);
  const record = () => db.prepare('INSERT INTO schema_migrations (version, name, applied_at, oldest_compatible) VALUES (?, ?, ?, ?)');
  // IMMEDIATE: the write lock is taken before the history is read, so a second process opening the
  // file at the same time waits (busy_timeout), then finds every migration applied.
  db.transaction(() => {
    db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      applied_at TEXT NOT NULL,
      oldest_compatible INTEGER
    ) STRICT`);
    const applied = db.prepare('SELECT * FROM schema_migrations ORDER BY version').all() as AppliedMigration[];
    checkHistory(applied, migrations, `SQLite ${file}`);
    // A ledger from before the declarations were recorded: its migrations get theirs.
    if (!db.prepare("SELECT 1 FROM pragma_table_info('schema_migrations') WHERE name = 'oldest_compatible'").get()) {
      db.exec('ALTER TABLE schema_migrations ADD COLUMN oldest_compatible INTEGER');
      const declare = db.prepare('UPDATE schema_migrations SET oldest_compatible = ? WHERE version = ?');
      for (const row of applied) declare.run(oldest.get(row.version) ?? null, row.version);
    }
    const done = new Set(applied.map((row) => row.version));
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      migration.up(db);
      record().run(migration.version, migration.name, now().toISOString(), oldest.get(migration.version));
    }
  }).immediate();
}
