import type { Migration } from './index';

// Statements (docs/statements.md): settlement reports and bank statements imported, their lines
// matched to pay-ins, payouts and each other. PostgreSQL's 0010_statements makes the same tables.
//
// statement_uploads / statement_upload_chunks: a file on its way in, in the chunks it was sent in
// (in the ledger, so any instance of a team server can read what another received); dropped once
// imported or discarded. statement_imports: one row per import, with its counts or the line and
// reason that refused it. statement_layouts: how a source's CSV reads, shared by the team.
// settlement_staging / bank_staging: an import's lines while it reads its file, moved into the
// lines below in the one transaction that commits it (or deleted when it is refused); few imports
// run at a time, so they have no index (each insert costs less).
// settlement_lines / bank_lines: every line once per profile (line_key: the line's natural key and
// its occurrence in its file, so a line a report repeats on purpose stays twice, and a file
// imported again adds nothing). settlements: a report's settlements, summed exactly from their lines,
// with the bank credits matched to them. statement_proposals: matches made by something other than
// an id (amount, currency, date), waiting for a person.
// Columns two tables share, each written once (the text of every statement is as it was).
/** Where a kept line came from: its profile, its import and line there, and its key (unique per profile). */
const IMPORTED_LINE = `id INTEGER PRIMARY KEY,
        profile_id TEXT NOT NULL REFERENCES profiles (id),
        import_id INTEGER NOT NULL REFERENCES statement_imports (id),
        line INTEGER NOT NULL,
        line_key TEXT NOT NULL`;
/** A settlement report line's facts: read into settlement_staging, kept in settlement_lines. */
const SETTLEMENT_LINE_FACTS = `settlement_id TEXT,
        wallet_id TEXT,
        payin_id TEXT,
        request_id TEXT,
        payout_id TEXT,
        merchant_reference TEXT,
        topup_id TEXT,
        method TEXT,
        currency TEXT NOT NULL,
        amount TEXT NOT NULL,
        fee TEXT NOT NULL,
        net TEXT NOT NULL`;
/** A bank statement entry's facts after its direction: read into bank_staging, kept in bank_lines. */
const BANK_ENTRY_FACTS = `booking_date TEXT NOT NULL,
        value_date TEXT,
        entry_ref TEXT,
        end_to_end_id TEXT,
        remittance TEXT,
        counterparty TEXT`;
/** What a person decided about a line: held out of matching, matched or unmatched by hand, and why. */
const HELD_AND_DECIDED = `held INTEGER NOT NULL DEFAULT 0 CHECK (held IN (0, 1)),
        decided_by TEXT,
        decided_at TEXT,
        note TEXT`;

