// Bank statements (camt.053, MT940, a bank's CSV) imported and matched to settlements, on this
// run's engine: credits matched by the settlement id they carry, a credit that names none only
// proposed (same amount and currency, value dates close) until a person accepts it, audited with
// them; the emulator's bank knobs each land in their queue; XML with a document type or entities
// and malformed XML are refused with their line, and nothing is imported.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BreakQueue } from '../../../src/shared/contract';
import { emulatorFile, importStatement, uploadStatement } from '../../helpers/statements';
import { payinForm, startHarness, unique, waitFor, type Harness } from '../verification/harness';

let h: Harness;
let profileId: string;

const queue = async (name: BreakQueue) => (await h.call('statements:breaks', { queue: name, profileId, limit: 500 })).items;

async function succeededPayin(amount: string, currency = 'EUR') {
  const result = await h.call('payins:create', payinForm({ amount, currency, email: `${unique('b')}+s200@example.com` }));
  const id = result.payin!.id;
  return (await waitFor(() => h.call('payins:get', { id }), (p) => p.payin.statusCode === '200', `pay-in ${id} to succeed`, 10_000)).payin;
}

beforeAll(async () => {
  h = await startHarness();
  profileId = await h.profileId();
});
afterAll(async () => {
  await h?.close();
});

describe('the emulator\'s camt.053 statement', () => {
  it('matches each credit to its settlement by reference, and puts a credit that differs, a credit of no settlement and a settlement without a credit in their queues', async () => {
    await succeededPayin('100.00');
    await succeededPayin('2000', 'JPY');
    await h.admin('/settlement-faults', { credit_differs: { next: 1, delta: '-1.50' }, orphan_bank_line: { next: 1, amount: '50.00' } }, 'PUT');
    const settled = (await h.admin<{ settlements: { settlement_id: string; currency: string; net: string }[] }>('/settlements/run', {})).body.settlements;
    const eur = settled.find((s) => s.currency === 'EUR')!;
    const jpy = settled.find((s) => s.currency === 'JPY')!;
    const report = await emulatorFile(h.core.local.adminUrl, '/reports/settlement.csv');
    expect(await importStatement(h.call, 'settlement', 'report.csv', report)).toMatchObject({ outcome: 'imported' });
    const camt = await emulatorFile(h.core.local.adminUrl, '/reports/bank-statement.xml?currency=EUR');

    const uploadId = await uploadStatement(h.call, 'bank', 'statement.xml', camt);
    const inspection = await h.call('statements:inspect', { uploadId });
    expect(inspection).toMatchObject({ format: 'camt053', layout: null });
    expect(inspection.preview.length).toBeGreaterThanOrEqual(2);
    const result = await h.call('statements:import', { uploadId, source: 'Emulator Demo Bank' });
    expect(result).toMatchObject({ outcome: 'imported', import: { format: 'camt053', lines: 2, added: 2 }, matching: { bankLinesMatched: 1 } });

    const applied = (await h.admin<{ applied: Record<string, unknown>[] }>('/settlement-faults')).body.applied;
    const differs = applied.find((a) => a.fault === 'credit_differs' && a.settlement_id === eur.settlement_id)!;
    expect(await queue('credit_differs')).toEqual([expect.objectContaining({ settlementId: eur.settlement_id, amount: differs.net, otherAmount: differs.credited })]);
    const orphan = applied.find((a) => a.fault === 'orphan_bank_line')!;
    expect(await queue('credit_without_settlement')).toEqual([expect.objectContaining({ amount: orphan.amount, gatewayId: orphan.entry_ref, currency: 'EUR' })]);
    expect((await queue('no_bank_credit')).map((r) => r.settlementId)).toEqual([jpy.settlement_id]);

    const view = await h.call('statements:settlement', { profileId, settlementId: eur.settlement_id });
    expect(view.settlement).toMatchObject({ net: differs.net, credited: differs.credited, difference: '-1.50', credits: 1 });
    expect(view.bankLines).toEqual([expect.objectContaining({ matchedBy: 'reference', endToEndId: eur.settlement_id })]);

    // The same statement again: nothing added, and it says so.
    expect(await importStatement(h.call, 'bank', 'statement-again.xml', camt, 'Emulator Demo Bank')).toMatchObject({ outcome: 'imported', import: { lines: 2, added: 0, alreadyThere: 2 } });
  });
});

