// A settlement report imported as finance does it, on this run's engine: the emulator settles
// pay-ins with its knobs armed, its report (CSV) is uploaded in chunks through the contract, the
// mapping step proposes every column from the headers, the import matches each line to its pay-in
// by payin_id, and each knob's effect lands in its break queue. The same file again adds nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BreakQueue, PayinView } from '../../../src/shared/contract';
import { emulatorFile, importStatement, uploadStatement } from '../../helpers/statements';
import { payinForm, startHarness, unique, waitFor, type Harness } from '../verification/harness';

let h: Harness;
let profileId: string;
const payins: PayinView[] = [];
let report: string;
let applied: Record<string, unknown>[];

async function succeededPayin(amount: string): Promise<PayinView> {
  const result = await h.call('payins:create', payinForm({ amount, email: `${unique('s')}+s200@example.com` }));
  const id = result.payin!.id;
  return (await waitFor(() => h.call('payins:get', { id }), (p) => p.payin.statusCode === '200', `pay-in ${id} to succeed`, 10_000)).payin;
}

const queue = async (name: BreakQueue) => (await h.call('statements:breaks', { queue: name, profileId, unsettledAfterDays: 0, limit: 500 })).items;

beforeAll(async () => {
  h = await startHarness();
  profileId = await h.profileId();
  for (const amount of ['10.00', '20.50', '30.25', '40.00']) payins.push(await succeededPayin(amount));
  const [, altered, twice, omitted] = payins.map((p) => p.payinId!);
  await h.admin('/settlement-faults', { alter_amount: { payin_ids: [altered], delta: '1.00' }, settle_twice: { payin_ids: [twice] }, omit_payin: { payin_ids: [omitted] }, unknown_payin: { next: 1, amount: '5.00' } }, 'PUT');
  await h.admin('/settlements/run', {});
  applied = (await h.admin<{ applied: Record<string, unknown>[] }>('/settlement-faults')).body.applied;
  report = await emulatorFile(h.core.local.adminUrl, '/reports/settlement.csv');
});
afterAll(async () => {
  await h?.close();
});

describe('a settlement report (CSV) imported through the contract', () => {
  it('proposes every column from the headers, with the delimiter, encoding, decimal point and ISO dates', async () => {
    const uploadId = await uploadStatement(h.call, 'settlement', 'settlement.csv', report);
    const inspection = await h.call('statements:inspect', { uploadId });
    expect(inspection).toMatchObject({ format: 'csv', bom: false, remembered: false, headers: expect.arrayContaining(['type', 'settlement_id', 'payin_id', 'amount']) });
    expect(inspection.layout).toMatchObject({ delimiter: ',', encoding: 'utf-8', decimal: '.', dateFormat: 'YYYY-MM-DD' });
    expect(inspection.layout!.columns).toMatchObject({ type: 'type', settlement_id: 'settlement_id', payin_id: 'payin_id', request_id: 'request_id', payout_id: 'payout_id', merchantReference: 'merchantReference', currency: 'currency', amount: 'amount', fee: 'fee', net: 'net', direction: 'direction', time: 'time', booking_date: 'booking_date' });
    expect(inspection.preview.length).toBeGreaterThan(0);
    await h.call('statements:discard-upload', { uploadId });
  });

  it('imports every line once, matches each to its pay-in by payin_id, and puts each knob in its queue', async () => {
    const result = await importStatement(h.call, 'settlement', 'settlement.csv', report, 'Emulator');
    const dataLines = report.trim().split('\r\n').length - 1;
    expect(result).toMatchObject({ outcome: 'imported', import: { state: 'imported', lines: dataLines, added: dataLines, alreadyThere: 0, source: 'Emulator' } });
    if (result.outcome !== 'imported') throw new Error('refused');
    // The plain pay-in, the altered one, and the twice-settled one twice: 4 lines by payin_id.
    expect(result.matching.linesMatched).toBe(4);

    const [plain, altered, twice, omitted] = payins;
    const unknown = applied.find((a) => a.fault === 'unknown_payin')!;
    expect((await queue('unsettled')).map((r) => r.rowId)).toEqual([omitted!.id]);
    expect(await queue('amount_differs')).toEqual([expect.objectContaining({ subject: 'payin', rowId: altered!.id, amount: '21.50', otherAmount: '20.50', currency: 'EUR' })]);
    expect(await queue('settled_twice')).toEqual([expect.objectContaining({ subject: 'payin', rowId: twice!.id, times: 2 })]);
    expect(await queue('unknown_to_ledger')).toEqual([expect.objectContaining({ subject: null, gatewayId: unknown.payin_id, amount: '5.00' })]);
    expect(await queue('not_successful')).toEqual([]);
    expect((await h.call('payins:get', { id: plain!.id })).payin.statusCode).toBe('200');

    const summary = await h.call('statements:summary', { profileId, unsettledAfterDays: 0 });
    expect(Object.fromEntries(summary.counts.map((c) => [c.queue, c.count]))).toMatchObject({ unsettled: 1, amount_differs: 1, settled_twice: 1, unknown_to_ledger: 1, not_successful: 0 });
    expect(summary.settlements).toBe(1);
  });

  it('imports the same file again without adding a line, and says how many were already there', async () => {
    const before = (await h.call('statements:settlements', { profileId })).items;
    const again = await importStatement(h.call, 'settlement', 'settlement-again.csv', report, 'Emulator');
    const dataLines = report.trim().split('\r\n').length - 1;
    expect(again).toMatchObject({ outcome: 'imported', import: { lines: dataLines, added: 0, alreadyThere: dataLines } });
    expect((await h.call('statements:settlements', { profileId })).items).toEqual(before);
    expect(await queue('settled_twice')).toHaveLength(1);
  });

  it('puts the settlement line of a pay-in into its evidence pack', async () => {
    const [plain, , twice] = payins;
    const pack = JSON.parse((await h.call('evidence:export', { subject: 'payin', id: plain!.id })).json) as { settlement: { settlementId: string; payinId: string; amount: string; matchedBy: string }[] };
    expect(pack.settlement).toEqual([expect.objectContaining({ payinId: plain!.payinId, amount: '10.00', matchedBy: 'payin_id', settlementId: expect.stringMatching(/^STL-/) })]);
    const twicePack = JSON.parse((await h.call('evidence:export', { subject: 'payin', id: twice!.id })).json) as { settlement: unknown[] };
    expect(twicePack.settlement).toHaveLength(2);
  });

  it('remembers the layout for its source and proposes it for the next file', async () => {
    const uploadId = await uploadStatement(h.call, 'settlement', 'next.csv', report);
    const inspection = await h.call('statements:inspect', { uploadId });
    expect(inspection).toMatchObject({ remembered: true, source: 'Emulator' });
    expect((await h.call('statements:layouts', { kind: 'settlement' })).items.map((l) => l.source)).toEqual(['Emulator']);
    await h.call('statements:discard-upload', { uploadId });
  });
});
