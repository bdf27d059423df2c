import type { PostgresMigration } from './index';

// SQLite's 0021_batch_event_instances: which instance recorded a batch's event, and which ran the
// batch before it (a takeover names the dead instance and the one that took it over).
export const postgres0009: PostgresMigration = {
  version: 9,
  name: 'batch_event_instances',
  sql: `
    ALTER TABLE batch_events ADD COLUMN instance_id TEXT COLLATE "C";
    ALTER TABLE batch_events ADD COLUMN instance_host TEXT;
    ALTER TABLE batch_events ADD COLUMN runner_before_id TEXT COLLATE "C";
    ALTER TABLE batch_events ADD COLUMN runner_before_host TEXT;
  `,
};
