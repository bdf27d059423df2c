import type { Migration } from './index';

// Payout limits and CSV payout batches (finance).
//
// payout_limits: per currency, for one environment or for every one ('any'). Amounts are
// canonical decimal TEXT; NULL means "no limit of this kind". Every payout must satisfy every
// rule that matches its currency and its profile's environment.
//
// batches / batch_items: a batch is written whole before anything is sent, so it can resume
// after the app is closed or killed. An item moves forward only:
//   pending → sending (its attempt prepared: the Idempotency-Key is written in the same
//   transaction as the attempt) → sent | refused | unknown;  pending → refused | cancelled.
// An item with a key is only ever settled under that key, never sent again under a new one.
// merchant_reference is fixed when the item is written, so the payout row can be found from it.
// form holds the payout's fields (no card data: card payouts are not batched, card numbers are
// never stored).
export const migration0007: Migration = {
  version: 7,
  name: 'payout_batches',
  up: (db) => {
    db.exec(`
      CREATE TABLE payout_limits (
        id INTEGER PRIMARY KEY,
        environment TEXT NOT NULL CHECK (environment IN ('any', 'local', 'live')),
        currency TEXT NOT NULL CHECK (length(currency) = 3 AND currency = upper(currency)),
        per_payout_max TEXT,
        daily_max TEXT,
        updated_at TEXT NOT NULL,
        CHECK (per_payout_max IS NOT NULL OR daily_max IS NOT NULL),
        UNIQUE (environment, currency)
      ) STRICT;

      CREATE TABLE batches (
        id INTEGER PRIMARY KEY,
        profile_id TEXT NOT NULL REFERENCES profiles (id),
        environment TEXT NOT NULL,
        file_name TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('draft', 'running', 'paused', 'cancelled', 'done')),
        declared_rows INTEGER NOT NULL CHECK (declared_rows > 0),
        last_error TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        started_at TEXT,
        finished_at TEXT
      ) STRICT;
      CREATE INDEX batches_created ON batches (created_at, id);
      CREATE INDEX batches_open ON batches (id) WHERE state IN ('draft', 'running', 'paused');

      CREATE TABLE batch_items (
        id INTEGER PRIMARY KEY,
        batch_id INTEGER NOT NULL REFERENCES batches (id),
        line INTEGER NOT NULL,
        merchant_reference TEXT NOT NULL,
        method TEXT NOT NULL,
        amount TEXT NOT NULL,
        currency TEXT NOT NULL,
        beneficiary TEXT NOT NULL,
        destination TEXT NOT NULL,
        form TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('pending', 'sending', 'sent', 'refused', 'unknown', 'cancelled')),
        idempotency_key TEXT UNIQUE,
        payout_row_id INTEGER REFERENCES payouts (id),
        error TEXT,
        updated_at TEXT NOT NULL,
        CHECK (state IN ('pending', 'cancelled', 'refused') OR idempotency_key IS NOT NULL),
        UNIQUE (batch_id, line),
        UNIQUE (batch_id, merchant_reference)
      ) STRICT;
      CREATE INDEX batch_items_state ON batch_items (batch_id, state, line);
      CREATE INDEX batch_items_payout ON batch_items (payout_row_id) WHERE payout_row_id IS NOT NULL;

      -- An item never goes back: once it holds a key it keeps it, and a settled item stays settled.
      CREATE TRIGGER batch_items_forward_only BEFORE UPDATE ON batch_items
      WHEN (OLD.idempotency_key IS NOT NULL AND NEW.idempotency_key IS NOT OLD.idempotency_key)
        OR (OLD.state IN ('sent', 'refused', 'cancelled') AND NEW.state IS NOT OLD.state)
        OR (OLD.state IN ('sending', 'unknown') AND NEW.state IN ('pending', 'cancelled'))
      BEGIN SELECT RAISE(ABORT, 'batch_items: an item only moves forward'); END;
    `);
  },
};
