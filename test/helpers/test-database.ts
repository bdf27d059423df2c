// A PostgreSQL database of a test's own: created empty, dropped at the end (never one left behind
// or found lying around). The server comes from test/setup/postgres.ts.
import pg from 'pg';

export interface TestDatabase {
  name: string;
  url: string;
  drop: () => Promise<void>;
}

let counter = 0;

export function adminUrl(): string {
  const url = process.env.PAYDESK_TEST_PG_ADMIN_URL;
  if (!url) throw new Error('No PostgreSQL for the tests: run them through a vitest config with test/setup/postgres.ts as globalSetup.');
  return url;
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function createTestDatabase(): Promise<TestDatabase> {
  counter += 1;
  const name = `paydesk_test_${process.pid}_${Date.now().toString(36)}_${counter}`;
  await admin((client) => client.query(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8'`));
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return {
    name,
    url: url.href,
    drop: () => admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}