describe('a credit that names no settlement', () => {
  it('is only proposed for the settlement of its amount and currency; a person accepts it, with a note, audited', async () => {
    const report = 'settlement_id,payin_id,currency,amount,fee,booking_date\r\nS-PROP,pp-1,EUR,100.00,2.90,2024-06-03\r\n';
    expect(await importStatement(h.call, 'settlement', 'prop.csv', report, 'Proposal PSP')).toMatchObject({ outcome: 'imported' });
    const bank = 'Booking date,Amount,Currency,Description\r\n04.06.2024,"97,10",EUR,SAMMELGUTSCHRIFT\r\n04.06.2024,"12,00",EUR,OTHER\r\n';
    const uploadId = await uploadStatement(h.call, 'bank', 'bank.csv', bank);
    const inspection = await h.call('statements:inspect', { uploadId, source: 'Hausbank' });
    expect(inspection.layout).toMatchObject({ decimal: ',', dateFormat: 'D.M.YYYY', columns: { booking_date: 'Booking date', amount: 'Amount', currency: 'Currency', remittance: 'Description' } });
    const result = await h.call('statements:import', { uploadId, source: 'Hausbank', layout: inspection.layout! });
    expect(result).toMatchObject({ outcome: 'imported', matching: { bankLinesMatched: 0, proposals: 1 } });
    expect((await queue('no_bank_credit')).map((r) => r.settlementId)).toContain('S-PROP');

    const { items } = await h.call('statements:proposals', { profileId });
    expect(items).toEqual([expect.objectContaining({ settlement: expect.objectContaining({ settlementId: 'S-PROP', net: '97.10' }), bankLine: expect.objectContaining({ amount: '97.10', remittance: 'SAMMELGUTSCHRIFT' }) })]);
    expect(items[0]!.reason).toMatch(/exactly this settlement's net \(97\.10 EUR\), booked 1 day from its value date/);

    await h.call('statements:decide-proposal', { proposalId: items[0]!.id, accept: true, note: 'collective credit of the day' });
    expect((await queue('no_bank_credit')).map((r) => r.settlementId)).not.toContain('S-PROP');
    expect((await h.call('statements:settlement', { profileId, settlementId: 'S-PROP' })).bankLines).toEqual([expect.objectContaining({ matchedBy: 'proposal', note: 'collective credit of the day' })]);
    expect((await h.call('statements:proposals', { profileId })).items).toEqual([]);
    const audit = await h.repos().audit.list({ limit: 5 });
    expect(audit.map((e) => e.action)).toContain('statement.proposal_accepted');
  });

  it('is matched or unmatched by a person, with a note, and matching leaves it as they decided', async () => {
    const credit = (await queue('credit_without_settlement')).find((r) => r.amount === '12.00')!;
    const matched = await h.call('statements:match-bank-line', { bankLineId: credit.bankLineId!, settlementId: 'S-PROP', note: 'fee refund' });
    expect(matched).toMatchObject({ settlementId: 'S-PROP', matchedBy: 'person', note: 'fee refund' });
    expect((await queue('credit_differs')).map((r) => r.settlementId)).toContain('S-PROP');
    const unmatched = await h.call('statements:unmatch-bank-line', { bankLineId: credit.bankLineId!, note: 'not ours after all' });
    expect(unmatched).toMatchObject({ settlementId: null, note: 'not ours after all' });
    await h.call('statements:rematch', { profileId });
    expect((await queue('credit_without_settlement')).map((r) => r.bankLineId)).toContain(credit.bankLineId);
    expect((await queue('credit_differs')).map((r) => r.settlementId)).not.toContain('S-PROP');
  });
});

describe('an MT940 statement', () => {
  it('reads each :61: line exactly (its amount from the tag, not a float) and matches by the settlement id in :86:', async () => {
    const report = 'settlement_id,payin_id,currency,amount,fee,booking_date\r\nSTL-MT940-KWD-1,mt-1,KWD,10.125,0.100,2024-05-02\r\n';
    expect(await importStatement(h.call, 'settlement', 'kwd.csv', report, 'Proposal PSP')).toMatchObject({ outcome: 'imported' });
    const mt940 = [
      ':20:STMT-0001',
      ':25:DE62370400440000000011',
      ':28C:1/1',
      ':60F:C240501KWD0,',
      ':61:2405020502C10,025NTRFNONREF//BNK-MT-1',
      ':86:SETTLEMENT STL-MT940-KWD-1',
      ':61:2405020502D1,5NTRFNONREF//BNK-MT-2',
      ':86:BANK FEES',
      ':62F:C240502KWD8,525',
      '-',
    ].join('\r\n');
    const result = await importStatement(h.call, 'bank', 'statement.sta', mt940, 'Hausbank MT940');
    expect(result).toMatchObject({ outcome: 'imported', import: { format: 'mt940', lines: 2, added: 2 }, matching: { bankLinesMatched: 1 } });
    const view = await h.call('statements:settlement', { profileId, settlementId: 'STL-MT940-KWD-1' });
    expect(view.settlement).toMatchObject({ net: '10.025', credited: '10.025', difference: '0.000' });
    expect(view.bankLines[0]).toMatchObject({ amount: '10.025', entryRef: 'BNK-MT-1', bookingDate: '2024-05-02', line: 5 });
  });
});

/** Upload and import without the mapping step (which would refuse the file first, saying the same). */
async function importDirectly(name: string, text: string) {
  const uploadId = await uploadStatement(h.call, 'bank', name, text);
  return h.call('statements:import', { uploadId, source: 'Refused' });
}

describe('XML that is refused', () => {
  const camt = (body: string, prolog = '') => `<?xml version="1.0" encoding="UTF-8"?>\n${prolog}<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">\n${body}\n</Document>\n`;

  it.each([
    ['an external entity', '<!DOCTYPE Document [<!ENTITY secret SYSTEM "file:///etc/passwd">]>\n', '<BkToCstmrStmt><GrpHdr><MsgId>&secret;</MsgId></GrpHdr></BkToCstmrStmt>'],
    ['entities that expand', '<!DOCTYPE Document [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>\n', '<BkToCstmrStmt><GrpHdr><MsgId>&b;</MsgId></GrpHdr></BkToCstmrStmt>'],
    ['a document type', '<!DOCTYPE Document SYSTEM "http://127.0.0.1:9/camt.dtd">\n', '<BkToCstmrStmt/>'],
  ])('with %s, before parsing it, naming its line', async (_what, prolog, body) => {
    const result = await importDirectly('evil.xml', camt(body, prolog));
    expect(result).toMatchObject({ outcome: 'refused', line: 2, reason: expect.stringMatching(/declares a document type or entities/) });
  });

  it('that is malformed, with the line of the fault', async () => {
    const result = await importDirectly('broken.xml', camt('<BkToCstmrStmt>\n<Stmt>\n</BkToCstmrStmt>'));
    expect(result).toMatchObject({ outcome: 'refused', line: 5, reason: expect.stringMatching(/malformed XML/) });
  });

  it('that is not a camt.053 statement', async () => {
    const result = await importDirectly('pain.xml', '<?xml version="1.0"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.03"><CstmrCdtTrfInitn/></Document>');
    expect(result).toMatchObject({ outcome: 'refused', reason: expect.stringMatching(/not a camt\.053 statement/) });
  });
});
