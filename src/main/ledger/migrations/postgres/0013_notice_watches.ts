import type { PostgresMigration } from './index';

// SQLite's 0025_notice_watches: the addresses each person signed in from (taken over from the
// audit log's sign-ins), the decline rates told as high, and the index of final rows by profile,
// method and time their window is counted by.
export const postgres0013: PostgresMigration = {
  version: 13,
  name: 'notice_watches',
  sql: `
    CREATE TABLE team_sign_in_addresses (
      user_id TEXT COLLATE "C" NOT NULL,
      address TEXT COLLATE "C" NOT NULL,
      first_at TEXT COLLATE "C" NOT NULL,
      last_at TEXT COLLATE "C" NOT NULL,
      PRIMARY KEY (user_id, address)
    );
    INSERT INTO team_sign_in_addresses (user_id, address, first_at, last_at)
      SELECT user_id, address, min(at), max(at) FROM (
        SELECT u.id AS user_id, CASE WHEN a.details LIKE '{%' THEN a.details::jsonb ->> 'address' END AS address, a.at
        FROM audit_log a JOIN team_users u ON u.username = a.subject
        WHERE a.action = 'team.sign-in'
      ) signed_in
      WHERE address IS NOT NULL
      GROUP BY user_id, address;

    CREATE TABLE decline_rate_alerts (
      kind TEXT COLLATE "C" NOT NULL CHECK (kind IN ('payin', 'payout')),
      profile_id TEXT COLLATE "C" NOT NULL,
      method TEXT COLLATE "C" NOT NULL,
      high INTEGER NOT NULL CHECK (high IN (0, 1)),
      changed_at TEXT COLLATE "C" NOT NULL,
      checked_at TEXT COLLATE "C" NOT NULL,
      PRIMARY KEY (kind, profile_id, method)
    );

    CREATE INDEX payins_final_by_method ON payins (profile_id, method, status_changed_at, status_category) WHERE final = 1;
    CREATE INDEX payouts_final_by_method ON payouts (profile_id, method, status_changed_at, status_category) WHERE final = 1;
  `,
};
