import type { Migration } from './index';

// A staged settlement line's occurrence among its file's lines of the same natural key, when the
// import knows it (docs/performance.md, "Statements import"): the import stages 1 for a key it has
// not seen before in the file, and the commit counts only the lines of the keys that may repeat,
// where it sorted every line of the file by its key before. Null for a line staged without one
// (staged by Paydesk before this step, or whose key may repeat): the commit counts those.
// PostgreSQL's 0014_staged_occurrence adds the same column.
export const migration0026: Migration = {
  version: 26,
  name: 'staged_occurrence',
  up: (db) => {
    db.exec('ALTER TABLE settlement_staging ADD COLUMN occurrence INTEGER');
  },
};
