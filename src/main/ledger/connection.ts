// Opens the ledger: one SQLite file, WAL, synchronous=FULL, foreign keys on, migrations applied.
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Migration, migrations as allMigrations } from './migrations/index';

export type Ledger = Database.Database;

export class LedgerVersionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LedgerVersionError';
  }
}

export interface OpenLedgerOptions {
  file: string;
  migrations?: readonly Migration[];
  now?: () => Date;
}

export function openLedger({ file, migrations = allMigrations, now = () => new Date() }: OpenLedgerOptions): Ledger {
  if (file !== ':memory:') {
    mkdirSync(path.dirname(file), { recursive: true });
  }
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    applyMigrations(db, migrations, now);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

interface AppliedMigration {
  version: number;
  name: string;
}

export function schemaVersion(db: Ledger): number {
  const row = db.prepare('SELECT MAX(version) AS version FROM schema_migrations').get() as { version: number | null };
  return row.version ?? 0;
}

function applyMigrations(db: Ledger, migrations: readonly Migration[], now: () => Date): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at TEXT NOT NULL
  ) STRICT`);
  const applied = db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all() as AppliedMigration[];
  const known = new Map(migrations.map((m) => [m.version, m]));
  const newest = migrations.at(-1)?.version ?? 0;

  for (const row of applied) {
    if (row.version > newest) {
      throw new LedgerVersionError(
        `This ledger was written by a newer Paydesk (schema version ${row.version}, this build knows up to ${newest}). ` +
          'Update Paydesk, or point --data-dir at another directory; the file was not changed.',
      );
    }
    const expected = known.get(row.version);
    if (!expected || expected.name !== row.name) {
      throw new LedgerVersionError(
        `This ledger's migration history diverges from this build at version ${row.version} ("${row.name}"); the file was not changed.`,
      );
    }
  }

  const done = new Set(applied.map((row) => row.version));
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  for (const migration of migrations) {
    if (done.has(migration.version)) continue;
    db.transaction(() => {
      migration.up(db);
      record.run(migration.version, migration.name, now().toISOString());
    })();
  }
}
