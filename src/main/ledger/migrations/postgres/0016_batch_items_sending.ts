import type { PostgresMigration } from './index';

// SQLite's 0028_batch_items_sending: the batch items in flight, found without reading every item.
export const postgres0016: PostgresMigration = {
  version: 16,
  name: 'batch_items_sending',
  sql: `CREATE INDEX batch_items_sending ON batch_items (batch_id) WHERE state = 'sending';`,
};
