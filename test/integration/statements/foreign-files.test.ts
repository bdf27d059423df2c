// Files from sources that are not the emulator, written as providers and spreadsheets write them:
// Windows-1252 text with the characters only that code page has (€, –), CRLF
// line ends and a trailing empty line, a second file of the same source saved with a UTF-8 byte
// order mark. The mapping step proposes and previews what the file says, and the import reads it.
import { describe, expect, it } from 'vitest';
import { applyCreateAnswer } from '../../../src/main/services/payments/apply';
import { importStatement, uploadStatement } from '../../helpers/statements';
import { useHarness, type Harness } from '../verification/harness';

let h: Harness;
let profileId: string;
useHarness((started, id) => {
  h = started;
  profileId = id;
});

/** Windows-1252 bytes of a text, with the code page's own characters at 0x80–0x9F. */
const SPECIAL: Record<string, number> = { '€': 0x80, '–': 0x96, '„': 0x84, '“': 0x93 };
const windows1252 = (text: string): Uint8Array => Uint8Array.from([...text].map((c) => SPECIAL[c] ?? c.charCodeAt(0)));

const HEADER = 'Transaction ID;Merchant Reference;Type;Gross;Fee;Net;Currency;Booking Date;Settlement ID;Description';

describe('a settlement report in another provider’s layout', () => {
  it('ending in an empty CRLF line, in Windows-1252: semicolons proposed, its € and – previewed as written, no empty row', async () => {
    const text = [HEADER, 'tx-1;ORD-1;Sale;1.234,56;12,35;1.222,21;EUR;04.12.2026;STL-W1;"Zahlung – Bestellung; 5 €"', 'tx-2;ORD-2;Sale;20,50;0,21;20,29;EUR;04.12.2026;STL-W1;„Größe M“'].join('\r\n') + '\r\n\r\n';
    const uploadId = await uploadStatement(h.call, 'settlement', 'acme-1252.csv', windows1252(text));
    const inspection = await h.call('statements:inspect', { uploadId, source: 'Acme 1252' });
    expect(inspection.layout).toMatchObject({ encoding: 'windows-1252', delimiter: ';', decimal: ',', dateFormat: 'D.M.YYYY' });
    expect(inspection.preview).toEqual([
      ['tx-1', 'ORD-1', 'Sale', '1.234,56', '12,35', '1.222,21', 'EUR', '04.12.2026', 'STL-W1', 'Zahlung – Bestellung; 5 €'],
      ['tx-2', 'ORD-2', 'Sale', '20,50', '0,21', '20,29', 'EUR', '04.12.2026', 'STL-W1', '„Größe M“'],
    ]);
    const result = await h.call('statements:import', { uploadId, source: 'Acme 1252', layout: inspection.layout! });
    expect(result).toMatchObject({ outcome: 'imported', import: { lines: 2, added: 2 } });
    expect((await h.call('statements:settlement', { profileId, settlementId: 'STL-W1' })).settlement).toMatchObject({ gross: '1255.06', fees: '12.56', net: '1242.50' });
  });

  it('a second file of the source saved with a UTF-8 byte order mark: read as UTF-8 with the remembered columns', async () => {
    const text = `\uFEFF${[HEADER, 'tx-3;ORD-3;Sale;40,00;0,40;39,60;EUR;2026-12-04T10:00:00Z;STL-W2;Café'].join('\n')}\n`;
    const uploadId = await uploadStatement(h.call, 'settlement', 'acme-bom.csv', text);
    const inspection = await h.call('statements:inspect', { uploadId, source: 'Acme 1252' });
    expect(inspection).toMatchObject({ remembered: true, bom: true, layout: { encoding: 'utf-8', delimiter: ';' } });
    expect(inspection.headers[0]).toBe('Transaction ID');
    expect(inspection.preview).toEqual([['tx-3', 'ORD-3', 'Sale', '40,00', '0,40', '39,60', 'EUR', '2026-12-04T10:00:00Z', 'STL-W2', 'Café']]);
    const result = await h.call('statements:import', { uploadId, source: 'Acme 1252', layout: inspection.layout! });
    expect(result).toMatchObject({ outcome: 'imported', import: { lines: 1, added: 1 } });
    expect((await h.call('statements:settlement', { profileId, settlementId: 'STL-W2' })).settlement).toMatchObject({ net: '39.60', valueDate: '2026-12-04' });
  });
});

