import type { Migration } from './index';

// Several team-server processes on one ledger (docs/team.md, "Several instances"): each process is
// an instance with an id, and says it is alive in ledger_instances (last_seen_at, its heartbeat);
// a create attempt being sent records who claimed it (attempts.claimed_by), and a batch being run
// who runs it (batches.run_by). Recovery then takes over only what a dead instance held, never a
// live one's claims. On a desk (SQLite) there is one instance, so nothing else changes; PostgreSQL's
// 0005_scale_out adds the same, and the table that relays pushes between instances.
export const migration0017: Migration = {
  version: 17,
  name: 'scale_out',
  up: (db) => {
    db.exec(`
      ALTER TABLE attempts ADD COLUMN claimed_by TEXT;
      ALTER TABLE batches ADD COLUMN run_by TEXT;
      CREATE TABLE ledger_instances (
        id TEXT PRIMARY KEY,
        host TEXT NOT NULL,
        pid INTEGER NOT NULL,
        started_at TEXT NOT NULL,
        last_seen_at TEXT NOT NULL
      ) STRICT;
    `);
  },
};
