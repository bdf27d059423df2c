// What a backup records of a PostgreSQL ledger, and a restore checks again (server/backup.ts): its
// schema history, the rows of every table and the audit chain's head. A backup reads them in one
// snapshot, the very one pg_dump then dumps (exported with pg_export_snapshot and handed to
// `pg_dump --snapshot`), so the numbers are the dump's to the row while the server goes on writing.
import type { AppliedMigration } from '../engine/history';
import type { PostgresEngine } from '../engine/postgres';
import type { Sql } from '../engine/types';
import { AuditLog } from '../repositories/audit-log';

export interface LedgerFacts {
  /** The migrations recorded in schema_migrations, in order. */
  schema: AppliedMigration[];
  /** Every table of the ledger's schema, with its rows. */
  rows: Record<string, number>;
  auditHead: { seq: number; hash: string } | null;
}

export interface LedgerSnapshot {
  /** What `pg_dump --snapshot` takes: the dump sees exactly what `facts` counted. */
  id: string;
  /** The snapshot's time, by the database's clock (ISO 8601, UTC). */
  takenAt: string;
  facts: LedgerFacts;
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The facts of a Paydesk ledger; a database without schema_migrations (not one) has an empty schema history. */
export async function readLedgerFacts(sql: Sql): Promise<LedgerFacts> {
  const isLedger = (await sql.get<{ found: string | null }>("SELECT to_regclass('schema_migrations')::text AS found"))?.found != null;
  const schema = isLedger ? await sql.all<AppliedMigration>('SELECT version, name FROM schema_migrations ORDER BY version') : [];
  const tables = await sql.all<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') ORDER BY c.relname COLLATE "C"`,
  );
  const rows: Record<string, number> = {};
  for (const { name } of tables) rows[name] = Number((await sql.get<{ n: number }>(`SELECT count(*) AS n FROM ${quoted(name)}`))?.n ?? 0);
  return { schema: schema.map((m) => ({ version: Number(m.version), name: m.name })), rows, auditHead: rows.audit_log === undefined ? null : await new AuditLog(sql).head() };
}

/**
 * Runs `work` inside a read-only, repeatable-read transaction whose snapshot is exported: its id
 * (for pg_dump), its time and the ledger's facts as of it. Every statement `work` issues in its
 * async context (a repository's too) reads the same snapshot; it stays exported until `work` ends.
 */
export function inSnapshot<T>(engine: PostgresEngine, work: (snapshot: LedgerSnapshot) => Promise<T>): Promise<T> {
  return engine.transaction(async () => {
    await engine.run('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    const taken = await engine.get<{ id: string; at: string }>(
      `SELECT pg_export_snapshot() AS id, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at`,
    );
    if (!taken) throw new Error('PostgreSQL exported no snapshot');
    return work({ id: taken.id, takenAt: taken.at, facts: await readLedgerFacts(engine) });
  });
}

/**
 * What a database holds besides PostgreSQL's own (tables, functions, collations, schemas,
 * extensions), a few of them by name: [] when it is empty, as a restore's target must be.
 */
export async function holdingsOf(sql: Sql): Promise<string[]> {
  const ours = `n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'`;
  // Tables first: they say best what the database is.
  const rows = await sql.all<{ what: string }>(
    `SELECT what FROM (
       SELECT CASE WHEN c.relkind IN ('r', 'p') THEN 1 ELSE 2 END AS rank, CASE c.relkind WHEN 'S' THEN 'sequence ' WHEN 'v' THEN 'view ' WHEN 'm' THEN 'view ' ELSE 'table ' END || c.relname AS what
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f') AND ${ours}
       UNION ALL SELECT 2, 'schema ' || n.nspname FROM pg_namespace n WHERE ${ours} AND n.nspname <> 'public'
       UNION ALL SELECT 3, 'function ' || p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE ${ours}
       UNION ALL SELECT 4, 'collation ' || c.collname FROM pg_collation c JOIN pg_namespace n ON n.oid = c.collnamespace WHERE ${ours}
       UNION ALL SELECT 5, 'extension ' || e.extname FROM pg_extension e WHERE e.extname <> 'plpgsql'
     ) AS held ORDER BY rank, what COLLATE "C" LIMIT 4`,
  );
  return rows.map((r) => r.what);
}

/** The server's version ("15.20 (Debian 15.20-0+deb12u1)"). */
export async function postgresVersion(sql: Sql): Promise<string> {
  return (await sql.get<{ server_version: string }>('SHOW server_version'))?.server_version ?? 'unknown';
}
