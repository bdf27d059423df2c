import type { Migration } from './index';

// On a ledger several instances share (a team server on PostgreSQL), a batch's history names the
// instance that recorded each event (instance_id, instance_host) and, for an interruption found or a
// resume made by Paydesk, the instance that ran the batch before (runner_before_id, _host): the
// same one when it restarted, another when that one died and this one took the batch over. Null on
// a desk and for the events recorded before. PostgreSQL's 0009_batch_event_instances adds the same.
export const migration0021: Migration = {
  version: 21,
  name: 'batch_event_instances',
  up: (db) => {
    db.exec(`
      ALTER TABLE batch_events ADD COLUMN instance_id TEXT;
      ALTER TABLE batch_events ADD COLUMN instance_host TEXT;
      ALTER TABLE batch_events ADD COLUMN runner_before_id TEXT;
      ALTER TABLE batch_events ADD COLUMN runner_before_host TEXT;
    `);
  },
};
