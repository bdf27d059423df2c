import type { Migration } from './index';

// Append-only audit log of user actions. Each row carries the SHA-256 of (previous hash + its own
// content), computed in TypeScript (SQLite has no SHA-256); the triggers refuse UPDATE and DELETE
// and refuse an INSERT that does not extend the current head, so the chain cannot fork.
// no profile foreign key: an audit row must outlive the profile it mentions.
export const GENESIS_HASH = '0'.repeat(64);

export const migration0005: Migration = {
  version: 5,
  name: 'audit_log',
  up: (db) => {
    db.exec(`
      CREATE TABLE audit_log (
        seq INTEGER PRIMARY KEY,
        at TEXT NOT NULL,
        actor TEXT NOT NULL,
        action TEXT NOT NULL,
        profile_id TEXT,
        subject TEXT,
        details TEXT NOT NULL,
        prev_hash TEXT NOT NULL CHECK (length(prev_hash) = 64),
        hash TEXT NOT NULL UNIQUE CHECK (length(hash) = 64)
      ) STRICT;
      CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
      BEGIN SELECT RAISE(ABORT, 'audit_log is append-only: UPDATE refused'); END;
      CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
      BEGIN SELECT RAISE(ABORT, 'audit_log is append-only: DELETE refused'); END;
      CREATE TRIGGER audit_log_extends_head BEFORE INSERT ON audit_log
      WHEN NEW.prev_hash IS NOT coalesce((SELECT hash FROM audit_log ORDER BY seq DESC LIMIT 1), '${GENESIS_HASH}')
        OR NEW.seq IS NOT coalesce((SELECT max(seq) FROM audit_log), 0) + 1
      BEGIN SELECT RAISE(ABORT, 'audit_log: a new row must extend the current head'); END;
    `);
  },
};
