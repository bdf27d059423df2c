// Statement files as they come from real sources, and as they go wrong:
// another encoding, delimiter, decimal comma and date format proposed from the file itself; a
// malformed file or a bad cell refuses the whole import with its line and why, and nothing is
// imported; a file of another kind is refused at its first chunk, one over the limit before any
// byte is sent; a cell that would run as a formula leaves in an export with its guard.
import { describe, expect, it } from 'vitest';
import { STATEMENT_LIMITS } from '../../../src/shared/contract/statements';
import { importStatement, stagedPayinLine, uploadStatement } from '../../helpers/statements';
import { useHarness, type Harness } from '../verification/harness';

let h: Harness;
let profileId: string;
useHarness((started, id) => {
  h = started;
  profileId = id;
});

/** Windows-1252 bytes of a text (its characters are all in that code page). */
const windows1252 = (text: string): Uint8Array => Uint8Array.from([...text].map((c) => (c === 'é' ? 0xe9 : c === '€' ? 0x80 : c.charCodeAt(0))));

const lineCount = async () => (await h.call('statements:breaks', { queue: 'unknown_to_ledger', profileId, limit: 500 })).total;

describe('a settlement report from another source', () => {
  it('reads Windows-1252, semicolons, decimal commas with thousands points and D.M.YYYY dates as proposed from the file', async () => {
    const text = [
      'Settlement;Transaction ID;Order ID;Currency;Gross;Commission;Net amount;Value date;Method',
      'S-1;tx-é-1;ord-1;EUR;1.234,56;12,35;1.222,21;31.05.2024;carte bancaire é',
      'S-1;tx-2;ord-2;EUR;0,99;0,01;0,98;31.05.2024;carte',
    ].join('\r\n');
    const uploadId = await uploadStatement(h.call, 'settlement', 'acme.csv', windows1252(text));
    const inspection = await h.call('statements:inspect', { uploadId });
    expect(inspection.layout).toMatchObject({
      encoding: 'windows-1252',
      delimiter: ';',
      decimal: ',',
      dateFormat: 'D.M.YYYY',
      columns: { settlement_id: 'Settlement', payin_id: 'Transaction ID', request_id: 'Order ID', currency: 'Currency', amount: 'Gross', fee: 'Commission', net: 'Net amount', booking_date: 'Value date', method: 'Method' },
    });
    expect(inspection.preview[0]).toContain('tx-é-1');
    const result = await h.call('statements:import', { uploadId, source: 'Acme PSP', layout: inspection.layout! });
    expect(result).toMatchObject({ outcome: 'imported', import: { lines: 2, added: 2 } });
    const settlement = await h.call('statements:settlement', { profileId, settlementId: 'S-1' });
    expect(settlement.settlement).toMatchObject({ gross: '1235.55', fees: '12.36', net: '1223.19', valueDate: '2024-05-31', lines: 2 });
    expect(settlement.lines[0]).toMatchObject({ payinId: 'tx-é-1', amount: '1234.56', fee: '12.35', net: '1222.21', method: 'carte bancaire é' });
  });

  it('reads UTF-8 with a byte order mark: the first header is still its name', async () => {
    const text = '\uFEFFsettlement_id,payin_id,currency,amount,fee\r\nS-2,bom-1,JPY,"1,000",29\r\n';
    const result = await importStatement(h.call, 'settlement', 'bom.csv', text, 'BOM source');
    expect(result).toMatchObject({ outcome: 'imported', import: { lines: 1 } });
    expect((await h.call('statements:settlement', { profileId, settlementId: 'S-2' })).settlement).toMatchObject({ gross: '1000', fees: '29', net: '971', currency: 'JPY' });
  });
});

