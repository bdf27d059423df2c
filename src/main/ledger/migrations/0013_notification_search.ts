import type { Migration } from './index';

// The webhook inspector's search: the notifications naming a reference that starts with what was
// typed (payin_id / payout_id in transaction_ref, request_id / merchantReference in request_ref),
// one index range scan per column, on a table that holds millions of rows with bodies up to
// 256 KiB. Like the duplicate lookup's index (0008), these hold processed rows only: a pending
// row's insert, the listener's hot path in a burst, writes neither; the applier adds the entries
// when it settles the notification, and the search reads the few pending rows by their own index.
export const migration0013: Migration = {
  version: 13,
  name: 'notification_search',
  up: (db) => {
    db.exec(`
      CREATE INDEX notifications_transaction_ref ON notifications (transaction_ref) WHERE outcome <> 'pending';
      CREATE INDEX notifications_request_ref ON notifications (request_ref) WHERE outcome <> 'pending';
    `);
  },
};
