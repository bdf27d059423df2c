// A payout file as the batch screen reads it: the bytes decoded in the encoding they were saved
// in (found with chardet, changeable), every row named by the file's own line, and each refused
// amount shown as typed with a problem a person understands. A name that was lost or garbled on
// the way in is a problem of its row, never OK.
import { describe, expect, it } from 'vitest';
import { guessMapping, parseCsvBytes, parseCsvText, previewAmount, rowState, validateRows, type CsvFile, type ParsedCsv } from '../../../src/renderer/features/payouts/csv';
import { decodeBytes, detectEncoding } from '../../../src/shared/file-encoding';
import { payoutProblems } from '../../../src/renderer/features/payouts/validate';
import { countOf } from '../../../src/renderer/components/count';

const HEADER = 'method,amount,currency,country,firstName,lastName,email,iban,bic,accountHolder';
const row = (first: string, last: string, amount = '25.00') => `open_banking,${amount},EUR,DEU,${first},${last},jose@example.com,DE89370400440532013000,COBADEFFXXX,${first} ${last}`;
const text = `${HEADER}\r\n${row('José', 'Müller')}\r\n${row('Anna', 'Öberg', '10.00')}\r\n`;

const file = (bytes: Uint8Array | Buffer): CsvFile => {
  const view = new Uint8Array(bytes);
  return { fileName: 'payouts.csv', bytes: view, detected: detectEncoding(view) };
};
const check = (csv: ParsedCsv) => validateRows(csv, guessMapping(csv.headers), { environment: 'local', limits: null }, () => {}, new AbortController().signal);