describe('a pay-in report whose only reference is a "Merchant Reference" column', () => {
  it('matches its sales to the pay-ins by request_id: a pay-in’s merchant reference is its request_id', async () => {
    const repos = h.repos();
    const row = await repos.payins.recordRequest({ profileId, kind: 'payin', requestId: 'ORD-MR-1', method: 'open_banking', amount: '12.00', currency: 'EUR', email: 'mr@example.com' });
    await applyCreateAnswer(repos.payins, row.id, { gatewayId: 'pid-mr-1', statusCode: 200 });
    const text = 'Merchant Reference,Type,Gross,Fee,Currency,Settlement ID\r\nORD-MR-1,Sale,12.00,0.10,EUR,STL-MR\r\n';
    const uploadId = await uploadStatement(h.call, 'settlement', 'mr.csv', text);
    const inspection = await h.call('statements:inspect', { uploadId, source: 'MR PSP' });
    expect(inspection.layout!.columns).toMatchObject({ merchantReference: 'Merchant Reference', type: 'Type' });
    const result = await h.call('statements:import', { uploadId, source: 'MR PSP', layout: inspection.layout! });
    expect(result).toMatchObject({ outcome: 'imported', import: { lines: 1 }, matching: { linesMatched: 1 } });
    expect(await h.core.ledger.get('SELECT line_type, request_id, merchant_reference, matched_by FROM settlement_lines WHERE settlement_id = ?', ['STL-MR'])).toEqual({ line_type: 'payin', request_id: 'ORD-MR-1', merchant_reference: null, matched_by: 'request_id' });
  });
});

describe('a camt.053 from another bank', () => {
  it('version 001.08, its root declaring xsi after its own namespace: read, and the credit matched by the settlement id in its remittance', async () => {
    const report = 'settlement_id,payin_id,currency,amount,fee\r\nSTL-CAMT8-1,c8-1,EUR,100.00,1.50\r\n';
    expect(await importStatement(h.call, 'settlement', 'camt8.csv', report, 'Camt8 PSP')).toMatchObject({ outcome: 'imported' });
    const camt = [
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08 camt.053.001.08.xsd">',
      '<BkToCstmrStmt><GrpHdr><MsgId>M-1</MsgId><CreDtTm>2026-12-05T06:00:00+01:00</CreDtTm></GrpHdr>',
      '<Stmt><Id>S-1</Id><Acct><Id><IBAN>DE89370400440532013000</IBAN></Id><Ccy>EUR</Ccy></Acct>',
      '<Ntry><Amt Ccy="EUR">98.50000</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>2026-12-05</Dt></BookgDt><AcctSvcrRef>C8-0001</AcctSvcrRef>',
      '<NtryDtls><TxDtls><Refs><EndToEndId>NOTPROVIDED</EndToEndId></Refs><RmtInf><Ustrd>Settlement STL-CAMT8-1</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>',
      '</Stmt></BkToCstmrStmt></Document>',
    ].join('\r\n');
    const result = await importStatement(h.call, 'bank', 'camt053-v08.xml', camt, 'Another Bank');
    expect(result).toMatchObject({ outcome: 'imported', import: { format: 'camt053', lines: 1, added: 1 }, matching: { bankLinesMatched: 1 } });
    expect((await h.call('statements:settlement', { profileId, settlementId: 'STL-CAMT8-1' })).settlement).toMatchObject({ net: '98.50', credited: '98.50', difference: '0.00' });
  });
});

