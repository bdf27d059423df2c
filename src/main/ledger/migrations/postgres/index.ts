// PostgreSQL's numbered migrations, recorded in its own schema_migrations: a PostgreSQL ledger
// starts at 0001 (the whole schema SQLite reaches through its 0001-0013); each later change is a
// migration here and one in ../ (SQLite), under its own number per engine.
// Never edit a migration that has shipped: add the next number instead.
import { postgres0001 } from './0001_schema';
import { postgres0002 } from './0002_ledger_copies';
import { postgres0003 } from './0003_team';
import { postgres0004 } from './0004_approvals';
import { postgres0005 } from './0005_scale_out';

export interface PostgresMigration {
  version: number;
  name: string;
  /** Run as one simple-protocol script inside the migration's transaction. */
  sql: string;
}

export const postgresMigrations: readonly PostgresMigration[] = [postgres0001, postgres0002, postgres0003, postgres0004, postgres0005];
