import type { PostgresMigration } from './index';

// SQLite's 0014_ledger_copies: which ledger was copied into this one (`npm run ledger:copy`).
export const postgres0002: PostgresMigration = {
  version: 2,
  name: 'ledger_copies',
  sql: `
    CREATE TABLE ledger_copies (
      source TEXT COLLATE "C" PRIMARY KEY,
      source_location TEXT NOT NULL,
      started_at TEXT COLLATE "C" NOT NULL,
      verified_at TEXT COLLATE "C"
    );
  `,
};
