import type { Migration } from './index';

// Retention of the raw material (body and headers) of notifications nobody can apply now:
// malformed ones and orphans. Anyone who knows a profile's listener path can post them, up to
// 256 KiB each, and a flood filled 177 MB in 40 s. Per profile, a cap (count and bytes) and an age
// (notification_retention; defaults in services/notification-retention.ts) bound what is kept: beyond it, malformed rows are deleted whole and orphans keep their row
// (a claim that may still be applied) with body and headers dropped and raw_pruned_at set. The
// partial index holds exactly the rows whose raw material still counts, so a pruning run reads
// only those; applied, duplicate, mismatch and pending rows never enter it.
export const migration0012: Migration = {
  version: 12,
  name: 'notification_retention',
  up: (db) => {
    db.exec(`
      ALTER TABLE notifications ADD COLUMN raw_pruned_at TEXT;
      CREATE INDEX notifications_unclaimed_raw ON notifications (profile_id, id)
        WHERE outcome IN ('malformed', 'orphan') AND raw_pruned_at IS NULL;

      CREATE TABLE notification_retention (
        profile_id TEXT PRIMARY KEY REFERENCES profiles (id) ON DELETE CASCADE,
        max_count INTEGER CHECK (max_count BETWEEN 10 AND 1000000),
        max_bytes INTEGER CHECK (max_bytes BETWEEN 1048576 AND 107374182400),
        max_age_days INTEGER CHECK (max_age_days BETWEEN 1 AND 3650),
        updated_at TEXT,
        malformed_deleted INTEGER NOT NULL DEFAULT 0 CHECK (malformed_deleted >= 0),
        orphan_bodies_pruned INTEGER NOT NULL DEFAULT 0 CHECK (orphan_bodies_pruned >= 0),
        bytes_freed INTEGER NOT NULL DEFAULT 0 CHECK (bytes_freed >= 0),
        last_pruned_at TEXT,
        CHECK ((max_count IS NULL) = (updated_at IS NULL) AND (max_bytes IS NULL) = (updated_at IS NULL) AND (max_age_days IS NULL) = (updated_at IS NULL))
      ) STRICT;
    `);
  },
};
