import type { Migration } from './index';
import { keysetPageIndexes } from './keyset-indexes';

// Attempts, pay-ins, payouts and vaulted card tokens.
// attempts.request_body is the sanitized request (card number masked, CVV / JWT removed);
// replayable = 1 when that is the exact request, so a resume after a restart can re-send it.
// payins / payouts: status_changed_at is when status_code last moved; verified_against is the
// status we held when the last status read came back (a read taken before the status moved
// proves nothing about it); conflict is a contradiction of a final result, kept forever.
// Amounts are canonical decimal TEXT (never REAL); status codes are TEXT because payout codes are
// strings and an unknown code must be kept exactly as the gateway sent it.
// Times are ISO-8601 UTC with milliseconds (fixed width), so text order is time order.
// The columns pay-ins and payouts share, each written once (the text of every statement is as it was).
/** What was asked for, and the status the gateway gave it. */
const ORDER_AND_STATUS = `method TEXT NOT NULL,
        amount TEXT NOT NULL,
        currency TEXT NOT NULL,
        email TEXT NOT NULL COLLATE NOCASE,
        status_code TEXT,
        status_category TEXT,
        final INTEGER NOT NULL DEFAULT 0 CHECK (final IN (0, 1)),
        reason_code TEXT,
        status_changed_at TEXT`;
/** When the gateway made it, the attempt that created it, and what notifications and status reads said of it. */
const GATEWAY_AND_CHECKS = `gateway_created_at TEXT,
        attempt_id INTEGER REFERENCES attempts (id),
        last_notified_status TEXT,
        last_notified_at TEXT,
        last_verified_status TEXT,
        last_verified_at TEXT,
        verified_against TEXT,
        conflict TEXT,
        mismatch INTEGER NOT NULL DEFAULT 0 CHECK (mismatch IN (0, 1)),
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL`;

export const migration0003: Migration = {
  version: 3,
  name: 'payments',
  up: (db) => {
    db.exec(`
      CREATE TABLE attempts (
        id INTEGER PRIMARY KEY,
        profile_id TEXT NOT NULL REFERENCES profiles (id),
        kind TEXT NOT NULL CHECK (kind IN ('payin', 'payout', 'tokenization', 'token_charge')),
        idempotency_key TEXT NOT NULL UNIQUE,
        reference TEXT NOT NULL,
        request_hash TEXT NOT NULL,
        request_body TEXT NOT NULL,
        replayable INTEGER NOT NULL DEFAULT 0 CHECK (replayable IN (0, 1)),
        state TEXT NOT NULL CHECK (state IN ('prepared', 'sending', 'succeeded', 'rejected', 'unknown')),
        try_count INTEGER NOT NULL DEFAULT 0,
        http_status INTEGER,
        response_body TEXT,
        response_source TEXT CHECK (response_source IN ('create', 'status_read')),
        error TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        last_sent_at TEXT,
        completed_at TEXT
      ) STRICT;
      CREATE INDEX attempts_reference ON attempts (reference, profile_id);
      CREATE INDEX attempts_unresolved ON attempts (state, profile_id) WHERE state IN ('prepared', 'sending', 'unknown');

      CREATE TABLE payins (
        id INTEGER PRIMARY KEY,
        profile_id TEXT NOT NULL REFERENCES profiles (id),
        kind TEXT NOT NULL CHECK (kind IN ('payin', 'tokenization', 'token_charge')),
        request_id TEXT NOT NULL,
        payin_id TEXT,
        ${ORDER_AND_STATUS},
        redirect_url TEXT,
        ${GATEWAY_AND_CHECKS}
      ) STRICT;

      CREATE TABLE payouts (
        id INTEGER PRIMARY KEY,
        profile_id TEXT NOT NULL REFERENCES profiles (id),
        merchant_reference TEXT NOT NULL,
        payout_id TEXT,
        ${ORDER_AND_STATUS},
        ${GATEWAY_AND_CHECKS}
      ) STRICT;
    `);
    for (const [table, reference, gatewayId] of [
      ['payins', 'request_id', 'payin_id'],
      ['payouts', 'merchant_reference', 'payout_id'],
    ] as const) {
      db.exec(`
        -- Lookups by reference, gateway id and e-mail (the leading column serves the lookup alone).
        CREATE UNIQUE INDEX ${table}_reference ON ${table} (${reference}, profile_id);
        CREATE UNIQUE INDEX ${table}_gateway_id ON ${table} (${gatewayId}, profile_id);
        CREATE INDEX ${table}_email ON ${table} (email, created_at, id);
        -- Newest-first keyset pages on (created_at, id), alone or behind one equality filter.
        ${keysetPageIndexes(table)}
        -- Small partial indexes: the reconciliation list and the sweep of non-final items.
        CREATE INDEX ${table}_mismatch ON ${table} (created_at, id) WHERE mismatch = 1;
        CREATE INDEX ${table}_open ON ${table} (created_at, id) WHERE final = 0;

        -- Defence in depth for the one rule that must never break: a final status is final.
        CREATE TRIGGER ${table}_final_is_final BEFORE UPDATE OF status_code, final ON ${table}
        WHEN OLD.final = 1 AND (NEW.final = 0 OR NEW.status_code IS NOT OLD.status_code)
        BEGIN SELECT RAISE(ABORT, '${table}: a final status never changes'); END;
      `);
    }
    db.exec(`
      -- Metadata only. The CHECKs make it impossible to store more than first 6 / last 4 digits.
      CREATE TABLE card_tokens (
        id INTEGER PRIMARY KEY,
        profile_id TEXT NOT NULL REFERENCES profiles (id),
        token_ref TEXT NOT NULL,
        brand TEXT,
        bin TEXT CHECK (bin IS NULL OR (length(bin) = 6 AND bin NOT GLOB '*[^0-9]*')),
        last4 TEXT CHECK (last4 IS NULL OR (length(last4) = 4 AND last4 NOT GLOB '*[^0-9]*')),
        exp_month TEXT,
        exp_year TEXT,
        payin_id TEXT,
        request_id TEXT,
        state TEXT NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'revoked')),
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (token_ref, profile_id)
      ) STRICT;
      CREATE INDEX card_tokens_profile ON card_tokens (profile_id, created_at, id);
    `);
  },
};
