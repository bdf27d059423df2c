// PostgreSQL's numbered migrations, recorded in its own schema_migrations. Which step each belongs
// to, beside SQLite's form of it, is the one list in ../index.ts.
// Never edit a migration that has shipped: add the next number instead.

export interface PostgresMigration {
  version: number;
  name: string;
  /** Run as one simple-protocol script inside the migration's transaction. */
  sql: string;
}
