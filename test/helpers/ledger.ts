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
import { migrations as sqliteMigrations, type Migration } from '../../src/main/ledger/migrations/index';
import { postgresMigrations } from '../../src/main/ledger/migrations/postgres/index';
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
export async function freshLedger(options: { now?: () => Date; migrations?: readonly Migration[] } = {}): Promise<{ db: Ledger; address: TestLedger['address']; remove: () => Promise<void> }> {
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
export async function testLedger(options: { migrations?: readonly Migration[] } = {}): Promise<TestLedger> {
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

/** Every row of these tables (the ledger's, by default), each in key order: what an upgrade must keep. */
export async function ledgerRows(db: Ledger, tables: readonly { table: string; key: string }[] = LEDGER_TABLES): Promise<Record<string, unknown[]>> {
  const result: Record<string, unknown[]> = {};
  for (const { table, key } of tables) result[table] = await db.all(`SELECT * FROM ${table} ORDER BY ${key}`);
  return result;
}
