import { cardBrand } from '../../../shared/spec/field-checks';
import type { Migration } from './index';

// The card that paid (or was paid): brand, first 6, last 4 and expiry, never more (the CHECKs
// hold the digits to 6 and 4), recorded with the row at create time: from the form for a card
// pay-in or payout, from the vaulted token for a token charge, whose request names no card. In
// tables of their own: adding a column to a STRICT table makes SQLite check every row, seconds on
// a million pay-ins, and most rows have no card. Rows from before are filled in from what was
// already kept: the masked card number and expiry of their stored create request (pay-ins,
// payouts), the vaulted token of a tokenization; a token charge never recorded which token it
// charged, so its card stays unknown.
//
// A notification older than the status already held keeps outcome 'applied' (that CHECK cannot
// change without copying every body) with stale = 1: it changed nothing, and is shown as such.
// Rows from before are recognised by the words the applier gave them. This one column costs the
// check of every notification once (about 0.7 s per 200,000 on the test machine).
const cardTable = (table: string, column: string, parent: string) => `
  CREATE TABLE ${table} (
    ${column} INTEGER PRIMARY KEY REFERENCES ${parent} (id),
    brand TEXT,
    bin TEXT CHECK (bin IS NULL OR (length(bin) = 6 AND bin NOT GLOB '*[^0-9]*')),
    last4 TEXT CHECK (last4 IS NULL OR (length(last4) = 4 AND last4 NOT GLOB '*[^0-9]*')),
    exp_month TEXT,
    exp_year TEXT
  ) STRICT;
`;

interface StoredCard {
  id: number;
  num: unknown;
  month: unknown;
  year: unknown;
}

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

export const migration0011: Migration = {
  version: 11,
  name: 'cards_and_stale_notifications',
  up: (db) => {
    db.exec(cardTable('payin_cards', 'payin_row_id', 'payins') + cardTable('payout_cards', 'payout_row_id', 'payouts'));

    for (const [table, cards, column, path] of [
      ['payins', 'payin_cards', 'payin_row_id', '$'],
      ['payouts', 'payout_cards', 'payout_row_id', '$.paymentDetails'],
    ] as const) {
      const stored = db
        .prepare(
          `SELECT t.id, json_extract(a.request_body, '${path}.cardNum') AS num, json_extract(a.request_body, '${path}.cardExpireMonth') AS month,
             json_extract(a.request_body, '${path}.cardExpireYear') AS year
           FROM ${table} AS t JOIN attempts AS a ON a.id = t.attempt_id
           WHERE t.method IN ('credit_card', 'credit_card_ftd') AND json_valid(a.request_body)`,
        )
        .all() as StoredCard[];
      const insert = db.prepare(`INSERT INTO ${cards} (${column}, brand, bin, last4, exp_month, exp_year) VALUES (?, ?, ?, ?, ?, ?)`);
      for (const row of stored) {
        // Kept masked ("411111******1111"): its first 6 and last 4 digits are all there is.
        const match = /^(\d{6})\*+(\d{4})$/.exec(text(row.num)?.replace(/[\s-]/g, '') ?? '');
        if (!match) continue;
        const [, bin, last4] = match as unknown as [string, string, string];
        const brand = cardBrand(bin);
        insert.run(row.id, brand === 'unknown' ? null : brand, bin, last4, text(row.month), text(row.year));
      }
    }
    db.exec(`
      INSERT OR IGNORE INTO payin_cards (payin_row_id, brand, bin, last4, exp_month, exp_year)
        SELECT p.id, tok.brand, tok.bin, tok.last4, tok.exp_month, tok.exp_year
        FROM payins AS p JOIN card_tokens AS tok ON tok.request_id = p.request_id AND tok.profile_id = p.profile_id
        WHERE p.kind = 'tokenization';

      ALTER TABLE notifications ADD COLUMN stale INTEGER NOT NULL DEFAULT 0;
      UPDATE notifications SET stale = 1 WHERE outcome = 'applied' AND detail LIKE '%this older news changes nothing';
    `);
  },
};
