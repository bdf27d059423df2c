// A CSV file read as a stream: its bytes parsed by csv-parse as they come (decoded first, by the
// platform's TextDecoder streaming, when the encoding is not UTF-8), each record with the file's
// line it ends on, handed on a chunk's records at a time. Nothing holds the whole file: a million
// lines pass through in chunks. Malformed CSV (an unclosed quote, a row with another number of
// cells than the header, a record beyond 1 MiB) is a StatementFileError naming its line.
import { CsvError, parse } from 'csv-parse';
import { parse as parseSync } from 'csv-parse/sync';
import { DELIMITERS, type Delimiter } from '../../../shared/statement-layout';
import { StatementFileError } from './file-kind';

/** The largest record csv-parse keeps: beyond it a quote was surely left open. */
const MAX_RECORD_BYTES = 1024 * 1024;

export interface CsvRecord {
  /** The file's line the record ends on (the header is line 1). */
  line: number;
  cells: string[];
}

/** What csv-parse says, in a person's words. */
function describeCsvError(error: CsvError): string {
  switch (error.code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return 'a quote opened here is never closed';
    case 'CSV_INVALID_CLOSING_QUOTE':
    case 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE':
      return 'a quoted cell is followed by something other than a delimiter';
    case 'CSV_MAX_RECORD_SIZE':
      return 'a row longer than 1 MiB (a quote left open?)';
    default:
      return `malformed CSV: ${error.message}`;
  }
}

function lineOf(error: CsvError): number | null {
  const lines = (error as CsvError & { lines?: unknown }).lines;
  return typeof lines === 'number' ? lines : null;
}

/** Text from bytes, decoded as they come; a BOM of the encoding is dropped. */
async function* decoded(bytes: AsyncIterable<Uint8Array>, encoding: string): AsyncGenerator<string> {
  const decoder = new TextDecoder(encoding);
  for await (const chunk of bytes) {
    const text = decoder.decode(chunk, { stream: true });
    if (text !== '') yield text;
  }
  const rest = decoder.decode();
  if (rest !== '') yield rest;
}

const UTF8 = new Set(['utf-8', 'utf8']);

/**
 * Every record of the file, the header first, in order, with the line it ends on, handed on in
 * batches: the records of each chunk of the file (one await per chunk, not per record). UTF-8 goes
 * to csv-parse as bytes (it decodes each cell; a byte that is not UTF-8 becomes U+FFFD, which the
 * reading of a cell refuses); any other encoding is decoded first. Lines are counted here, not by
 * csv-parse's per-record info (a third of its time): each record is one line plus the line breaks
 * inside its quoted cells, and an empty line (a record of one empty cell) is counted and skipped.
 * A row with another number of cells than the header is refused with its line; malformed CSV is
 * refused once the records before it have been handed on.
 */
export async function* csvBatches(bytes: AsyncIterable<Uint8Array>, options: { encoding: string; delimiter: Delimiter }): AsyncGenerator<CsvRecord[]> {
  const text = UTF8.has(options.encoding.toLowerCase()) ? bytes : decoded(bytes, options.encoding);
  const parser = parse({ delimiter: options.delimiter, bom: true, relax_column_count: true, max_record_size: MAX_RECORD_BYTES });
  let parsed: string[][] = [];
  parser.on('data', (cells: string[]) => parsed.push(cells));
  // Its error is read from parser.errored, set as the write that meets it returns.
  parser.on('error', () => {});
  const ended = new Promise<void>((resolve) => parser.once('end', resolve).once('close', resolve));
  // Flowing before the first write: each record is handed to 'data' as it is parsed, not buffered.
  parser.resume();
  await new Promise<void>((resolve) => setImmediate(resolve));
  let line = 0;
  let width: number | null = null;
  /** The records parsed since the last batch, numbered and checked. */
  const batch = (): CsvRecord[] => {
    const records: CsvRecord[] = [];
    for (const cells of parsed) {
      line += 1;
      for (const cell of cells) if (cell.includes('\n')) line += cell.split('\n').length - 1;
      if (cells.length === 1 && cells[0] === '') continue;
      width ??= cells.length;
      if (cells.length !== width) throw new StatementFileError(line, `this row has another number of cells than the header (${cells.length}, not ${width})`);
      records.push({ line, cells });
    }
    parsed = [];
    return records;
  };
  const failed = () => {
    const error = parser.errored;
    if (error === null) return;
    throw error instanceof CsvError ? new StatementFileError(lineOf(error), describeCsvError(error)) : error;
  };
  try {
    for await (const chunk of text) {
      parser.write(chunk);
      const records = batch();
      if (records.length > 0) yield records;
      failed();
    }
    parser.end();
    await ended;
    const records = batch();
    if (records.length > 0) yield records;
    failed();
  } finally {
    parser.destroy();
  }
}

/**
 * The delimiter of a CSV head: the one csv-parse reads into the same number of cells (more than
 * one) on every complete line of the head, the most cells winning; a comma when none does.
 */
export function delimiterOf(text: string): Delimiter {
  // The head may end mid-line (and mid-quote): only its complete lines are read.
  // A file ending in an empty CRLF line leaves its "\r" after the last "\n": a line of one empty cell.
  const complete = text
    .slice(0, Math.max(0, text.lastIndexOf('\n')))
    .split(/\r?\n/)
    .slice(0, 50)
    .join('\n')
    .replace(/\r$/, '');
  let best: { delimiter: Delimiter; cells: number } | undefined;
  for (const delimiter of DELIMITERS) {
    try {
      const rows = parseSync(complete, { delimiter, skip_empty_lines: true, relax_column_count: false }) as string[][];
      const cells = rows[0]?.length ?? 0;
      if (cells > 1 && (!best || cells > best.cells)) best = { delimiter, cells };
    } catch {
      // Not this delimiter: the rows disagree, or a quote does not close.
    }
  }
  return best?.delimiter ?? ',';
}

/**
 * The first records of a CSV head (header first), at most `max`; the last, possibly cut, line is
 * left out. A head malformed further down shows the rows before its fault (the import names it).
 */
export function headRecords(text: string, delimiter: Delimiter, max: number): string[][] {
  const cut = text.lastIndexOf('\n');
  const lines = (cut < 0 ? text : text.slice(0, cut)).replace(/\r$/, '').split('\n').slice(0, max + 20);
  const read = (count: number) => (parseSync(lines.slice(0, count).join('\n'), { delimiter, skip_empty_lines: true, relax_column_count: true }) as string[][]).slice(0, max);
  try {
    return read(lines.length);
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    // The longest run of lines before the fault that reads (a quote left open is found only at the end).
    for (let count = Math.min(lines.length, lineOf(error) ?? lines.length) - 1; count >= 2; count--) {
      try {
        return read(count);
      } catch {
        // a shorter run, then
      }
    }
    throw new StatementFileError(lineOf(error), describeCsvError(error));
  }
}
