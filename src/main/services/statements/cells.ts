// Reading one CSV row through a layout: the cell of each field by its column, and what makes a
// cell an id, an amount, a currency, a date, a direction. A cell that cannot be read is a
// StatementFileError naming the row's line, the column and why.
import { amountText } from '../../../shared/money';
import { clip, parseAmountCell, parseDateCell, parseTimeCell, type CsvLayout } from '../../../shared/statement-layout';
import { StatementFileError } from './file-kind';

/** The longest id or reference kept (the ledger's references are at most 255 characters too). */
const MAX_ID_LENGTH = 255;
const MAX_TEXT_LENGTH = 1000;

/** U+FFFD (a byte the encoding could not read) or a control character. */
// eslint-disable-next-line no-control-regex
const UNREADABLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\uFFFD]/;

/** csv-stringify's formula guard (the emulator's report, Paydesk's own exports) writes a leading ' before these. */
const GUARDED = /^'[=+\-@\t\r]/;

/** Where each field's column is in the rows: header names → indexes, checked against the header. */
export function columnIndexes(header: readonly string[], columns: Record<string, string | undefined>, line = 1): Map<string, number> {
  const indexes = new Map<string, number>();
  const trimmed = header.map((h) => h.trim());
  for (const [field, name] of Object.entries(columns)) {
    if (!name) continue;
    const index = trimmed.indexOf(name.trim());
    if (index < 0) throw new StatementFileError(line, `the header has no column "${clip(name)}" (mapped to ${field}); it has ${trimmed.map((h) => `"${clip(h, 20)}"`).join(', ')}`);
    indexes.set(field, index);
  }
  return indexes;
}

/** The rows of a file, read field by field: one reader per file, moved to each row in turn (`at`). */
export class RowReader {
  private cells: readonly string[] = [];
  /** The file's line the current row ends on. */
  line = 0;

  constructor(
    private readonly indexes: ReadonlyMap<string, number>,
    private readonly header: readonly string[],
    private readonly layout: Pick<CsvLayout, 'decimal' | 'dateFormat'>,
  ) {}

  /** The reader at this row. */
  at(cells: readonly string[], line: number): this {
    this.cells = cells;
    this.line = line;
    return this;
  }

  fail(field: string, reason: string): never {
    const index = this.indexes.get(field);
    const column = index === undefined ? field : `column "${clip(this.header[index] ?? field, 30)}"`;
    throw new StatementFileError(this.line, `${column} ${reason}`);
  }

  /** The cell's text, trimmed; null when the field has no column or the cell is empty. */
  text(field: string, max = MAX_TEXT_LENGTH): string | null {
    const index = this.indexes.get(field);
    if (index === undefined) return null;
    const value = (this.cells[index] ?? '').trim();
    if (value === '') return null;
    if (UNREADABLE.test(value)) {
      this.fail(field, value.includes('\uFFFD') ? 'holds a character its encoding cannot read: choose the encoding the file was saved in' : 'holds a control character');
    }
    if (value.length > max) this.fail(field, `is longer than ${max} characters`);
    return value;
  }

  /** An id or reference, exactly (the formula guard's leading ' taken off). */
  id(field: string): string | null {
    // Read whatever its length (a row is at most 1 MiB), so the limit named is the id's own, not the guard's room.
    const value = this.text(field, Number.POSITIVE_INFINITY);
    if (value === null) return null;
    const id = GUARDED.test(value) ? value.slice(1) : value;
    if (id.length > MAX_ID_LENGTH) this.fail(field, `is longer than ${MAX_ID_LENGTH} characters`);
    return id;
  }

  currency(field: string, fixed?: string): string {
    const value = this.text(field) ?? fixed ?? null;
    if (value === null) return this.fail(field, 'is empty; a currency is needed');
    const code = value.toUpperCase();
    if (!/^[A-Z]{3}$/.test(code)) this.fail(field, `"${clip(value)}" is not a currency code (EUR, USD…)`);
    return code;
  }

  /** A signed amount as plain decimal text; null when empty. */
  amount(field: string): string | null {
    const value = this.text(field);
    if (value === null) return null;
    const parsed = parseAmountCell(value, this.layout.decimal);
    if (!parsed.ok) this.fail(field, parsed.reason);
    return parsed.value;
  }

  date(field: string): string | null {
    const value = this.text(field);
    if (value === null) return null;
    const parsed = parseDateCell(value, this.layout.dateFormat);
    if (!parsed.ok) this.fail(field, parsed.reason);
    return parsed.value;
  }

  time(field: string): string | null {
    const value = this.text(field);
    if (value === null) return null;
    const parsed = parseTimeCell(value, this.layout.dateFormat);
    if (!parsed.ok) this.fail(field, parsed.reason);
    return parsed.value;
  }

  /** credit or debit from a direction column's spelling; null when the field has no value. */
  direction(field: string): 'credit' | 'debit' | null {
    const value = this.text(field);
    if (value === null) return null;
    const word = value.toLowerCase();
    if (['credit', 'c', 'cr', 'crdt', 'h', 'haben', '+', 'in'].includes(word)) return 'credit';
    if (['debit', 'd', 'dr', 'dbit', 's', 'soll', '-', 'out'].includes(word)) return 'debit';
    return this.fail(field, `"${clip(value)}" is neither credit nor debit (C/D, CRDT/DBIT, H/S)`);
  }
}

/** An amount's size and sign: a negative amount is money the other way. */
export function magnitude(value: string): { amount: string; negative: boolean } {
  return value.startsWith('-') ? { amount: value.slice(1), negative: true } : { amount: value, negative: false };
}

/** As its currency writes it (amountText), never below zero. */
export function currencyAmount(value: string, currency: string): string {
  if (value.startsWith('-')) throw new RangeError(`negative amount ${value}`);
  return amountText(value, currency);
}