export const migration0022: Migration = {
  version: 22,
  name: 'statements',
  up: (db) => {
    db.exec(`
      CREATE TABLE statement_uploads (
        id TEXT PRIMARY KEY,
        profile_id TEXT NOT NULL REFERENCES profiles (id),
        kind TEXT NOT NULL CHECK (kind IN ('settlement', 'bank')),
        file_name TEXT NOT NULL,
        declared_size INTEGER NOT NULL CHECK (declared_size > 0),
        received INTEGER NOT NULL DEFAULT 0,
        chunks INTEGER NOT NULL DEFAULT 0,
        created_by TEXT,
        created_at TEXT NOT NULL
      ) STRICT;
      CREATE TABLE statement_upload_chunks (
        upload_id TEXT NOT NULL REFERENCES statement_uploads (id),
        seq INTEGER NOT NULL,
        bytes BLOB NOT NULL,
        PRIMARY KEY (upload_id, seq)
      ) STRICT;

      CREATE TABLE statement_imports (
        id INTEGER PRIMARY KEY,
        profile_id TEXT NOT NULL REFERENCES profiles (id),
        kind TEXT NOT NULL CHECK (kind IN ('settlement', 'bank')),
        format TEXT NOT NULL CHECK (format IN ('csv', 'camt053', 'mt940')),
        source TEXT NOT NULL,
        file_name TEXT NOT NULL,
        file_size INTEGER NOT NULL,
        file_sha256 TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('running', 'imported', 'refused')),
        lines INTEGER NOT NULL DEFAULT 0,
        added INTEGER NOT NULL DEFAULT 0,
        already INTEGER NOT NULL DEFAULT 0,
        error_line INTEGER,
        error_reason TEXT,
        created_by TEXT,
        started_at TEXT NOT NULL,
        finished_at TEXT
      ) STRICT;
      CREATE INDEX statement_imports_profile ON statement_imports (profile_id, id);

      CREATE TABLE statement_layouts (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('settlement', 'bank')),
        source TEXT NOT NULL,
        format TEXT NOT NULL CHECK (format IN ('csv', 'camt053', 'mt940')),
        layout TEXT,
        updated_by TEXT,
        updated_at TEXT NOT NULL,
        UNIQUE (kind, source)
      ) STRICT;

      CREATE TABLE settlement_staging (
        import_id INTEGER NOT NULL,
        line INTEGER NOT NULL,
        base_key TEXT NOT NULL,
        line_type TEXT NOT NULL,
        ${SETTLEMENT_LINE_FACTS},
        direction TEXT NOT NULL,
        occurred_at TEXT,
        booking_date TEXT
      ) STRICT;

      CREATE TABLE settlement_lines (
        ${IMPORTED_LINE},
        line_type TEXT NOT NULL CHECK (line_type IN ('payin', 'payout', 'payout_reversal', 'topup')),
        ${SETTLEMENT_LINE_FACTS},
        direction TEXT NOT NULL CHECK (direction IN ('credit', 'debit')),
        occurred_at TEXT,
        booking_date TEXT,
        day TEXT,
        subject TEXT CHECK (subject IN ('payin', 'payout')),
        row_id INTEGER,
        matched_by TEXT CHECK (matched_by IN ('payin_id', 'request_id', 'payout_id', 'merchantReference', 'person')),
        ${HELD_AND_DECIDED},
        UNIQUE (profile_id, line_key)
      ) STRICT;
      CREATE INDEX settlement_lines_settlement ON settlement_lines (profile_id, settlement_id);
      CREATE INDEX settlement_lines_row ON settlement_lines (subject, row_id);
      CREATE INDEX settlement_lines_unmatched ON settlement_lines (profile_id, id) WHERE row_id IS NULL;

      CREATE TABLE settlements (
        id INTEGER PRIMARY KEY,
        profile_id TEXT NOT NULL REFERENCES profiles (id),
        settlement_id TEXT NOT NULL,
        currency TEXT NOT NULL,
        value_date TEXT,
        lines INTEGER NOT NULL,
        gross TEXT NOT NULL,
        fees TEXT NOT NULL,
        net TEXT NOT NULL,
        pays INTEGER NOT NULL CHECK (pays IN (0, 1)),
        credited TEXT,
        credits INTEGER NOT NULL DEFAULT 0,
        credit_agrees INTEGER NOT NULL DEFAULT 0 CHECK (credit_agrees IN (0, 1)),
        UNIQUE (profile_id, settlement_id)
      ) STRICT;

      CREATE TABLE bank_staging (
        import_id INTEGER NOT NULL,
        line INTEGER NOT NULL,
        base_key TEXT NOT NULL,
        account TEXT,
        currency TEXT NOT NULL,
        amount TEXT NOT NULL,
        direction TEXT NOT NULL,
        ${BANK_ENTRY_FACTS}
      ) STRICT;

      CREATE TABLE bank_lines (
        ${IMPORTED_LINE},
        account TEXT,
        currency TEXT NOT NULL,
        amount TEXT NOT NULL,
        direction TEXT NOT NULL CHECK (direction IN ('credit', 'debit')),
        ${BANK_ENTRY_FACTS},
        settlement_id TEXT,
        matched_by TEXT CHECK (matched_by IN ('reference', 'proposal', 'person')),
        ${HELD_AND_DECIDED},
        UNIQUE (profile_id, line_key)
      ) STRICT;
      CREATE INDEX bank_lines_settlement ON bank_lines (profile_id, settlement_id);
      CREATE INDEX bank_lines_unmatched ON bank_lines (profile_id, id) WHERE settlement_id IS NULL;

      CREATE TABLE statement_proposals (
        id INTEGER PRIMARY KEY,
        profile_id TEXT NOT NULL REFERENCES profiles (id),
        bank_line_id INTEGER NOT NULL REFERENCES bank_lines (id),
        settlement_id TEXT NOT NULL,
        reason TEXT NOT NULL,
        state TEXT NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'accepted', 'rejected')),
        created_at TEXT NOT NULL,
        decided_by TEXT,
        decided_at TEXT,
        note TEXT,
        UNIQUE (bank_line_id, settlement_id)
      ) STRICT;
      CREATE INDEX statement_proposals_open ON statement_proposals (profile_id, id) WHERE state = 'open';
    `);
  },
};
