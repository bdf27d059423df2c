// The six knobs that make settlement files imperfect: each effect shows in the report, the
// statement and the settlement's record, deterministically, so a reconciliation test can check
// each break against what caused it.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { EmulatorHandle } from '../../src/emulator/index';
import { tempDir } from '../helpers/temp-dir';
import { admin, csvRecords, ManualClock, Receiver, startTestEmulator, succeededPayin, type Loose } from './helpers';

let rc: Receiver;
let emu: EmulatorHandle;
let clock: ManualClock;
/** Three EUR card pay-ins of 10, 20 and 30, succeeded in this order. */
let p: { payin_id: string; request_id: string }[];

beforeAll(async () => {
  rc = await new Receiver().start();
});
afterAll(async () => {
  await rc.close();
});
beforeEach(async () => {
  clock = new ManualClock('2024-05-01T10:00:00Z');
  emu = await startTestEmulator({ clock });
  p = [];
  for (const amount of [10, 20, 30]) {
    clock.ms += 1_000;
    p.push(await succeededPayin(emu, rc.url(), { amount, currency: 'EUR' }));
  }
});
afterEach(async () => {
  await emu.close();
});

const arm = async (body: Record<string, unknown>): Promise<Loose> => {
  const res = await admin(emu)('PUT', '/settlement-faults', body);
  expect(res.status, res.text).toBe(200);
  return res.json;
};

/** Settles now; the one settlement made, its report lines and its statement's entries. */
async function settle(): Promise<{ s: Loose; lines: Record<string, string>[]; entries: { amount: string; ref: string; e2e: string }[] }> {
  clock.ms += 60_000;
  const made = (await admin(emu)('POST', '/settlements/run')).json.settlements as Loose[];
  expect(made).toHaveLength(1);
  const s = made[0] as Loose;
  const lines = csvRecords((await admin(emu)('GET', `/settlements/${s.settlement_id as string}/report.csv`)).text);
  const xml = (await admin(emu)('GET', `/reports/bank-statement.xml?from=${s.value_date as string}&to=${s.value_date as string}`)).text;
  const entries = [...xml.matchAll(/<Ntry>\s*<Amt Ccy="EUR">([\d.]+)<\/Amt>[\s\S]*?<AcctSvcrRef>([^<]+)<[\s\S]*?<EndToEndId>([^<]+)</g)].map((m) => ({ amount: m[1] as string, ref: m[2] as string, e2e: m[3] as string }));
  return { s, lines, entries };
}

const ids = (lines: Record<string, string>[]): string[] => lines.map((l) => l.payin_id as string);
const faultsOf = (s: Loose): Loose[] => (s.faults as Loose[]).map(({ at: _at, ...f }) => f);

