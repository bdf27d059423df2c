// Opens a PostgreSQL ledger: checks the URL, connects once to say plainly what is wrong (refused,
// unknown host, wrong password, missing database), then migrates under an advisory lock, so two
// processes starting at once migrate exactly once. Nothing is written before the connection works.
// Several team-server instances share the ledger: one of an older Paydesk opens it migrated further
// by a newer one when every newer step is declared compatible with it (docs/team.md, "Upgrade").
import { PostgresEngine } from './postgres';
import { postgresMigrations, type Declared, type PostgresMigration } from '../migrations/index';
import { checkHistory, LedgerOpenError, oldestCompatible, type AppliedMigration } from './history';
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

export async function openPostgres(text: string, now: () => Date, migrations: readonly Declared<PostgresMigration>[] = postgresMigrations, poolSize?: number): Promise<PostgresEngine> {
  const engine = await connectPostgres(text, poolSize);
  try {
    await migratePostgres(engine, migrations, now);
    return engine;
  } catch (error) {
    await engine.close();
    throw error;
  }
}

/**
 * A PostgreSQL database, its connection tried (a problem said in words that name the part to fix),
 * and nothing migrated or written: what a backup reads as it is, and a restore's target, which must
 * be empty (ledger/backup/).
 */
export async function connectPostgres(text: string, poolSize?: number): Promise<PostgresEngine> {
  const url = parsePostgresUrl(text);
  const engine = await PostgresEngine.create(url.href, redactedUrl(url), poolSize);
  try {
    await engine.get('SELECT 1 AS ok');
    return engine;
  } catch (error) {
    await engine.close();
    throw new LedgerOpenError(connectionProblem(error, url));
  }
}

/**
 * How long a migration waits for a table that running instances are using before it lets go of
 * every lock it took and tries again: shorter than PostgreSQL's deadlock_timeout (1 s), so that a
 * running instance's transaction is never the one a deadlock with a migration aborts.
 */
const LOCK_WAIT_MS = 500;
const MIGRATION_TRIES = 20;
const LOCK_CONFLICTS = new Set(['55P03', '40P01']);

async function migratePostgres(engine: PostgresEngine, migrations: readonly Declared<PostgresMigration>[], now: () => Date): Promise<void> {
  for (let tries = 1; ; tries++) {
    try {
      return await migrateOnce(engine, migrations, now);
    } catch (error) {
      if (!LOCK_CONFLICTS.has((error as { code?: string }).code ?? '')) throw error;
      if (tries === MIGRATION_TRIES) {
        throw new LedgerOpenError(`The ledger's tables stayed busy: its migrations could not take their locks in ${tries} tries (${(error as Error).message}); nothing was changed. Start Paydesk again.`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50 * tries));
    }
  }
}

async function migrateOnce(engine: PostgresEngine, migrations: readonly Declared<PostgresMigration>[], now: () => Date): Promise<void> {
  const oldest = oldestCompatible(migrations);
  await engine.transaction(async () => {
    // Two processes migrating wait for each other as long as it takes; for the tables, see LOCK_WAIT_MS.
    await engine.lock('migrations');
    await engine.run(`SET LOCAL lock_timeout = ${LOCK_WAIT_MS}`);
    await engine.run(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      applied_at TEXT NOT NULL,
      oldest_compatible INTEGER
    )`);
    const applied = await engine.all<AppliedMigration>('SELECT * FROM schema_migrations ORDER BY version');
    checkHistory(applied, migrations, `PostgreSQL ${engine.location}`, { runsOnCompatible: true });
    // A ledger from before the declarations were recorded: its migrations get theirs.
    const declared = await engine.get("SELECT 1 AS yes FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'schema_migrations' AND column_name = 'oldest_compatible'");
    if (!declared) {
      await engine.run('ALTER TABLE schema_migrations ADD COLUMN oldest_compatible INTEGER');
      for (const row of applied) await engine.run('UPDATE schema_migrations SET oldest_compatible = ? WHERE version = ?', [oldest.get(row.version) ?? null, row.version]);
    }
    const done = new Set(applied.map((row) => row.version));
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      await engine.run(migration.sql);
      await engine.run('INSERT INTO schema_migrations (version, name, applied_at, oldest_compatible) VALUES (?, ?, ?, ?)', [migration.version, migration.name, now().toISOString(), oldest.get(migration.version) ?? null]);
    }
  });
}
