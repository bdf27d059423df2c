import type { PostgresMigration } from './index';

// SQLite's 0016_approvals: approval policies and the requests for approval.
export const postgres0004: PostgresMigration = {
  version: 4,
  name: 'approvals',
  sql: `
    CREATE TABLE approval_policies (
      environment TEXT COLLATE "C" NOT NULL CHECK (environment IN ('any', 'local', 'live')),
      currency TEXT COLLATE "C" NOT NULL,
      mode TEXT COLLATE "C" NOT NULL CHECK (mode IN ('threshold', 'always', 'never')),
      payout_above TEXT COLLATE "C",
      batch_above TEXT COLLATE "C",
      updated_at TEXT COLLATE "C" NOT NULL,
      PRIMARY KEY (environment, currency)
    );
    CREATE TABLE approvals (
      id BIGSERIAL PRIMARY KEY,
      kind TEXT COLLATE "C" NOT NULL CHECK (kind IN ('payout', 'batch')),
      profile_id TEXT COLLATE "C" NOT NULL,
      environment TEXT COLLATE "C" NOT NULL,
      subject TEXT COLLATE "C" NOT NULL,
      currency TEXT COLLATE "C" NOT NULL,
      amount TEXT COLLATE "C" NOT NULL,
      item_count INTEGER NOT NULL,
      body TEXT NOT NULL,
      body_hash TEXT COLLATE "C" NOT NULL,
      reviewed TEXT NOT NULL,
      policy TEXT NOT NULL,
      maker_id TEXT COLLATE "C" NOT NULL,
      maker_name TEXT NOT NULL,
      state TEXT COLLATE "C" NOT NULL CHECK (state IN ('awaiting', 'approved', 'rejected', 'expired', 'withdrawn', 'voided')),
      reason TEXT,
      decided_by_id TEXT COLLATE "C",
      decided_by_name TEXT,
      idempotency_key TEXT COLLATE "C",
      created_at TEXT COLLATE "C" NOT NULL,
      expires_at TEXT COLLATE "C" NOT NULL,
      decided_at TEXT COLLATE "C"
    );
    CREATE INDEX approvals_state ON approvals (state, id);
    CREATE INDEX approvals_subject ON approvals (kind, profile_id, subject);
  `,
};