describe('settlement knobs, one at a time', () => {
  test('omit_payin: the first pay-in is left out of the lines, the sums and the credit, and never settled later', async () => {
    expect((await arm({ omit_payin: { next: 1 } })).armed.omit_payin).toEqual({ next: 1, payin_ids: [] });
    const { s, lines, entries } = await settle();
    expect(ids(lines)).toEqual([p[1]?.payin_id, p[2]?.payin_id]);
    expect(s).toMatchObject({ gross: '50.00', fees: '1.95', net: '48.05', lines: 2 });
    expect(entries).toEqual([{ amount: '48.05', ref: s.bank_credit.entry_ref, e2e: s.settlement_id }]);
    expect(faultsOf(s)).toEqual([{ fault: 'omit_payin', settlement_id: s.settlement_id, payin_id: p[0]?.payin_id, request_id: p[0]?.request_id, amount: '10.00' }]);
    expect((await admin(emu)('GET', '/settlement-faults')).json.armed.omit_payin.next).toBe(0);
    clock.set('2024-05-03T00:00:00Z');
    expect((await admin(emu)('POST', '/settlements/run')).json.settlements).toEqual([]);
  });

  test('omit_payin by payin_id leaves out that pay-in; by count it waits for a settlement that keeps another pay-in', async () => {
    await arm({ omit_payin: { payin_ids: [p[2]?.payin_id] } });
    const { lines } = await settle();
    expect(ids(lines)).toEqual([p[0]?.payin_id, p[1]?.payin_id]);

    await arm({ omit_payin: { next: 1, payin_ids: [] } });
    await succeededPayin(emu, rc.url(), { amount: 5, currency: 'EUR' });
    const alone = await settle();
    expect(alone.lines).toHaveLength(1);
    expect(alone.s.faults).toEqual([]);
    expect((await admin(emu)('GET', '/settlement-faults')).json.armed.omit_payin.next).toBe(1);
  });

  test('alter_amount: the line shows the amount plus delta, its fee and net follow, the credit pays it', async () => {
    await arm({ alter_amount: { next: 1 } });
    const { s, lines, entries } = await settle();
    expect(lines.map((l) => [l.payin_id, l.amount, l.fee, l.net])).toEqual([
      [p[0]?.payin_id, '11.00', '0.57', '10.43'], // 11 × 2.9 % + 0.25 = 0.569
      [p[1]?.payin_id, '20.00', '0.83', '19.17'],
      [p[2]?.payin_id, '30.00', '1.12', '28.88'],
    ]);
    expect(s).toMatchObject({ gross: '61.00', net: '58.48' });
    expect(entries.map((e) => e.amount)).toEqual(['58.48']);
    expect(faultsOf(s)).toEqual([{ fault: 'alter_amount', settlement_id: s.settlement_id, payin_id: p[0]?.payin_id, from: '10.00', to: '11.00' }]);
  });

  test('alter_amount by payin_id with a negative delta; one that would leave no amount is not applied', async () => {
    await arm({ alter_amount: { payin_ids: [p[1]?.payin_id, p[2]?.payin_id], delta: '-25' } });
    const { s, lines } = await settle();
    expect(lines.map((l) => l.amount)).toEqual(['10.00', '20.00', '5.00']);
    expect(faultsOf(s)).toEqual([{ fault: 'alter_amount', settlement_id: s.settlement_id, payin_id: p[2]?.payin_id, from: '30.00', to: '5.00' }]);
    expect((await admin(emu)('GET', '/settlement-faults')).json.armed.alter_amount.payin_ids).toEqual([]);
  });

  test('unknown_payin: a line for a pay-in nobody created, counted in the sums', async () => {
    await arm({ unknown_payin: { next: 1, amount: '12.34', method: 'blik' } });
    const { s, lines, entries } = await settle();
    const stranger = lines[3] as Record<string, string>;
    expect(ids(lines).slice(0, 3)).toEqual(p.map((x) => x.payin_id));
    expect(stranger).toMatchObject({ type: 'payin', method: 'blik', amount: '12.34', fee: '0.19', net: '12.15', settlement_id: s.settlement_id, time: lines[2]?.time });
    expect(stranger.request_id).toMatch(/^ord-[0-9a-f]{10}$/);
    expect((await admin(emu)('GET', `/payins/${stranger.payin_id as string}`)).status).toBe(404);
    expect(s).toMatchObject({ gross: '72.34', lines: 4 });
    expect(entries.map((e) => e.amount)).toEqual([s.net]);
    expect(faultsOf(s)).toEqual([{ fault: 'unknown_payin', settlement_id: s.settlement_id, payin_id: stranger.payin_id, request_id: stranger.request_id, method: 'blik', amount: '12.34' }]);
  });

  test('settle_twice: the pay-in has two lines in its settlement, both counted', async () => {
    await arm({ settle_twice: { payin_ids: [p[1]?.payin_id] } });
    const { s, lines } = await settle();
    expect(ids(lines)).toEqual([p[0]?.payin_id, p[1]?.payin_id, p[1]?.payin_id, p[2]?.payin_id]);
    expect(lines[1]).toEqual(lines[2]);
    expect(s).toMatchObject({ gross: '80.00', lines: 4 });
    expect(faultsOf(s)).toEqual([{ fault: 'settle_twice', settlement_id: s.settlement_id, payin_id: p[1]?.payin_id, amount: '20.00' }]);
  });

  test('credit_differs: the bank credits the net plus delta', async () => {
    await arm({ credit_differs: { next: 1 } });
    const { s, entries } = await settle();
    expect(s).toMatchObject({ net: '57.51', bank_credit: { amount: '56.01' } });
    expect(entries).toEqual([{ amount: '56.01', ref: s.bank_credit.entry_ref, e2e: s.settlement_id }]);
    expect(faultsOf(s)).toEqual([{ fault: 'credit_differs', settlement_id: s.settlement_id, payin_id: null, net: '57.51', credited: '56.01', difference: '-1.50' }]);
  });

  test('orphan_bank_line: a credit beside the settlement\u2019s that belongs to no settlement', async () => {
    await arm({ orphan_bank_line: { payin_ids: [p[0]?.payin_id], amount: '42' } });
    const { s, entries } = await settle();
    const [credit, orphan] = entries;
    expect(credit).toEqual({ amount: '57.51', ref: s.bank_credit.entry_ref, e2e: s.settlement_id });
    expect(orphan).toMatchObject({ amount: '42.00', e2e: 'NOTPROVIDED' });
    const [f] = faultsOf(s);
    expect(f).toEqual({ fault: 'orphan_bank_line', settlement_id: s.settlement_id, payin_id: null, entry_ref: orphan?.ref, amount: '42.00', currency: 'EUR', booking_date: s.value_date, remittance: expect.stringMatching(/^INVOICE [0-9A-F]{10}$/) });
    const xml = (await admin(emu)('GET', '/reports/bank-statement.xml')).text;
    expect(xml).toContain(`<Ustrd>${f?.remittance as string}</Ustrd>`);
    expect((await admin(emu)('GET', '/settlements')).json.settlements.map((x: Loose) => x.bank_credit.entry_ref)).not.toContain(orphan?.ref);
  });
});

