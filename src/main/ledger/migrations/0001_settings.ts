import type { Migration } from './index';

export const migration0001: Migration = {
  version: 1,
  name: 'settings',
  up: (db) => {
    db.exec(`
      CREATE TABLE settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL,
        updated_at TEXT NOT NULL
      ) STRICT;
    `);
  },
};
