// CSV files for spreadsheets (RFC 4180 through csv-stringify): a header row, fields quoted when
// they hold a comma, a quote or a line break, and every text cell that a spreadsheet would run as a
// formula (leading = + - @, tab, carriage return) prefixed with ' (OWASP "CSV injection"). Text
// cells go through the shared masker's safety net, so a card number never reaches a file; cells
// of exact columns (ids, references, keys, amounts) are written byte for byte.
import { stringify } from 'csv-stringify/sync';
import { maskPansIn } from '../../../shared/redact';

export interface CsvColumn<T> {
  header: string;
  value: (row: T) => string | number | boolean | null;
  /** An id, reference, key, amount, code or time: never a card number, kept exactly as the ledger has it. */
  exact?: true;
}

/** `header: false` writes rows only, so a long export can be written page by page. */
export function toCsv<T>(rows: readonly T[], columns: readonly CsvColumn<T>[], { header = true }: { header?: boolean } = {}): string {
  const records = rows.map((row) =>
    columns.map((column) => {
      const value = column.value(row);
      if (value === null) return '';
      return typeof value === 'string' && !column.exact ? maskPansIn(value) : String(value);
    }),
  );
  return stringify(records, { header, columns: columns.map((c) => c.header), escape_formulas: true, record_delimiter: '\r\n', bom: false });
}
