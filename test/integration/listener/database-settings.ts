// What a PostgreSQL server's administrator can do to a test ledger's database, for the listener
// tests that need a ledger that refuses writes or does not make its commits durable: settings that
// every new session of the database takes, and ending the sessions open now so a pool opens new ones.
import pg from 'pg';
import { adminUrl } from '../../helpers/test-database';

async function asAdmin(sql: string, params: string[] = []): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    await client.query(sql, params);
  } finally {
    await client.end();
  }
}

const databaseOf = (url: string) => decodeURIComponent(new URL(url).pathname.slice(1));

/** Sets (or, with `null`, resets) a parameter every later session of the ledger's database starts with. */
export function setDatabaseDefault(url: string, parameter: string, value: string | null): Promise<void> {
  const database = pg.escapeIdentifier(databaseOf(url));
  return asAdmin(value === null ? `ALTER DATABASE ${database} RESET ${parameter}` : `ALTER DATABASE ${database} SET ${parameter} = ${pg.escapeLiteral(value)}`);
}

/** Ends every session open on the ledger's database (a pool notices and opens new ones when next asked). */
export function endSessions(url: string): Promise<void> {
  return asAdmin('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [databaseOf(url)]);
}
