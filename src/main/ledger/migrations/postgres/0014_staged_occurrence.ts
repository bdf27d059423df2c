import type { PostgresMigration } from './index';

// SQLite's 0026_staged_occurrence: a staged settlement line's occurrence among its file's lines of
// its natural key, when the import knows it (null: the commit counts it).
export const postgres0014: PostgresMigration = {
  version: 14,
  name: 'staged_occurrence',
  sql: 'ALTER TABLE settlement_staging ADD COLUMN occurrence INTEGER;',
};
