// The indexes behind the pay-in and payout lists, the same on both engines (SQLite's 0003,
// PostgreSQL's 0001): newest-first keyset pages on (created_at, id), alone or behind one equality filter.
export const keysetPageIndexes = (table: string): string =>
  [
    `CREATE INDEX ${table}_created ON ${table} (created_at, id);`,
    `CREATE INDEX ${table}_profile_created ON ${table} (profile_id, created_at, id);`,
    `CREATE INDEX ${table}_status_created ON ${table} (status_code, created_at, id);`,
    `CREATE INDEX ${table}_status_method_created ON ${table} (status_code, method, created_at, id);`,
    `CREATE INDEX ${table}_category_created ON ${table} (status_category, created_at, id);`,
    `CREATE INDEX ${table}_method_created ON ${table} (method, created_at, id);`,
    `CREATE INDEX ${table}_currency_created ON ${table} (currency, created_at, id);`,
  ].join('\n');
