// What a statement file is, from its first bytes: CSV, camt.053 (XML) or MT940, or a file of
// another kind refused at its first chunk (a spreadsheet, a PDF, an image, anything binary). And
// the encoding its text is in: a byte order mark, valid UTF-8, else chardet's guess
// (shared/file-encoding.ts, the batch upload's rule).
import { detectEncoding, type DetectedEncoding } from '../../../shared/file-encoding';
import type { StatementFormat } from '../../../shared/statement-layout';

export class StatementFileError extends Error {
  constructor(
    /** The file's line the problem is on; null when it is the file as a whole. */
    readonly line: number | null,
    readonly reason: string,
  ) {
    super(line === null ? reason : `line ${line}: ${reason}`);
    this.name = 'StatementFileError';
  }
}

/** Magic numbers of files a person may pick by mistake, and what to call them. */
const OTHER_KINDS: readonly { bytes: readonly number[]; name: string }[] = [
  { bytes: [0x50, 0x4b, 0x03, 0x04], name: 'a ZIP archive or an Excel workbook (.xlsx): save it as CSV first' },
  { bytes: [0xd0, 0xcf, 0x11, 0xe0], name: 'an old Excel workbook (.xls): save it as CSV first' },
  { bytes: [0x25, 0x50, 0x44, 0x46], name: 'a PDF document' },
  { bytes: [0x89, 0x50, 0x4e, 0x47], name: 'a PNG image' },
  { bytes: [0xff, 0xd8, 0xff], name: 'a JPEG image' },
  { bytes: [0x47, 0x49, 0x46, 0x38], name: 'a GIF image' },
  { bytes: [0x1f, 0x8b], name: 'a gzip archive' },
];

const startsWith = (bytes: Uint8Array, prefix: readonly number[]) => prefix.length <= bytes.length && prefix.every((byte, i) => bytes[i] === byte);

/** The encoding of the head of a file; an incomplete UTF-8 sequence cut at its end is not held against UTF-8. */
export function headEncoding(head: Uint8Array, complete: boolean): DetectedEncoding {
  let end = head.length;
  if (!complete) {
    // Back up over a multi-byte sequence the chunk boundary cut (at most 3 bytes).
    let i = end - 1;
    while (i >= 0 && end - i <= 3 && (head[i]! & 0xc0) === 0x80) i--;
    if (i >= 0 && head[i]! >= 0xc0) end = i;
  }
  return detectEncoding(head.subarray(0, end));
}

/**
 * The format of a file from its head (its first bytes, decoded): XML is camt.053's, `{1:` or a
 * `:20:` line MT940's, anything else text CSV. A file whose head is binary is refused, naming what
 * it looks like.
 */
export function formatOf(head: Uint8Array, text: string): StatementFormat {
  const other = OTHER_KINDS.find((k) => startsWith(head, k.bytes));
  if (other) throw new StatementFileError(null, `This file is ${other.name}, not a statement (CSV, camt.053 or MT940).`);
  // UTF-16 text holds NUL bytes; its decoded text does not.
  if (text.includes('\u0000')) throw new StatementFileError(null, 'This file is binary (it holds NUL bytes), not a statement (CSV, camt.053 or MT940).');
  const start = text.replace(/^\uFEFF/, '').trimStart();
  if (start.startsWith('<')) return 'camt053';
  if (start.startsWith('{1:') || /^:20:/m.test(start.slice(0, 4096))) return 'mt940';
  return 'csv';
}
