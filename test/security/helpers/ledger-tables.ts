// The ledger's tables as the engine itself lists them (not a list kept by hand, so a table added
// later is scanned too), on SQLite or PostgreSQL.
import type { Sql, SqlValue } from '../../../src/main/ledger/engine/types';

export async function ledgerTables(sql: Sql): Promise<string[]> {
  const rows =
    sql.engine === 'sqlite'
      ? await sql.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
      : await sql.all<{ name: string }>("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name");
  return rows.map((row) => row.name);
}

/** Every row of a table, each value as the engine returns it. */
export function rowsOf(sql: Sql, table: string): Promise<Record<string, SqlValue | boolean>[]> {
  return sql.all<Record<string, SqlValue | boolean>>(`SELECT * FROM "${table}"`);
}
