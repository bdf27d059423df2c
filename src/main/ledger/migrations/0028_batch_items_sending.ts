import type { Migration } from './index';

// The batch items being sent now: counted at every scrape of /metrics
// (paydesk_batch_items_in_flight), and looked for when batches are picked up (at a start, and by
// the instance that takes over a dead one's). Their only index led by the batch, every such
// question read all of batch_items, which grows with every batch ever sent; a partial index holds
// only the few items in flight. PostgreSQL's 0016_batch_items_sending makes the same.
export const migration0028: Migration = {
  version: 28,
  name: 'batch_items_sending',
  up: (db) => {
    db.exec("CREATE INDEX batch_items_sending ON batch_items (batch_id) WHERE state = 'sending';");
  },
};
