// A real ledger for a test, on the engine the run asks for: SQLite (a file in a fresh temp
// directory) unless PAYDESK_TEST_ENGINE=postgres, then a PostgreSQL database of its own
// (test-database.ts), dropped at close.
import Database from 'better-sqlite3';
import path from 'node:path';
import { openLedger, type Ledger, type LedgerAddress } from '../../src/main/ledger/connection';
import { LEDGER_TABLES } from '../../src/main/ledger/copy/copy';
import { openPostgres } from '../../src/main/ledger/engine/open-postgres';
import { PostgresEngine } from '../../src/main/ledger/engine/postgres';
import { SqliteEngine } from '../../src/main/ledger/engine/sqlite';
import type { EngineKind, LedgerEngine } from '../../src/main/ledger/engine/types';
import { migrations as sqliteMigrations, postgresMigrations, steps, type Declared, type Migration, type MigrationStep } from '../../src/main/ledger/migrations/index';
import { createRepositories, type Repositories } from '../../src/main/ledger/repositories/index';
import type { Profile } from '../../src/main/ledger/repositories/profiles';
import { afterAll } from 'vitest';
import { createTestDatabase, type TestDatabase } from './test-database';
import { tempDir } from './temp-dir';

/** The engine this test run's ledgers use. */
export const testEngine: EngineKind = process.env.PAYDESK_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';

/** A clock the test moves by hand; every read returns the current value. */
export class ManualClock {
  private ms: number;
  constructor(start = '2026-03-01T10:00:00.000Z') {
    this.ms = Date.parse(start);
  }
  readonly now = (): Date => new Date(this.ms);
  advance(ms: number): void {
    this.ms += ms;
  }
}

export interface TestLedger {
  db: Ledger;
  /** The SQLite file, or the PostgreSQL URL: what another process opens to share this ledger. */
  address: { file: string } | { url: string };
  repos: Repositories;
  clock: ManualClock;
  profile: Profile;
  close(): Promise<void>;
}

/** A fresh, empty ledger on this run's engine (no profile), and how to remove it. */
export async function freshLedger(options: { now?: () => Date; migrations?: readonly Declared<Migration>[] } = {}): Promise<{ db: Ledger; address: TestLedger['address']; remove: () => Promise<void> }> {
  if (testEngine === 'postgres') {
    const database = await createTestDatabase();
    const db = await openLedger({ url: database.url }, { now: options.now });
    return { db, address: { url: database.url }, remove: async () => {
      await db.close();
      await database.drop();
    } };
  }
  const { dir, cleanup } = tempDir('paydesk-ledger-');
  const file = path.join(dir, 'ledger.sqlite');
  const db = await openLedger({ file }, { now: options.now, migrations: options.migrations });
  return { db, address: { file }, remove: async () => {
    await db.close();
    cleanup();
  } };
}

/**
 * A real ledger with every migration (or, on SQLite, only `migrations`, to test an upgrade from an
 * older schema) and one local profile.
 */
export async function testLedger(options: { migrations?: readonly Declared<Migration>[] } = {}): Promise<TestLedger> {
  const clock = new ManualClock();
  const { db, address, remove } = await freshLedger({ now: clock.now, migrations: options.migrations });
  const repos = createRepositories(db, clock.now);
  const profile = await repos.profiles.create({
    name: 'Local emulator',
    environment: 'local',
    baseUrl: 'http://127.0.0.1:9/api/v2',
    merchantId: 'm-1',
    merchantSiteId: 's-1',
  });
  return { db, address, repos, clock, profile, close: remove };
}

/**
 * A second, separate connection to a test ledger, as another process would have: read-only on
 * SQLite (what is on disk), its own pool on PostgreSQL (what is committed). No migrations run.
 */
export async function openReader(address: TestLedger['address']): Promise<LedgerEngine> {
  if ('url' in address) return PostgresEngine.create(address.url, address.url, 2);
  return new SqliteEngine(new Database(address.file, { readonly: true }), address.file);
}

const databases = new Map<string, TestDatabase>();

/**
 * The ledger a core started on `dataDir` uses: on PostgreSQL runs, one database per data directory
 * (a core restarted on the same directory finds its ledger again), dropped when the test file ends;
 * on SQLite runs, undefined (the file in the data directory).
 */
export async function testDatabaseFor(dataDir: string): Promise<string | undefined> {
  if (testEngine !== 'postgres') return undefined;
  let database = databases.get(dataDir);
  if (!database) {
    database = await createTestDatabase();
    databases.set(dataDir, database);
  }
  return database.url;
}

