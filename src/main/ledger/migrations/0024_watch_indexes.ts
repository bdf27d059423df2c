import type { Migration } from './index';

// The watches (services/notices/watches.ts, docs/notifications.md "Watches") ask, each round and
// again in the transaction that tells: was this already told (a notice of this kind about this
// subject, since a time), and when did this profile last hear from the gateway (its newest
// notification). Two indexes answer them without reading the tables through.
// PostgreSQL's 0012_watch_indexes makes the same.
export const migration0024: Migration = {
  version: 24,
  name: 'watch_indexes',
  up: (db) => {
    db.exec(`
      CREATE INDEX notices_told ON notices (kind, subject, created_at);
      CREATE INDEX notifications_profile_received ON notifications (profile_id, received_at);
    `);
  },
};
