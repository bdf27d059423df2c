// The tests' own PostgreSQL when no server answers: test/setup/postgres.ts
// starts a private cluster through test/helpers/private-cluster.ts. This test takes that path on
// purpose: a cluster of its own (initdb and pg_ctl, as the unprivileged `postgres` user when the
// tests run as root), a Paydesk ledger opened on it through the real openLedger, then stopped and
// removed. Its superuser has a password (scram-sha-256 over TCP), so the same server also shows a
// wrong password refused with 28P01: a message naming the user and never the
// password, and nothing written. Skipped, saying why, only where initdb is not installed.
// Engine-independent: runs in the first (SQLite) pass only.
import { existsSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore } from '../../../src/main/core';
import { LedgerOpenError, openLedger, schemaVersion } from '../../../src/main/ledger/connection';
import { postgresMigrations } from '../../../src/main/ledger/migrations/index';
import { createRepositories } from '../../../src/main/ledger/repositories/index';
import { MemorySecretStore, silentLogger } from '../../helpers/app-core';
import { postgresBin, startPrivateCluster, type PrivateCluster } from '../../helpers/private-cluster';
import { tempDir } from '../../helpers/temp-dir';

const bin = postgresBin();
const title = bin
  ? `a private PostgreSQL cluster (${bin})`
  : 'a private PostgreSQL cluster — SKIPPED: initdb is not installed under /usr/lib/postgresql (`npm run setup:system` installs Debian\'s postgresql)';
if (!bin) console.warn(`private-cluster.test.ts: ${title}`);

const PASSWORD = `pd-${Math.random().toString(36).slice(2)}-secret`;
let temp: ReturnType<typeof tempDir> | undefined;
let cluster: PrivateCluster | undefined;

/** The cluster's URL for this database, as this user and password. */
function urlOf(database: string, password = PASSWORD): string {
  const url = new URL((cluster as PrivateCluster).url);
  url.password = encodeURIComponent(password);
  url.pathname = `/${database}`;
  return url.href;
}

async function onCluster<T>(database: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: urlOf(database), connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

describe.skipIf(!bin)(title, () => {
  beforeAll(async () => {
    temp = tempDir('paydesk-private-cluster-');
    const started = Date.now();
    cluster = await startPrivateCluster({ password: PASSWORD, toolTimeoutMs: 30_000 });
    // initdb and a start take a few seconds; far more means something is wrong with the machine.
    expect(Date.now() - started).toBeLessThan(45_000);
    await onCluster('postgres', (c) => c.query('CREATE DATABASE paydesk TEMPLATE template0 ENCODING \'UTF8\''));
  }, 60_000);

  afterAll(() => {
    cluster?.stop();
    temp?.cleanup();
  });

  it('takes connections and holds a Paydesk ledger opened through openLedger', async () => {
    const c = cluster as PrivateCluster;
    expect(c.url).toMatch(/^postgres:\/\/postgres:[^@]+@127\.0\.0\.1:\d+\/postgres$/);
    const version = await onCluster('postgres', async (client) => (await client.query<{ server_version_num: string }>('SHOW server_version_num')).rows[0]?.server_version_num);
    expect(Number(version)).toBeGreaterThanOrEqual(150_000);

    const ledger = await openLedger({ url: urlOf('paydesk') });
    try {
      expect(ledger.engine).toBe('postgres');
      expect(ledger.location).not.toContain(PASSWORD);
      expect(await schemaVersion(ledger)).toBe(postgresMigrations.at(-1)?.version);
      const repos = createRepositories(ledger);
      const profile = await repos.profiles.create({ name: 'Private cluster', environment: 'local', baseUrl: 'http://127.0.0.1:9/api/v2', merchantId: 'm-1', merchantSiteId: 's-1' });
      expect((await repos.profiles.get(profile.id))?.name).toBe('Private cluster');
    } finally {
      await ledger.close();
    }
    // A second open finds the same ledger, migrated once.
    const again = await openLedger({ url: urlOf('paydesk') });
    try {
      expect(await again.get<{ n: number }>('SELECT count(*)::int AS n FROM profiles')).toEqual({ n: 1 });
      expect(await again.get<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations')).toEqual({ n: postgresMigrations.length });
    } finally {
      await again.close();
    }
  });

  it('refuses a wrong password (28P01) naming the user and not the password, and writes nothing', async () => {
    await onCluster('postgres', (c) => c.query('CREATE DATABASE untouched TEMPLATE template0'));
    const wrong = 'not-the-password';
    const url = urlOf('untouched', wrong);
    const where = `127.0.0.1:${(cluster as PrivateCluster).port}`;
    const refused = await openLedger({ url }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(LedgerOpenError);
    expect((refused as Error).message).toBe(`PostgreSQL at ${where} refused the password for postgres.`);

    const dataDir = path.join((temp as ReturnType<typeof tempDir>).dir, 'data');
    const failed = await createCore({ mode: 'web', version: 'test', dataDir, database: url, secrets: new MemorySecretStore(), log: silentLogger }).then(
      async (core) => {
        await core.close();
        return undefined;
      },
      (error: unknown) => error,
    );
    expect((failed as Error).message).toBe(`PostgreSQL at ${where} refused the password for postgres.`);
    expect((failed as Error).message).not.toContain(wrong);
    expect(existsSync(dataDir), 'the data directory of a core whose ledger did not open').toBe(false);
    const objects = await onCluster('untouched', async (c) => (await c.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_class WHERE relnamespace = 'public'::regnamespace")).rows[0]?.n);
    expect(objects).toBe(0);
  });

  it('stops and removes itself', async () => {
    const c = cluster as PrivateCluster;
    c.stop();
    cluster = undefined;
    expect(existsSync(c.dir)).toBe(false);
    const client = new pg.Client({ connectionString: c.url, connectionTimeoutMillis: 3_000 });
    await expect(client.connect()).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await client.end().catch(() => undefined);
  });
});
