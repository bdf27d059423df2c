import type { Migration } from './index';

// What the gateway told us (raw notifications) and what we asked it (status reads).
// notifications is the listener's hot insert path: every index costs on each of thousands of
// inserts per second, so only the apply step's lookups are indexed (the inspector pages by id).
export const migration0004: Migration = {
  version: 4,
  name: 'notifications',
  up: (db) => {
    db.exec(`
      CREATE TABLE notifications (
        id INTEGER PRIMARY KEY,
        profile_id TEXT NOT NULL REFERENCES profiles (id),
        received_at TEXT NOT NULL,
        source_address TEXT,
        raw_headers TEXT NOT NULL,
        body BLOB NOT NULL,
        body_size INTEGER NOT NULL,
        body_truncated INTEGER NOT NULL DEFAULT 0 CHECK (body_truncated IN (0, 1)),
        answer_status INTEGER NOT NULL,
        event TEXT,
        transaction_ref TEXT,
        request_ref TEXT,
        status_code TEXT,
        dedupe_key TEXT,
        outcome TEXT NOT NULL CHECK (outcome IN ('pending', 'applied', 'duplicate', 'orphan', 'mismatch', 'malformed')),
        detail TEXT,
        payin_row_id INTEGER REFERENCES payins (id),
        payout_row_id INTEGER REFERENCES payouts (id),
        token_row_id INTEGER REFERENCES card_tokens (id),
        processed_at TEXT
      ) STRICT;
      CREATE INDEX notifications_dedupe ON notifications (dedupe_key, profile_id, id);
      CREATE INDEX notifications_pending ON notifications (id) WHERE outcome = 'pending';
      CREATE INDEX notifications_orphan_tx ON notifications (transaction_ref, profile_id) WHERE outcome = 'orphan';
      CREATE INDEX notifications_orphan_req ON notifications (request_ref, profile_id) WHERE outcome = 'orphan';
      CREATE INDEX notifications_payin ON notifications (payin_row_id, id) WHERE payin_row_id IS NOT NULL;
      CREATE INDEX notifications_payout ON notifications (payout_row_id, id) WHERE payout_row_id IS NOT NULL;

      CREATE TABLE status_reads (
        id INTEGER PRIMARY KEY,
        profile_id TEXT NOT NULL REFERENCES profiles (id),
        kind TEXT NOT NULL CHECK (kind IN ('payin', 'payout')),
        reference TEXT NOT NULL,
        payin_row_id INTEGER REFERENCES payins (id),
        payout_row_id INTEGER REFERENCES payouts (id),
        request_body TEXT NOT NULL,
        requested_at TEXT NOT NULL,
        http_status INTEGER,
        response_body TEXT,
        responded_at TEXT,
        result TEXT NOT NULL CHECK (result IN ('ok', 'not_found', 'rate_limited', 'rejected', 'error', 'unreachable')),
        status_code TEXT,
        error TEXT
      ) STRICT;
      CREATE INDEX status_reads_payin ON status_reads (payin_row_id, id) WHERE payin_row_id IS NOT NULL;
      CREATE INDEX status_reads_payout ON status_reads (payout_row_id, id) WHERE payout_row_id IS NOT NULL;
      CREATE INDEX status_reads_reference ON status_reads (reference, profile_id);
    `);
  },
};