describe('the encoding of a payout file', () => {
  const utf16 = (le: boolean) => {
    const body = Buffer.from(text, 'utf16le');
    if (!le) body.swap16();
    return Buffer.concat([Buffer.from(le ? [0xff, 0xfe] : [0xfe, 0xff]), body]);
  };
  const encodings: [string, Buffer, string, boolean][] = [
    ['Windows-1252 (é is the byte 0xE9)', Buffer.from(text, 'latin1'), 'windows-1252', false],
    ['UTF-8 without a BOM', Buffer.from(text, 'utf8'), 'utf-8', false],
    ['UTF-8 with a BOM', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')]), 'utf-8', true],
    ['UTF-16 little-endian', utf16(true), 'utf-16le', true],
    ['UTF-16 big-endian', utf16(false), 'utf-16be', true],
  ];

  it.each(encodings)('finds %s and reads the names whole', async (_name, bytes, encoding, bom) => {
    const chosen = file(bytes);
    expect(chosen.detected).toEqual({ encoding, bom });
    const csv = parseCsvBytes(chosen);
    expect(csv.encoding).toBe(encoding);
    expect(csv.headers[0]).toBe('method');
    expect(csv.rows.map((r) => `${r.cells[4]} ${r.cells[5]}`)).toEqual(['José Müller', 'Anna Öberg']);
    expect((await check(csv)).map((r) => [r.form.paymentDetails?.accountHolder, rowState(r, new Set())])).toEqual([
      ['José Müller', 'ok'],
      ['Anna Öberg', 'ok'],
    ]);
  });

  it('marks a name read in the wrong encoding as a problem of its row, never OK', async () => {
    // A Windows-1252 file read as UTF-8: é and ü are bytes UTF-8 cannot read (U+FFFD).
    const lost = await check(parseCsvBytes(file(Buffer.from(text, 'latin1')), 'utf-8'));
    expect(lost[0]?.form.paymentDetails?.accountHolder).toBe('Jos\ufffd M\ufffdller');
    expect(rowState(lost[0]!, new Set())).toBe('problem');
    expect(Object.keys(lost[0]!.problems).sort()).toEqual(['customer.firstName', 'customer.lastName', 'paymentDetails.accountHolder']);
    expect(lost[0]!.problems['paymentDetails.accountHolder']).toMatch(/could not be read.*choose its encoding in the mapping step/);
    // A UTF-8 file read as Windows-1252: "JosÃ© MÃ¼ller", no U+FFFD, and still no name.
    const garbled = await check(parseCsvBytes(file(Buffer.from(text, 'utf8')), 'windows-1252'));
    expect(garbled[0]?.form.paymentDetails?.accountHolder).toBe('JosÃ© MÃ¼ller');
    expect(rowState(garbled[0]!, new Set())).toBe('problem');
    expect(garbled[0]!.problems['paymentDetails.accountHolder']).toMatch(/looks garbled/);
    // The person picks the right one: the rows are whole again.
    expect((await check(parseCsvBytes(file(Buffer.from(text, 'latin1')), 'windows-1252'))).every((r) => rowState(r, new Set()) === 'ok')).toBe(true);
  });

  it('decodes with the platform: a byte order mark is dropped, an unreadable byte becomes U+FFFD', () => {
    expect(decodeBytes(new Uint8Array([0xef, 0xbb, 0xbf, 0x41]), 'utf-8')).toBe('A');
    expect(decodeBytes(new Uint8Array([0x4a, 0xe9]), 'utf-8')).toBe('J\ufffd');
  });
});

describe("a row's line number", () => {
  it('is the line of the file it starts on, past blank lines, multi-line quoted cells and the header', () => {
    const csv = parseCsvText(
      'lines.csv',
      ['', HEADER, row('A', 'One'), '', '   ', row('B', 'Two'), `open_banking,1.00,EUR,DEU,C,"Three`, `and a half",c@example.com,DE89370400440532013000,COBADEFFXXX,C Three`, '', row('D', 'Four')].join('\r\n'),
    );
    // Line 1 is blank, the header is line 2.
    expect(csv.rows.map((r) => [r.line, r.cells[4]])).toEqual([
      [3, 'A'],
      [6, 'B'],
      [7, 'C'],
      [10, 'D'],
    ]);
    // LF and CR line ends count as the parser reads them.
    expect(parseCsvText('lf.csv', `${HEADER}\n\n${row('A', 'One')}\n${row('B', 'Two')}`).rows.map((r) => r.line)).toEqual([3, 4]);
    expect(parseCsvText('cr.csv', `${HEADER}\r\r${row('A', 'One')}\r${row('B', 'Two')}`).rows.map((r) => r.line)).toEqual([3, 4]);
  });

  it('names the line of a broken quote', () => {
    expect(() => parseCsvText('q.csv', `${HEADER}\n\n${row('A', 'One')}\n\n"open_banking,1.00,EUR\n`)).toThrow(/^Line 5: .*Check the quotes/);
  });
});

describe('an amount the check refuses', () => {
  it('is shown as typed beside a problem that says what is wrong, in the renderer and in every form', async () => {
    const csv = parseCsvText('amounts.csv', [HEADER, row('A', 'One', '1e3'), row('B', 'Two', '-5'), row('C', 'Three', '"10,50"'), row('D', 'Four', '1234.5')].join('\n'));
    const rows = await check(csv);
    expect(rows.map((r) => [r.problems.amount ?? null, previewAmount(r)])).toEqual([
      ['must be written out in digits, such as 1000 or 10.50, not as 1e3', { text: '1e3 EUR', typed: true }],
      ['must be above 0', { text: '-5 EUR', typed: true }],
      ['must use a dot before the decimals and no thousands separators, such as 1000.50', { text: '10,50 EUR', typed: true }],
      [null, { text: '1,234.50 EUR', typed: false }],
    ]);
    // The manual form says the same.
    expect(payoutProblems({ method: 'fps', amount: '-5' }).amount).toBe('must be above 0');
    expect(payoutProblems({ method: 'fps', amount: '0' }).amount).toBe('must be above 0');
  });
});

describe('counts in words', () => {
  it('says one row, and groups thousands as the locale does', () => {
    expect(countOf(1, 'row', 'rows')).toBe('1 row');
    expect(countOf(10_000, 'row', 'rows')).toBe(`${(10_000).toLocaleString()} rows`);
  });
});
