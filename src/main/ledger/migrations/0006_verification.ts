import type { Migration } from './index';

// Verification and reconciliation.
// A notification is a claim (no signature, spec 5 rule 6): it no longer moves status_code, which
// only the gateway's own answers (create answer, status read) move. claim_state tracks the latest
// notified claim: NULL (nothing notified), 'unverified' (no status read has confirmed it yet),
// 'verified' (a read or the create answer agreed, or the gateway moved past it), 'contradicted'
// (the gateway says something else: a mismatch that needs a human).
// status_conflict / facts_conflict split the existing `conflict` note by kind, so the
// reconciliation lists "notification ≠ status read" and "amount or currency ≠ ledger" apart.
// The partial indexes serve those lists, the verifier's restart queue and the audit lookups,
// and cost nothing on rows they do not cover.
export const migration0006: Migration = {
  version: 6,
  name: 'verification',
  up: (db) => {
    for (const table of ['payins', 'payouts'] as const) {
      db.exec(`
        ALTER TABLE ${table} ADD COLUMN claim_state TEXT CHECK (claim_state IN ('unverified', 'verified', 'contradicted'));
        ALTER TABLE ${table} ADD COLUMN status_conflict TEXT;
        ALTER TABLE ${table} ADD COLUMN facts_conflict TEXT;
        CREATE INDEX ${table}_claim_unverified ON ${table} (created_at, id) WHERE claim_state = 'unverified';
        -- Reconciliation totals: one covering index read instead of the table.
        CREATE INDEX ${table}_totals ON ${table} (created_at, currency, method, status_code, amount, profile_id);
        CREATE INDEX ${table}_reason ON ${table} (reason_code) WHERE reason_code IS NOT NULL;
      `);
    }
    db.exec(`
      CREATE INDEX notifications_duplicate ON notifications (id) WHERE outcome = 'duplicate';
      CREATE INDEX notifications_mismatch ON notifications (id) WHERE outcome = 'mismatch';
      CREATE INDEX audit_log_subject ON audit_log (subject, seq) WHERE subject IS NOT NULL;
    `);
  },
};
