import type { Migration } from './index';

// Four eyes on live money (docs/team.md, "Approvals"): the policies an admin sets per environment
// and currency, and each request for approval with its reviewed body (as the ledger stores a
// request: card numbers masked), the keyed hash of the full body, the maker, the policy that
// applied, the decision and the Idempotency-Key the approval sent it under. A desk's ledger keeps
// its policies here too (a desk asks for the typed amount instead of a second person).
export const migration0016: Migration = {
  version: 16,
  name: 'approvals',
  up: (db) => {
    db.exec(`
      CREATE TABLE approval_policies (
        environment TEXT NOT NULL CHECK (environment IN ('any', 'local', 'live')),
        currency TEXT NOT NULL,
        mode TEXT NOT NULL CHECK (mode IN ('threshold', 'always', 'never')),
        payout_above TEXT,
        batch_above TEXT,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (environment, currency)
      ) STRICT;
      CREATE TABLE approvals (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('payout', 'batch')),
        profile_id TEXT NOT NULL,
        environment TEXT NOT NULL,
        subject TEXT NOT NULL,
        currency TEXT NOT NULL,
        amount TEXT NOT NULL,
        item_count INTEGER NOT NULL,
        body TEXT NOT NULL,
        body_hash TEXT NOT NULL,
        reviewed TEXT NOT NULL,
        policy TEXT NOT NULL,
        maker_id TEXT NOT NULL,
        maker_name TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('awaiting', 'approved', 'rejected', 'expired', 'withdrawn', 'voided')),
        reason TEXT,
        decided_by_id TEXT,
        decided_by_name TEXT,
        idempotency_key TEXT,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        decided_at TEXT
      ) STRICT;
      CREATE INDEX approvals_state ON approvals (state, id);
      CREATE INDEX approvals_subject ON approvals (kind, profile_id, subject);
    `);
  },
};