if (testEngine === 'postgres') {
  afterAll(async () => {
    for (const database of databases.values()) await database.drop();
    databases.clear();
  });
}

/**
 * An upgrade test's versions on this run's engine: the migration it checks (`added`, as numbered
 * on each engine) and the version just before it (`before`), which the test's "before" ledger is at.
 */
export function upgradeVersions(added: Record<EngineKind, number>): { added: number; before: number } {
  const version = added[testEngine];
  return { added: version, before: Math.max(...(testEngine === 'sqlite' ? sqliteMigrations : postgresMigrations).map((m) => m.version).filter((v) => v < version)) };
}

/**
 * A ledger of this run's engine at an older schema version (an upgrade test's starting point): its
 * address, to open it again with every migration, and the ledger itself. `cleanups` gets what
 * removes it (the database dropped, the directory deleted).
 */
export async function ledgerAtVersion(version: number, now: () => Date, cleanups: (() => Promise<void> | void)[]): Promise<{ address: LedgerAddress; db: Ledger }> {
  if (testEngine === 'postgres') {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    return { address: { url: database.url }, db: await openPostgres(database.url, now, postgresMigrations.filter((m) => m.version <= version)) };
  }
  const { dir, cleanup } = tempDir('paydesk-migration-');
  cleanups.push(cleanup);
  const file = path.join(dir, 'ledger.sqlite');
  return { address: { file }, db: await openLedger({ file }, { now, migrations: sqliteMigrations.filter((m) => m.version <= version) }) };
}

/** The ledger at `address` opened again by this build (every migration run): an upgrade test's "after"; `cleanups` gets its close. */
export async function upgradedLedger(address: LedgerAddress, now: () => Date, cleanups: (() => Promise<void> | void)[]): Promise<Ledger> {
  const db = await openLedger(address, { now });
  cleanups.push(() => db.close());
  return db;
}

/**
 * The rows of `rows`, in the columns `old` had: an upgrade test opens its ledger at the newest
 * version, whose later migrations may add columns to the tables it compares (profiles.archived_at).
 */
export function inColumnsOf(old: Record<string, unknown[]>, rows: Record<string, unknown[]>): Record<string, unknown[]> {
  const columnsOf = (table: string) => (old[table]?.[0] === undefined ? undefined : new Set(Object.keys(old[table]![0] as object)));
  return Object.fromEntries(
    Object.entries(rows).map(([table, list]) => [table, list.map((row) => Object.fromEntries(Object.entries(row as object).filter(([column]) => columnsOf(table)?.has(column) ?? true)))]),
  );
}

/**
 * Every row of these tables (the ledger's, by default), each in key order: what an upgrade must
 * keep. Tables that hold no row (or that the ledger's version has not made yet) are left out, so a
 * ledger before an upgrade that adds a table compares with the ledger after it.
 */
export async function ledgerRows(db: Ledger, tables: readonly { table: string; key: string }[] = LEDGER_TABLES): Promise<Record<string, unknown[]>> {
  const existing = new Set(
    (db.engine === 'sqlite'
      ? await db.all<{ name: string }>("SELECT name FROM sqlite_schema WHERE type = 'table'")
      : await db.all<{ name: string }>("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()")
    ).map((r) => r.name),
  );
  const result: Record<string, unknown[]> = {};
  for (const { table, key } of tables) {
    if (!existing.has(table)) continue;
    const rows = await db.all(`SELECT * FROM ${table} ORDER BY ${key}`);
    if (rows.length > 0) result[table] = rows;
  }
  return result;
}

/**
 * This build's steps and one more, as the next Paydesk would have them: a nullable column added to
 * the tables a batch writes (attempts, payouts, batch_items) on both engines, declared compatible
 * with this build or not.
 */
export function stepsWithNext(compatibleWithPrevious: boolean): MigrationStep[] {
  const tables = ['attempts', 'payouts', 'batch_items'];
  const sql = tables.map((table) => `ALTER TABLE ${table} ADD COLUMN upgrade_note TEXT;`).join('\n');
  return [
    ...steps,
    {
      compatibleWithPrevious,
      sqlite: { version: sqliteMigrations.at(-1)!.version + 1, name: 'next_step', up: (db) => db.exec(sql) },
      postgres: { version: postgresMigrations.at(-1)!.version + 1, name: 'next_step', sql },
    },
  ];
}
