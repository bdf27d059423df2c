import type { Migration } from './index';

// Copies of another ledger into this one (`npm run ledger:copy`): which source, when it started,
// when it was verified. A copy only goes into an empty ledger, or into one that holds an unfinished
// or finished copy of the same source: so re-running continues or re-checks it, and never mixes two
// desks' ids. The same table exists on PostgreSQL (migrations/postgres/0002_ledger_copies.ts).
export const migration0014: Migration = {
  version: 14,
  name: 'ledger_copies',
  up: (db) => {
    db.exec(`
      CREATE TABLE ledger_copies (
        source TEXT PRIMARY KEY,
        source_location TEXT NOT NULL,
        started_at TEXT NOT NULL,
        verified_at TEXT
      ) STRICT;
    `);
  },
};