describe('knobs together', () => {
  test('each pay-in knob takes the first pay-in no other knob took; every effect is recorded in order', async () => {
    await arm({
      omit_payin: { next: 1 },
      alter_amount: { next: 1 },
      unknown_payin: { next: 1 },
      settle_twice: { next: 1 },
      credit_differs: { next: 1 },
      orphan_bank_line: { next: 1 },
    });
    const { s, lines, entries } = await settle();
    expect(lines.map((l) => [l.payin_id, l.amount])).toEqual([
      [p[1]?.payin_id, '21.00'],
      [p[2]?.payin_id, '30.00'],
      [p[2]?.payin_id, '30.00'],
      [lines[3]?.payin_id, '10.00'],
    ]);
    expect(faultsOf(s).map((f) => [f.fault, f.payin_id])).toEqual([
      ['omit_payin', p[0]?.payin_id],
      ['alter_amount', p[1]?.payin_id],
      ['settle_twice', p[2]?.payin_id],
      ['unknown_payin', lines[3]?.payin_id],
      ['credit_differs', null],
      ['orphan_bank_line', null],
    ]);
    expect(entries.map((e) => e.e2e)).toEqual([s.settlement_id, 'NOTPROVIDED']);
    const all = (await admin(emu)('GET', '/settlement-faults')).json;
    expect(all.applied.map((f: Loose) => f.fault)).toEqual(['omit_payin', 'alter_amount', 'settle_twice', 'unknown_payin', 'credit_differs', 'orphan_bank_line']);
    expect(Object.values(all.armed as Record<string, Loose>).every((k) => k.next === 0 && k.payin_ids.length === 0)).toBe(true);
  });

  test('next: N acts on the next N settlements, one effect each, whatever their currency', async () => {
    await succeededPayin(emu, rc.url(), { amount: 10, currency: 'USD' });
    await arm({ credit_differs: { next: 1, delta: '-0.01' }, unknown_payin: { next: 2 } });
    clock.ms += 60_000;
    const made = (await admin(emu)('POST', '/settlements/run')).json.settlements as Loose[];
    expect(made.map((s) => [s.currency, s.faults.map((f: Loose) => f.fault)])).toEqual([
      ['EUR', ['unknown_payin', 'credit_differs']],
      ['USD', ['unknown_payin']],
    ]);
    expect((await admin(emu)('GET', '/settlement-faults')).json.armed.unknown_payin.next).toBe(0);
  });

  test('armed knobs are kept with the state; DELETE disarms them and keeps the record', async () => {
    const { dir, cleanup } = tempDir('paydesk-emu-knobs-');
    try {
      await emu.close();
      emu = await startTestEmulator({ clock, dataFile: `${dir}/state.db` });
      await succeededPayin(emu, rc.url(), { amount: 10, currency: 'EUR' });
      await arm({ settle_twice: { next: 3 }, orphan_bank_line: { payin_ids: ['x'] } });
      await emu.close();
      emu = await startTestEmulator({ clock, dataFile: `${dir}/state.db` });
      expect((await admin(emu)('GET', '/settlement-faults')).json.armed).toMatchObject({ settle_twice: { next: 3 }, orphan_bank_line: { payin_ids: ['x'] } });
      const { s } = await settle();
      expect(faultsOf(s).map((f) => f.fault)).toEqual(['settle_twice']);
      const cleared = (await admin(emu)('DELETE', '/settlement-faults')).json;
      expect(cleared.armed).toMatchObject({ settle_twice: { next: 0 }, orphan_bank_line: { payin_ids: [] } });
      expect(cleared.applied.map((f: Loose) => [f.fault, f.settlement_id])).toEqual([['settle_twice', s.settlement_id]]);
    } finally {
      await emu.close();
      emu = await startTestEmulator();
      cleanup();
    }
  });

  test('bad knob settings are refused with 400 and change nothing', async () => {
    for (const body of [
      { lose_everything: { next: 1 } },
      { omit_payin: 1 },
      { omit_payin: { next: -1 } },
      { omit_payin: { next: 1.5 } },
      { omit_payin: { delta: '1' } },
      { alter_amount: { delta: '0' } },
      { alter_amount: { delta: 'ten' } },
      { unknown_payin: { method: 'paypal' } },
      { orphan_bank_line: { amount: '-1' } },
      { settle_twice: { payin_ids: 'p1' } },
    ]) {
      const res = await admin(emu)('PUT', '/settlement-faults', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    const armed = (await admin(emu)('GET', '/settlement-faults')).json.armed as Record<string, Loose>;
    expect(Object.values(armed).every((k) => k.next === 0)).toBe(true);
  });
});
