import type { Migration } from './index';

// Guarding against paying the same people twice (a batch file uploaded again, a payout typed in
// twice), and a batch's record of the rows its file had but did not send.
//
// payouts.beneficiary_key: who is paid, normalised (shared/payout-destination.ts beneficiaryKey:
// "iban:DE89…", "wallet:ethereum:0x…", "account:401276:12345678", "card:411111…1111"; never a full
// card number). A new payout of the same profile to the same key, amount and currency within the
// configured window is a possible duplicate (services/payments/duplicate-guard.ts); the index
// finds a row's earlier payouts without reading others. Payouts recorded before this version get
// theirs from the request the ledger kept (attempts.request_body) or, for a card, from its card
// facts: the same text beneficiaryKey gives (test/integration/ledger/migration-payout-duplicates.test.ts).
//
// batch_items.duplicate_of: the earlier payouts (JSON) a person confirmed an item may repeat.
// batches.left_out_rows and batch_left_out_rows: the file's rows that were not sent, each with why.
export const beneficiaryKeySql = (detail: (field: string) => string) => `CASE payouts.method
  WHEN 'open_banking' THEN 'iban:' || upper(replace(${detail('iban')}, ' ', ''))
  WHEN 'crypto' THEN 'wallet:' || lower(trim(${detail('network')})) || ':' || lower(replace(${detail('walletAddress')}, ' ', ''))
  WHEN 'fps' THEN 'account:' || replace(replace(${detail('sortCode')}, ' ', ''), '-', '') || ':' || replace(${detail('accountNumber')}, ' ', '')
END`;

export const migration0019: Migration = {
  version: 19,
  name: 'payout_duplicates',
  up: (db) => {
    db.exec(`
      ALTER TABLE payouts ADD COLUMN beneficiary_key TEXT;
      CREATE INDEX payouts_beneficiary ON payouts (profile_id, beneficiary_key, created_at) WHERE beneficiary_key IS NOT NULL;
      ALTER TABLE batch_items ADD COLUMN duplicate_of TEXT;
      ALTER TABLE batches ADD COLUMN left_out_rows INTEGER NOT NULL DEFAULT 0 CHECK (left_out_rows >= 0);
      CREATE TABLE batch_left_out_rows (
        id INTEGER PRIMARY KEY,
        batch_id INTEGER NOT NULL REFERENCES batches (id),
        line INTEGER NOT NULL,
        reason TEXT NOT NULL,
        UNIQUE (batch_id, line)
      ) STRICT;

      UPDATE payouts SET beneficiary_key = (
        SELECT ${beneficiaryKeySql((field) => `json_extract(a.request_body, '$.paymentDetails.${field}')`)}
        FROM attempts a WHERE a.id = payouts.attempt_id AND json_valid(a.request_body)
      ) WHERE method IN ('open_banking', 'crypto', 'fps');
      UPDATE payouts SET beneficiary_key = (SELECT 'card:' || c.bin || '…' || c.last4 FROM payout_cards c WHERE c.payout_row_id = payouts.id)
      WHERE method = 'credit_card';
    `);
  },
};
