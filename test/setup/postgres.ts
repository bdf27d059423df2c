// Vitest global setup: finds a PostgreSQL server for the tests, or starts a private one.
// 1. PAYDESK_TEST_PG_ADMIN_URL, if set, is used as given.
// 2. Else the machine's server at 127.0.0.1:5432 (user postgres), if it answers (and
//    PAYDESK_TEST_PG_PRIVATE is not 1, which forces step 3).
// 3. Else a private cluster (test/helpers/private-cluster.ts: initdb in a temporary directory and
//    pg_ctl start on a free port, as an unprivileged user when the tests run as root), stopped and
//    removed at the end. test/integration/ledger/private-cluster.test.ts exercises that path.
// Tests then create and drop their own databases through that admin URL (test/helpers/test-database.ts).
import pg from 'pg';
import { postgresBin, startPrivateCluster } from '../helpers/private-cluster';

const DEFAULT_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export default async function setup(): Promise<(() => void) | undefined> {
  if (process.env.PAYDESK_TEST_PG_ADMIN_URL) return undefined;
  if (process.env.PAYDESK_TEST_PG_PRIVATE !== '1' && (await answers(DEFAULT_URL))) {
    process.env.PAYDESK_TEST_PG_ADMIN_URL = DEFAULT_URL;
    return undefined;
  }
  if (!postgresBin()) throw new Error('No PostgreSQL server answers at 127.0.0.1:5432 and initdb was not found: run `npm run setup:system` (installs Debian\'s postgresql).');
  const cluster = await startPrivateCluster();
  process.env.PAYDESK_TEST_PG_ADMIN_URL = cluster.url;
  return cluster.stop;
}
