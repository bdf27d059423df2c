import type { Migration } from './index';

// The reviews a live send redeems (services/payments/review-gate.ts), kept in the ledger so that
// every instance of a team server honours a review another made: its id, what it covers (kind,
// profile, the keyed digest of the contents, and which key made the digest), when it expires and
// when it was spent. Rows live minutes: each new review deletes the expired ones.
// PostgreSQL's 0015_send_reviews makes the same table.
export const migration0027: Migration = {
  version: 27,
  name: 'send_reviews',
  up: (db) => {
    db.exec(`
      CREATE TABLE send_reviews (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        profile_id TEXT NOT NULL,
        digest TEXT NOT NULL,
        key_id TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        spent_at TEXT
      );
      CREATE INDEX send_reviews_expires ON send_reviews (expires_at);
    `);
  },
};