describe('a camt.053 batch booking', () => {
  const camt = (entries: string[]) =>
    [
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>M-B</MsgId><CreDtTm>2026-12-06T06:00:00Z</CreDtTm></GrpHdr>',
      '<Stmt><Id>S-B</Id><Acct><Id><IBAN>DE02120300000000202051</IBAN></Id><Ccy>EUR</Ccy></Acct>',
      ...entries,
      '</Stmt></BkToCstmrStmt></Document>',
    ].join('\n');
  const tx = (amount: string, settlement: string, payer: string) =>
    `<TxDtls><AmtDtls><TxAmt><Amt Ccy="EUR">${amount}</Amt></TxAmt></AmtDtls><RltdPties><Dbtr><Nm>${payer}</Nm></Dbtr></RltdPties><RmtInf><Ustrd>Settlement ${settlement}</Ustrd></RmtInf></TxDtls>`;
  const entry = (ref: string, amount: string, ...details: string[]) =>
    `<Ntry><Amt Ccy="EUR">${amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2026-12-06</Dt></BookgDt><AcctSvcrRef>${ref}</AcctSvcrRef><NtryDtls>${details.join('')}</NtryDtls></Ntry>`;

  it('becomes a line per transaction when its details add up to the entry, each matched to its own settlement', async () => {
    const report = 'settlement_id,payin_id,currency,amount,fee\r\nSTL-B-1,b-1,EUR,100.00,0.00\r\nSTL-B-2,b-2,EUR,50.25,0.00\r\n';
    expect(await importStatement(h.call, 'settlement', 'batch.csv', report, 'Batch PSP')).toMatchObject({ outcome: 'imported' });
    const result = await importStatement(h.call, 'bank', 'batch.xml', camt([entry('BATCH-1', '150.25', tx('100.00', 'STL-B-1', 'Acme Pay'), tx('50.25', 'STL-B-2', 'Acme Pay'))]), 'Batch Bank');
    expect(result).toMatchObject({ outcome: 'imported', import: { format: 'camt053', lines: 2, added: 2 }, matching: { bankLinesMatched: 2 } });
    for (const [settlementId, net, ref] of [['STL-B-1', '100.00', 'BATCH-1/1'], ['STL-B-2', '50.25', 'BATCH-1/2']] as const) {
      const view = await h.call('statements:settlement', { profileId, settlementId });
      expect(view.settlement).toMatchObject({ net, credited: net, difference: '0.00' });
      expect(view.bankLines).toEqual([expect.objectContaining({ entryRef: ref, amount: net, counterparty: 'Acme Pay', remittance: `Settlement ${settlementId}` })]);
    }
  });

  it('stays one line, every remittance on it, when its details do not add up to the entry', async () => {
    const result = await importStatement(h.call, 'bank', 'batch-odd.xml', camt([entry('BATCH-2', '99.00', tx('60.00', 'STL-X-1', 'A'), tx('30.00', 'STL-X-2', 'B'))]), 'Batch Bank');
    expect(result).toMatchObject({ outcome: 'imported', import: { lines: 1, added: 1 } });
    expect(await h.core.ledger.get('SELECT amount, remittance FROM bank_lines WHERE entry_ref = ?', ['BATCH-2'])).toEqual({ amount: '99.00', remittance: 'Settlement STL-X-1 Settlement STL-X-2' });
  });
});

describe('a camt.053 with a credit the bank reversed', () => {
  it('counts the reversal (a debit naming the settlement) against the credit: the settlement is no longer shown as paid', async () => {
    const report = 'settlement_id,payin_id,currency,amount,fee\r\nSTL-REV-1,rev-1,EUR,80.00,0.00\r\n';
    expect(await importStatement(h.call, 'settlement', 'rev.csv', report, 'Rev PSP')).toMatchObject({ outcome: 'imported' });
    const entry = (ref: string, indicator: string, reversal: boolean, day: string) =>
      `<Ntry><Amt Ccy="EUR">80.00</Amt><CdtDbtInd>${indicator}</CdtDbtInd>${reversal ? '<RvslInd>true</RvslInd>' : ''}<Sts>BOOK</Sts><BookgDt><Dt>${day}</Dt></BookgDt><AcctSvcrRef>${ref}</AcctSvcrRef><NtryDtls><TxDtls><Refs><EndToEndId>STL-REV-1</EndToEndId></Refs></TxDtls></NtryDtls></Ntry>`;
    const camt = [
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>M-R</MsgId><CreDtTm>2026-12-08T06:00:00Z</CreDtTm></GrpHdr>',
      '<Stmt><Id>S-R</Id><Acct><Id><IBAN>DE02120300000000202051</IBAN></Id><Ccy>EUR</Ccy></Acct>',
      entry('REV-CR', 'CRDT', false, '2026-12-07'),
      entry('REV-DB', 'DBIT', true, '2026-12-08'),
      '</Stmt></BkToCstmrStmt></Document>',
    ].join('\n');
    const result = await importStatement(h.call, 'bank', 'reversal.xml', camt, 'Rev Bank');
    expect(result).toMatchObject({ outcome: 'imported', import: { lines: 2, added: 2 }, matching: { bankLinesMatched: 2 } });
    const view = await h.call('statements:settlement', { profileId, settlementId: 'STL-REV-1' });
    expect(view.settlement).toMatchObject({ net: '80.00', credited: '0.00', difference: '-80.00' });
    expect(view.bankLines.map((b) => [b.entryRef, b.direction])).toEqual([
      ['REV-CR', 'credit'],
      ['REV-DB', 'debit'],
    ]);
  });
});

