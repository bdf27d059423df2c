// Opening a PostgreSQL ledger that cannot be opened, against the tests' real
// server: a bad URL, a URL naming no database, a refused connection, an unknown host, a missing
// database, and a role that may connect but not create the schema each end with a LedgerOpenError
// (or the server's refusal) naming what to fix, and leave no partial state: no database or table
// is created, and a core that could not open its ledger leaves no data directory behind.
// (A wrong password needs a server that asks for one: test/integration/ledger/private-cluster.test.ts.)
// Engine-independent: runs in the first (SQLite) pass only, with the server test/setup/postgres.ts found.
import { existsSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createCore } from '../../../src/main/core';
import { LedgerOpenError, openLedger } from '../../../src/main/ledger/connection';
import { MemorySecretStore, silentLogger } from '../../helpers/app-core';
import { adminUrl, createTestDatabase, type TestDatabase } from '../../helpers/test-database';
import { tempDir } from '../../helpers/temp-dir';

const temp = tempDir('paydesk-pg-open-');
const databases: TestDatabase[] = [];
const roles: string[] = [];

async function admin<T>(work: (client: pg.Client) => Promise<T>, url = adminUrl()): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

afterAll(async () => {
  for (const database of databases) await database.drop();
  for (const role of roles) await admin((c) => c.query(`DROP ROLE IF EXISTS ${role}`));
  temp.cleanup();
});

/** The admin server's URL with another user and database (and no password). */
function serverUrl(database: string, user = new URL(adminUrl()).username): string {
  const url = new URL(adminUrl());
  url.username = user;
  url.password = '';
  url.pathname = `/${database}`;
  return url.href;
}

const databaseNames = () => admin(async (c) => (await c.query<{ datname: string }>('SELECT datname FROM pg_database ORDER BY datname')).rows.map((r) => r.datname));

/** Tables, views, sequences, functions and types in a database's public schema. */
async function objectsIn(databaseUrl: string): Promise<number> {
  return admin(async (c) => {
    const relations = await c.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_class WHERE relnamespace = 'public'::regnamespace");
    const functions = await c.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_proc WHERE pronamespace = 'public'::regnamespace");
    return (relations.rows[0]?.n ?? 0) + (functions.rows[0]?.n ?? 0);
  }, databaseUrl);
}

/** A core on a data directory that does not exist yet, with this ledger: what it throws, and whether the directory appeared. */
async function coreOn(database: string): Promise<{ error: unknown; dataDirCreated: boolean }> {
  const dataDir = path.join(temp.dir, `data-${Math.random().toString(36).slice(2)}`);
  let error: unknown;
  try {
    const core = await createCore({ mode: 'web', version: 'test', dataDir, database, secrets: new MemorySecretStore(), log: silentLogger });
    await core.close();
  } catch (caught) {
    error = caught;
  }
  return { error, dataDirCreated: existsSync(dataDir) };
}

describe('a PostgreSQL ledger that cannot be opened', () => {
  it.each([
    ['not a URL', 'postgres://[::1/paydesk', /is not a URL: expected postgres:\/\/user@host:5432\/database/],
    ['a URL naming no database', 'postgres://paydesk@127.0.0.1:5432', /names no database: add it after the host, as in postgres:\/\/127\.0\.0\.1:5432\/paydesk/],
    ['a URL naming no database (only a slash)', 'postgresql://paydesk@127.0.0.1:5432/', /names no database/],
    ['another scheme', 'mysql://paydesk@127.0.0.1:3306/paydesk', /must start with postgres:\/\/ or postgresql:\/\/, got mysql:\/\//],
    ['a refused connection', 'postgres://paydesk@127.0.0.1:1/paydesk', /PostgreSQL refused the connection at 127\.0\.0\.1:1: is the server running/],
    ['an unknown host', 'postgres://paydesk@paydesk-nowhere.invalid:5432/paydesk', /PostgreSQL host paydesk-nowhere\.invalid was not found: check the host name/],
  ])('%s: a message naming it, and no data directory', async (_case, url, message) => {
    await expect(openLedger({ url })).rejects.toThrow(message);
    await expect(openLedger({ url })).rejects.toBeInstanceOf(LedgerOpenError);
    const core = await coreOn(url);
    expect(core.error).toBeInstanceOf(LedgerOpenError);
    expect((core.error as Error).message).toMatch(message);
    expect(core.dataDirCreated, 'the data directory of a core whose ledger did not open').toBe(false);
  });

  it('a missing database: names it and how to create it, and creates nothing', async () => {
    const name = `paydesk_missing_${process.pid}_${Date.now().toString(36)}`;
    const url = serverUrl(name);
    const before = await databaseNames();
    const where = `${new URL(adminUrl()).hostname}:${new URL(adminUrl()).port || '5432'}`;
    await expect(openLedger({ url })).rejects.toThrow(`PostgreSQL at ${where} has no database "${name}": create it first (createdb ${name}).`);
    const core = await coreOn(url);
    expect(core.error).toBeInstanceOf(LedgerOpenError);
    expect(core.dataDirCreated).toBe(false);
    expect(await databaseNames()).toEqual(before);
  });

  it('a role that may connect but not create the schema: refused by the server, and the migration leaves nothing behind', async () => {
    const database = await createTestDatabase();
    databases.push(database);
    const role = `paydesk_test_nocreate_${process.pid}_${Date.now().toString(36)}`;
    await admin((c) => c.query(`CREATE ROLE ${role} LOGIN`));
    roles.push(role);
    // PostgreSQL 15: only the database owner creates in its public schema; this role connects, then cannot migrate.
    const url = serverUrl(database.name, role);
    await expect(openLedger({ url })).rejects.toThrow(/permission denied for schema public/);
    const core = await coreOn(url);
    expect((core.error as Error).message).toMatch(/permission denied for schema public/);
    expect(core.dataDirCreated).toBe(false);
    // The migration runs in one transaction: not even schema_migrations was left.
    expect(await objectsIn(database.url)).toBe(0);
    // The same database opens for its owner, from scratch.
    const ledger = await openLedger({ url: database.url });
    await ledger.close();
    expect(await objectsIn(database.url)).toBeGreaterThan(0);
  });
});
