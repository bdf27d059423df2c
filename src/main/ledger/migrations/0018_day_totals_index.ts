import type { Migration } from './index';

// Reconciliation totals group by UTC day, currency, method and status. The covering index of 0006
// led with created_at, so within a day its rows came in time order and SQLite sorted every row of
// the range in a temporary B-tree to group them (two thirds of the totals' time on a million
// pay-ins). Led by the day itself, the index hands the rows over already grouped: one pass, no sort.
// created_at stays in it, last, so the day read back and the range are answered from the index
// alone. Nothing else reads the old index (the lists use the (created_at, id) ones).
export const migration0018: Migration = {
  version: 18,
  name: 'day_totals_index',
  up: (db) => {
    for (const table of ['payins', 'payouts'] as const) {
      db.exec(`
        DROP INDEX ${table}_totals;
        CREATE INDEX ${table}_day_totals ON ${table} (substr(created_at, 1, 10), currency, method, status_code, amount, profile_id, created_at);
      `);
    }
  },
};