describe('an MT940 from a German bank', () => {
  it('with a structured :86: over several lines: the settlement id its purpose splits across ?20 and ?21 matches, EREF+ and the payer are read', async () => {
    const report = 'settlement_id,payin_id,currency,amount,fee\r\nSTL-2026-12-04-EUR,m-1,EUR,1274.00,1.55\r\n';
    expect(await importStatement(h.call, 'settlement', 'mt-psp.csv', report, 'MT PSP')).toMatchObject({ outcome: 'imported' });
    const mt940 = [
      ':20:STARTUMSE',
      ':25:37040044/0532013000',
      ':28C:00341/001',
      ':60F:C261204EUR10000,00',
      ':61:2612051205CR1272,45NMSCNONREF//2026120500001',
      ':86:166?00GUTSCHRIFT?100599?20SVWZ+Settlement STL-2026-',
      '?2112-04-EUR?22Acme Pay payout?30COBADEFFXXX?31DE0012345678',
      '?32Acme Payments B.V.',
      ':62F:C261205EUR11272,45',
      '-',
      ':20:STARTUMSE',
      ':25:37040044/0532013000',
      ':28C:00342/001',
      ':60F:C261205EUR11272,45',
      ':61:2612061206DR75,NTRFNONREF//2026120600001',
      ':86:116?00UEBERWEISUNG?20EREF+PO-REF-1?21SVWZ+Supplier payment',
      ':62F:C261206EUR11197,45',
      '-',
    ].join('\r\n');
    const result = await importStatement(h.call, 'bank', 'umsaetze.sta', mt940, 'Hausbank');
    expect(result).toMatchObject({ outcome: 'imported', import: { format: 'mt940', lines: 2, added: 2 }, matching: { bankLinesMatched: 1 } });
    const view = await h.call('statements:settlement', { profileId, settlementId: 'STL-2026-12-04-EUR' });
    expect(view.settlement).toMatchObject({ net: '1272.45', credited: '1272.45', difference: '0.00' });
    expect(view.bankLines[0]).toMatchObject({ line: 5, entryRef: '2026120500001', counterparty: 'Acme Payments B.V.', remittance: 'SVWZ+Settlement STL-2026-12-04-EURAcme Pay payout' });
    expect(await h.core.ledger.get('SELECT end_to_end_id, direction, amount FROM bank_lines WHERE entry_ref = ?', ['2026120600001'])).toEqual({ end_to_end_id: 'PO-REF-1', direction: 'debit', amount: '75.00' });
  });
});

describe('a report without dates', () => {
  it('puts a line for a pay-in the ledger does not have in "Unknown to the ledger" of the day it was imported, where the screen looks', async () => {
    const report = '"Payment ID","Order ID","Amount","Currency"\n"ghost-tx-1","ORD-GHOST","5.00","EUR"\n';
    const result = await importStatement(h.call, 'settlement', 'no-dates.csv', report, 'Dateless PSP');
    if (result.outcome !== 'imported') throw new Error(`refused: ${result.reason}`);
    const day = result.import.startedAt.slice(0, 10);
    const scope = { profileId, from: day, to: day };
    const queue = await h.call('statements:breaks', { queue: 'unknown_to_ledger', ...scope, limit: 50 });
    expect(queue.items).toContainEqual(expect.objectContaining({ gatewayId: 'ghost-tx-1', reference: 'ORD-GHOST', date: day }));
    expect((await h.call('statements:summary', scope)).counts).toContainEqual({ queue: 'unknown_to_ledger', count: queue.total });
  });
});

describe('a cell too long for an id', () => {
  it('is refused naming the id limit (255), not the limit the guard needs room for', async () => {
    const result = await importStatement(h.call, 'settlement', 'long-id.csv', `payin_id,currency,amount\n${'y'.repeat(5000)},EUR,1.00\n`, 'Long ids');
    expect(result).toMatchObject({ outcome: 'refused', line: 2, reason: 'column "payin_id" is longer than 255 characters' });
  });
});
