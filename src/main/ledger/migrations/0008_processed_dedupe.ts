import type { Migration } from './index';

// The duplicate lookups (`firstWithSameKey`, `laterDuplicates`) only ever look among processed
// notifications: anything but pending or malformed. Indexing only those keeps a pending row's
// insert, the listener's hot path in a burst, to the row and the pending queue; the applier adds
// the entry when it settles the notification. Malformed rows, which have no key, leave it too.
export const migration0008: Migration = {
  version: 8,
  name: 'processed_dedupe',
  up: (db) => {
    db.exec(`
      DROP INDEX notifications_dedupe;
      CREATE INDEX notifications_processed_dedupe ON notifications (dedupe_key, profile_id, id)
        WHERE outcome NOT IN ('pending', 'malformed');
    `);
  },
};
