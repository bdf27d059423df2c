import type { Migration } from './index';

// Settling what the gateway may not tell us by itself.
//
// attempts.settle_note / settle_tried_at: what the last automatic try to settle an unknown
// attempt found (start-up, the sweep, "Settle what can be settled"): settled, not at the gateway,
// rate limited, or left for a person (a card attempt needs its card data again; a live payout is
// resent only after its review). Shown on the transaction and in the Unknown outcomes list.
//
// payins / payouts.notify_unreachable: the notification link a transaction was sent with, when a
// remote gateway cannot post to it (a sandbox or live profile with a loopback address): its
// notifications cannot arrive, so its status is polled instead. Kept per row because the link is
// the one sent at creation; a later public URL does not reach the gateway for it. Rows already
// open at the upgrade are found from their create attempt's stored request.
const LOOPBACK_LINK = (column: string) =>
  ['http://127.%', 'https://127.%', 'http://localhost%', 'https://localhost%', 'http://[::1]%', 'https://[::1]%', 'http://0.0.0.0%', 'https://0.0.0.0%']
    .map((pattern) => `${column} LIKE '${pattern}'`)
    .join(' OR ');

export const migration0009: Migration = {
  version: 9,
  name: 'settling',
  up: (db) => {
    db.exec(`
      ALTER TABLE attempts ADD COLUMN settle_note TEXT;
      ALTER TABLE attempts ADD COLUMN settle_tried_at TEXT;
    `);
    for (const [table, linkPath] of [
      ['payins', "coalesce(json_extract(a.request_body, '$.notification_link'), json_extract(a.request_body, '$.tokenization_notification_url'))"],
      ['payouts', "json_extract(a.request_body, '$.notificationUrl')"],
    ] as const) {
      db.exec(`
        ALTER TABLE ${table} ADD COLUMN notify_unreachable TEXT;
        -- The status poller's queue: open rows whose notifications cannot arrive.
        CREATE INDEX ${table}_polled ON ${table} (created_at, id) WHERE final = 0 AND notify_unreachable IS NOT NULL;
        UPDATE ${table} AS t SET notify_unreachable = (
          SELECT ${linkPath} FROM attempts AS a WHERE a.id = t.attempt_id AND json_valid(a.request_body)
        )
        WHERE t.final = 0
          AND t.profile_id IN (SELECT id FROM profiles WHERE environment <> 'local')
          AND EXISTS (SELECT 1 FROM attempts AS a WHERE a.id = t.attempt_id AND json_valid(a.request_body) AND (${LOOPBACK_LINK(linkPath)}));
      `);
    }
  },
};
