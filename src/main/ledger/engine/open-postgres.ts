// Opens a PostgreSQL ledger: checks the URL, connects once to say plainly what is wrong (refused,
// unknown host, wrong password, missing database), then migrates under an advisory lock, so two
// processes starting at once migrate exactly once. Nothing is written before the connection works.
import { PostgresEngine } from './postgres';
import { postgresMigrations, type PostgresMigration } from '../migrations/postgres/index';
import { checkHistory, LedgerOpenError, type AppliedMigration } from './history';
import { redactedUrl } from './open';

export function parsePostgresUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new LedgerOpenError(`The database address is not a URL: expected postgres://user@host:5432/database.`);
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new LedgerOpenError(`The database address must start with postgres:// or postgresql://, got ${url.protocol}//.`);
  }
  if (url.pathname.replace(/^\//, '') === '') {
    throw new LedgerOpenError(`The database address names no database: add it after the host, as in ${url.protocol}//${url.host}/paydesk.`);
  }
  return url;
}

/** What went wrong connecting, in words that name the part to fix. */
export function connectionProblem(error: unknown, url: URL): string {
  const e = error as { code?: string; message?: string };
  const where = `${url.hostname}:${url.port || '5432'}`;
  const database = decodeURIComponent(url.pathname.slice(1));
  const user = decodeURIComponent(url.username) || 'the default user';
  switch (e.code) {
    case 'ECONNREFUSED':
      return `PostgreSQL refused the connection at ${where}: is the server running and listening there?`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `PostgreSQL host ${url.hostname} was not found: check the host name in the address.`;
    case 'ETIMEDOUT':
      return `PostgreSQL at ${where} did not answer in time.`;
    case '28P01':
      return `PostgreSQL at ${where} refused the password for ${user}.`;
    case '28000':
      return `PostgreSQL at ${where} does not let ${user} in (${e.message}).`;
    case '3D000':
      return `PostgreSQL at ${where} has no database "${database}": create it first (createdb ${database}).`;
    default:
      return `Paydesk could not connect to PostgreSQL at ${where}: ${e.message ?? String(error)}`;
  }
}

export async function openPostgres(text: string, now: () => Date, migrations: readonly PostgresMigration[] = postgresMigrations): Promise<PostgresEngine> {
  const url = parsePostgresUrl(text);
  const location = redactedUrl(url);
  const engine = await PostgresEngine.create(url.href, location);
  try {
    try {
      await engine.get('SELECT 1 AS ok');
    } catch (error) {
      throw new LedgerOpenError(connectionProblem(error, url));
    }
    await migratePostgres(engine, migrations, now);
    return engine;
  } catch (error) {
    await engine.close();
    throw error;
  }
}

async function migratePostgres(engine: PostgresEngine, migrations: readonly PostgresMigration[], now: () => Date): Promise<void> {
  await engine.transaction(async () => {
    await engine.lock('migrations');
    await engine.run(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      applied_at TEXT NOT NULL
    )`);
    const applied = await engine.all<AppliedMigration>('SELECT version, name FROM schema_migrations ORDER BY version');
    checkHistory(applied, migrations, `PostgreSQL ${engine.location}`);
    const done = new Set(applied.map((row) => row.version));
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      await engine.run(migration.sql);
      await engine.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', [migration.version, migration.name, now().toISOString()]);
    }
  });
}
