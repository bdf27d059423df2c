import type { PostgresMigration } from './index';

// SQLite's 0027_send_reviews: the reviews a live send redeems, honoured by every instance.
export const postgres0015: PostgresMigration = {
  version: 15,
  name: 'send_reviews',
  sql: `
    CREATE TABLE send_reviews (
      id TEXT COLLATE "C" PRIMARY KEY,
      kind TEXT COLLATE "C" NOT NULL,
      profile_id TEXT COLLATE "C" NOT NULL,
      digest TEXT COLLATE "C" NOT NULL,
      key_id TEXT COLLATE "C" NOT NULL,
      expires_at TEXT COLLATE "C" NOT NULL,
      spent_at TEXT COLLATE "C"
    );
    CREATE INDEX send_reviews_expires ON send_reviews (expires_at);
  `,
};