describe('a file that cannot be imported', () => {
  it('refuses malformed CSV with the line of the quote left open, and imports nothing', async () => {
    const before = await lineCount();
    const text = 'settlement_id,payin_id,currency,amount\r\nS-3,q-1,EUR,1.00\r\nS-3,q-2,EUR,2.00\r\nS-3,"q-3,EUR,3.00\r\nS-3,q-4,EUR,4.00\r\n';
    const result = await importStatement(h.call, 'settlement', 'broken.csv', text, 'Broken');
    expect(result).toMatchObject({ outcome: 'refused', line: expect.any(Number), reason: expect.stringMatching(/quote/) });
    expect(result.outcome === 'refused' && result.line).toBeGreaterThanOrEqual(4);
    expect(result.import).toMatchObject({ state: 'refused', added: 0 });
    expect(await lineCount()).toBe(before);
    await expect(h.call('statements:settlement', { profileId, settlementId: 'S-3' })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('refuses a bad cell after good lines with its line, column and why: the lines before it are not imported either', async () => {
    const before = await lineCount();
    const rows = ['settlement_id,payin_id,currency,amount'];
    for (let i = 0; i < 5000; i++) rows.push(`S-4,good-${i},EUR,1.00`);
    rows.push('S-4,bad,EUR,12abc');
    const result = await importStatement(h.call, 'settlement', 'bad-cell.csv', rows.join('\n'), 'Bad cell');
    expect(result).toMatchObject({ outcome: 'refused', line: 5002, reason: 'column "amount" "12abc" is not an amount with "." as its decimal separator' });
    expect(await lineCount()).toBe(before);
    const imports = (await h.call('statements:imports', { profileId })).items;
    expect(imports[0]).toMatchObject({ state: 'refused', fileName: 'bad-cell.csv', errorLine: 5002, lines: 0, added: 0 });
  });

  it('refuses a row with another number of cells than the header, naming its line', async () => {
    const result = await importStatement(h.call, 'settlement', 'ragged.csv', 'settlement_id,payin_id,currency,amount\nS-5,r-1,EUR,1.00\nS-5,r-2,EUR\n', 'Ragged');
    expect(result).toMatchObject({ outcome: 'refused', line: 3, reason: expect.stringMatching(/another number of cells/) });
  });

  it('refuses a file of another kind at its first chunk, and an empty one or one over the limit before any byte is sent', async () => {
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(100)]);
    await expect(uploadStatement(h.call, 'settlement', 'photo.png', png)).rejects.toMatchObject({ code: 'invalid_input', message: expect.stringMatching(/PNG image, not a statement/) });
    const xlsx = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(100)]);
    await expect(uploadStatement(h.call, 'settlement', 'report.xlsx', xlsx)).rejects.toMatchObject({ message: expect.stringMatching(/Excel workbook \(\.xlsx\): save it as CSV first/) });
    await expect(h.call('statements:upload-begin', { kind: 'settlement', fileName: 'empty.csv', size: 0 })).rejects.toMatchObject({ code: 'invalid_input', message: 'Not accepted: size: The file is empty: there is nothing in it to import.' });
    await expect(h.call('statements:upload-begin', { kind: 'settlement', fileName: 'huge.csv', size: STATEMENT_LIMITS.csvBytes + 1 })).rejects.toMatchObject({ code: 'invalid_input', message: expect.stringMatching(/at most 200 MB/) });
    const { uploadId } = await h.call('statements:upload-begin', { kind: 'bank', fileName: 'huge.xml', size: STATEMENT_LIMITS.structuredBytes + 1 });
    await expect(h.call('statements:upload-chunk', { uploadId, seq: 0, data: Buffer.from('<?xml version="1.0"?><Document>').toString('base64') })).rejects.toMatchObject({ message: expect.stringMatching(/camt\.053 statement may be at most 32 MB/) });
  });

  it('refuses a bank statement offered as a settlement report', async () => {
    const uploadId = await uploadStatement(h.call, 'settlement', 'statement.xml', '<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"></Document>');
    await expect(h.call('statements:import', { uploadId, source: 'Bank' })).rejects.toMatchObject({ message: expect.stringMatching(/not a settlement report: import it as a bank statement/) });
  });
});

describe('an import a crash interrupted', () => {
  it('is refused at the next start, its staged lines dropped: nothing of it was imported', async () => {
    const repos = h.repos();
    const importId = await repos.statementFiles.createImport({ profileId, kind: 'settlement', format: 'csv', source: 'Crash', fileName: 'crash.csv', fileSize: 10, fileSha256: '', createdBy: null, startedAt: '2020-01-01T00:00:00.000Z' });
    const line = stagedPayinLine(2, 'c-1', 'S-CRASH', { currency: 'EUR', amount: '1.00', fee: '0.00', net: '1.00' });
    await repos.transaction(() => repos.settlementLines.stage(importId, [line]));
    await h.restart();
    const after = h.repos();
    expect(await after.statementFiles.importById(importId)).toMatchObject({ state: 'refused', errorReason: expect.stringMatching(/stopped while it imported this file; nothing of it was imported/) });
    expect(await h.core.ledger.get('SELECT count(*) AS n FROM settlement_staging WHERE import_id = ?', [importId])).toEqual({ n: 0 });
    await expect(h.call('statements:settlement', { profileId, settlementId: 'S-CRASH' })).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('a cell that would run as a formula', () => {
  it('is read without the guard a report put before it, and leaves in an export with one', async () => {
    // As csv-stringify writes a guarded cell (the emulator's report does): quoted, quotes doubled, a leading '.
    const text = 'settlement_id,payin_id,request_id,currency,amount\r\nS-6,"\'=HYPERLINK(""http://x"")",\'@SUM(A1),EUR,7.00\r\n';
    expect(await importStatement(h.call, 'settlement', 'formula.csv', text, 'Formula')).toMatchObject({ outcome: 'imported' });
    const row = (await h.call('statements:breaks', { queue: 'unknown_to_ledger', profileId, limit: 500 })).items.find((r) => r.settlementId === 'S-6');
    expect(row).toMatchObject({ gatewayId: '=HYPERLINK("http://x")', reference: '@SUM(A1)' });
    const file = await h.call('statements:export-csv', { queue: 'unknown_to_ledger', profileId });
    const line = file.csv.split('\r\n').find((l) => l.includes('S-6'))!;
    expect(line).toContain(`'@SUM(A1)`);
    expect(line).toContain(`"'=HYPERLINK(""http://x"")"`);
    expect(line).not.toMatch(/,=|,@/);
  });
});
