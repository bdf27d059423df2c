import type { Migration } from './index';

// What the event-driven notices remember (docs/notifications.md "Security events" and "Decline
// rate"), and the index the decline rate is counted by:
// - team_sign_in_addresses: each address a person of a team server signed in from, first and last
//   time; a sign-in that inserts a row for a person who already had one is from a new address. The
//   addresses of the sign-ins already in the audit log are taken over, so the upgrade itself tells
//   nothing.
// - decline_rate_alerts: per kind (payin, payout), profile and method, whether its decline rate is
//   told as high (high = 1) since when, and when it was last counted; told once when it rises to
//   the threshold, again only after it was counted below.
// - <table>_final_by_method: the final rows of a profile's method by the time their status changed,
//   with the category, so a window's finals and declines are counted from the index alone.
// PostgreSQL's 0013_notice_watches makes the same.
export const migration0025: Migration = {
  version: 25,
  name: 'notice_watches',
  up: (db) => {
    db.exec(`
      CREATE TABLE team_sign_in_addresses (
        user_id TEXT NOT NULL,
        address TEXT NOT NULL,
        first_at TEXT NOT NULL,
        last_at TEXT NOT NULL,
        PRIMARY KEY (user_id, address)
      ) STRICT;
      INSERT OR IGNORE INTO team_sign_in_addresses (user_id, address, first_at, last_at)
        SELECT u.id, json_extract(a.details, '$.address'), min(a.at), max(a.at)
        FROM audit_log a JOIN team_users u ON u.username = a.subject
        WHERE a.action = 'team.sign-in' AND json_valid(a.details) AND json_extract(a.details, '$.address') IS NOT NULL
        GROUP BY u.id, json_extract(a.details, '$.address');

      CREATE TABLE decline_rate_alerts (
        kind TEXT NOT NULL CHECK (kind IN ('payin', 'payout')),
        profile_id TEXT NOT NULL,
        method TEXT NOT NULL,
        high INTEGER NOT NULL CHECK (high IN (0, 1)),
        changed_at TEXT NOT NULL,
        checked_at TEXT NOT NULL,
        PRIMARY KEY (kind, profile_id, method)
      ) STRICT;

      CREATE INDEX payins_final_by_method ON payins (profile_id, method, status_changed_at, status_category) WHERE final = 1;
      CREATE INDEX payouts_final_by_method ON payouts (profile_id, method, status_changed_at, status_category) WHERE final = 1;
    `);
  },
};
