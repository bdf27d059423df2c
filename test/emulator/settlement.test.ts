// Settlement: successful pay-ins are settled per currency, once per period, after the period has
// closed (or at once through the admin API), each once, less a fee per method, exactly.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { EmulatorHandle } from '../../src/emulator/index';
import { LosslessNumber } from '../../src/shared/json';
import { tempDir } from '../helpers/temp-dir';
import { admin, api, csvRecords, ManualClock, payinBody, Receiver, startTestEmulator, succeededPayin, waitFor, type Loose } from './helpers';

let rc: Receiver;
beforeAll(async () => {
  rc = await new Receiver().start();
});
afterAll(async () => {
  await rc.close();
});

async function withEmulator(clock: ManualClock, run: (emu: EmulatorHandle) => Promise<void>, opts: Parameters<typeof startTestEmulator>[0] = {}): Promise<void> {
  const emu = await startTestEmulator({ clock, ...opts });
  try {
    await run(emu);
  } finally {
    await emu.close();
  }
}

const settleNow = async (emu: EmulatorHandle, mode?: 'now' | 'closed'): Promise<Loose[]> => {
  const res = await admin(emu)('POST', '/settlements/run', mode ? { mode } : undefined);
  expect(res.status).toBe(200);
  return res.json.settlements as Loose[];
};

describe('settlement per currency and period', () => {
  test('a closed day is settled once per currency; the open day waits; each pay-in settles once', async () => {
    const clock = new ManualClock('2024-05-01T10:00:00Z');
    await withEmulator(clock, async (emu) => {
      const a = await succeededPayin(emu, rc.url(), { amount: 25.5, currency: 'EUR' });
      const b = await succeededPayin(emu, rc.url(), { amount: 40, currency: 'USD' });
      clock.set('2024-05-01T23:59:59.999Z');
      const c = await succeededPayin(emu, rc.url(), { amount: 10, currency: 'EUR' });
      // Neither pending nor failed pay-ins are settled.
      await api(emu)('/payment/create', payinBody(emu, 'credit_card', rc.url(), { currency: 'EUR' }));
      const failed = await api(emu)('/payment/create', payinBody(emu, 'credit_card', rc.url(), { currency: 'EUR' }));
      await admin(emu)('POST', `/payins/${failed.json.payin_id as string}/complete`, { status_code: 302 });
      clock.set('2024-05-02T00:00:00.000Z');
      const d = await succeededPayin(emu, rc.url(), { amount: 5, currency: 'EUR' });

      clock.set('2024-05-02T02:00:00Z');
      const first = await settleNow(emu, 'closed');
      expect(first.map((s) => [s.currency, s.period_start, s.period_end, s.settled_at, s.value_date, s.lines])).toEqual([
        ['EUR', '2024-05-01T00:00:00.000Z', '2024-05-02T00:00:00.000Z', '2024-05-02T02:00:00.000Z', '2024-05-02', 2],
        ['USD', '2024-05-01T00:00:00.000Z', '2024-05-02T00:00:00.000Z', '2024-05-02T02:00:00.000Z', '2024-05-02', 1],
      ]);
      expect(first[0]?.settlement_id).toMatch(/^STL-20240501-EUR-[0-9A-F]{10}$/);
      expect(first[1]?.settlement_id).toMatch(/^STL-20240501-USD-[0-9A-F]{10}$/);
      expect(await settleNow(emu, 'closed')).toEqual([]);

      clock.set('2024-05-03T00:00:01Z');
      const second = await settleNow(emu, 'closed');
      expect(second.map((s) => [s.currency, s.period_start, s.lines, s.gross])).toEqual([['EUR', '2024-05-02T00:00:00.000Z', 1, '5.00']]);

      const report = csvRecords((await admin(emu)('GET', '/reports/settlement.csv')).text);
      const settled = report.map((r) => r.payin_id);
      expect(settled.sort()).toEqual([a.payin_id, b.payin_id, c.payin_id, d.payin_id].sort());
      expect((await admin(emu)('GET', '/settlements')).json).toMatchObject({ period: '1d', count: 3 });
    });
  });

  test('"settle now" closes the open period at this moment; the rest of the period is settled after it ends', async () => {
    const clock = new ManualClock('2024-05-01T10:00:00Z');
    await withEmulator(clock, async (emu) => {
      await succeededPayin(emu, rc.url(), { amount: 1, currency: 'EUR' });
      clock.set('2024-05-01T12:00:00Z');
      const [early] = await settleNow(emu);
      expect(early).toMatchObject({ period_start: '2024-05-01T00:00:00.000Z', period_end: '2024-05-01T12:00:00.000Z', lines: 1 });
      clock.set('2024-05-01T13:00:00Z');
      await succeededPayin(emu, rc.url(), { amount: 2, currency: 'EUR' });
      expect(await settleNow(emu, 'closed')).toEqual([]);
      clock.set('2024-05-02T00:00:00.050Z');
      const [late] = await settleNow(emu, 'closed');
      expect(late).toMatchObject({ period_start: '2024-05-01T12:00:00.000Z', period_end: '2024-05-02T00:00:00.000Z', lines: 1, gross: '2.00' });
    });
  });

  test('a shorter period (settlement.periodMs) settles each window of it', async () => {
    const clock = new ManualClock('2024-05-01T10:05:00Z');
    await withEmulator(
      clock,
      async (emu) => {
        await succeededPayin(emu, rc.url(), { currency: 'EUR' });
        clock.set('2024-05-01T11:15:00Z');
        await succeededPayin(emu, rc.url(), { currency: 'EUR' });
        clock.set('2024-05-01T12:01:00Z');
        const made = await settleNow(emu, 'closed');
        expect(made.map((s) => [s.period_start, s.period_end])).toEqual([
          ['2024-05-01T10:00:00.000Z', '2024-05-01T11:00:00.000Z'],
          ['2024-05-01T11:00:00.000Z', '2024-05-01T12:00:00.000Z'],
        ]);
        expect((await admin(emu)('GET', '/settlements')).json.period).toBe('1h');
      },
      { settlement: { periodMs: 3_600_000 } },
    );
  });

  test('the emulator settles by itself just after each period ends (real time, 1 s periods)', async () => {
    const emu = await startTestEmulator({ settlement: { periodMs: 1_000 } });
    try {
      const p = await succeededPayin(emu, rc.url(), { currency: 'EUR' });
      const settled = await waitFor(async () => {
        const list = (await admin(emu)('GET', '/settlements')).json.settlements as Loose[];
        return list.length > 0 ? list : undefined;
      }, 5_000, 'a settlement');
      expect(settled).toHaveLength(1);
      const csv = (await admin(emu)('GET', `/settlements/${settled[0]?.settlement_id as string}/report.csv`)).text;
      expect(csv).toContain(p.payin_id);
    } finally {
      await emu.close();
    }
  });

  test('periods that ended while the emulator was stopped are settled when it starts again; ids stay', async () => {
    const { dir, cleanup } = tempDir('paydesk-emu-settle-');
    try {
      const file = `${dir}/state.db`;
      const clock = new ManualClock('2024-05-01T10:00:00Z');
      let settledBefore: Loose[] = [];
      await withEmulator(clock, async (emu) => {
        await succeededPayin(emu, rc.url(), { currency: 'EUR' });
        clock.set('2024-05-01T11:00:00Z');
        settledBefore = await settleNow(emu);
        clock.set('2024-05-01T12:00:00Z');
        await succeededPayin(emu, rc.url(), { currency: 'EUR', amount: 7.25 });
      }, { dataFile: file });
      clock.set('2024-05-02T08:00:00Z');
      await withEmulator(clock, async (emu) => {
        const list = await waitFor(async () => {
          const l = (await admin(emu)('GET', '/settlements')).json.settlements as Loose[];
          return l.length === 2 ? l : undefined;
        }, 5_000, 'the catch-up settlement');
        expect(list[0]).toEqual(settledBefore[0]);
        expect(list[1]).toMatchObject({ period_start: '2024-05-01T11:00:00.000Z', period_end: '2024-05-02T00:00:00.000Z', gross: '7.25', settled_at: '2024-05-02T08:00:00.000Z' });
      }, { dataFile: file });
    } finally {
      cleanup();
    }
  });
});

describe('fees and net, exactly', () => {
  test('each line: fee by its method rounded half up to the currency, net = amount − fee; totals are the sums', async () => {
    const clock = new ManualClock('2024-05-01T10:00:00Z');
    await withEmulator(clock, async (emu) => {
      const lines: [method: string, amount: string, currency: string, reported: string, fee: string, net: string][] = [
        ['credit_card', '25.5', 'EUR', '25.50', '0.99', '24.51'], // 0.7395 + 0.25 = 0.9895
        ['open_banking', '5', 'EUR', '5.00', '0.13', '4.87'], // 0.025 + 0.10 = 0.125: half up, not to even
        ['blik', '0.1', 'EUR', '0.10', '0.00', '0.10'], // 0.0015
        ['credit_card', '999999999999999.99', 'EUR', '999999999999999.99', '29000000000000.25', '970999999999999.74'], // beyond a double's digits
        ['credit_card', '1000', 'JPY', '1000', '29', '971'], // no minor units: 29.25 → 29
        ['credit_card', '10', 'KWD', '10.000', '0.540', '9.460'], // three minor units
        ['credit_card', '0.1', 'USD', '0.10', '0.10', '0.00'], // the fee never exceeds the amount
      ];
      for (const [method, amount, currency] of lines) {
        clock.ms += 1; // one after the other, so the report lists them in this order
        await succeededPayin(emu, rc.url(), { amount: new LosslessNumber(amount), currency }, method);
      }
      clock.set('2024-05-01T11:00:00Z');
      const made = await settleNow(emu);
      const report = csvRecords((await admin(emu)('GET', '/reports/settlement.csv')).text);
      const byCurrency = [...lines].sort((x, y) => x[2].localeCompare(y[2]));
      expect(report.map((r) => [r.method, r.amount, r.currency, r.fee, r.net])).toEqual(byCurrency.map(([method, , currency, reported, fee, net]) => [method, reported, currency, fee, net]));
      expect(made.find((s) => s.currency === 'EUR')).toMatchObject({ gross: '1000000000000030.59', fees: '29000000000001.37', net: '971000000000029.22' });
      expect(made.find((s) => s.currency === 'JPY')).toMatchObject({ gross: '1000', fees: '29', net: '971' });
    });
  });

  test('fees are configurable (option and admin API); a settled line keeps the fee it was settled with', async () => {
    const clock = new ManualClock('2024-05-01T10:00:00Z');
    await withEmulator(
      clock,
      async (emu) => {
        expect((await admin(emu)('GET', '/settlement-fees')).json.fees.blik).toEqual({ percent: '2', fixed: '0.1' });
        await succeededPayin(emu, rc.url(), { amount: 10, currency: 'PLN' }, 'blik');
        clock.set('2024-05-01T10:30:00Z');
        const [first] = await settleNow(emu);
        expect(first).toMatchObject({ fees: '0.30', net: '9.70' });
        const changed = await admin(emu)('PUT', '/settlement-fees', { blik: { percent: '0' } });
        expect(changed.json.fees.blik).toEqual({ percent: '0', fixed: '0.1' });
        expect((await admin(emu)('PUT', '/settlement-fees', { blik: { percent: '101' } })).status).toBe(400);
        expect((await admin(emu)('PUT', '/settlement-fees', { paypal: { percent: '1' } })).status).toBe(400);
        clock.set('2024-05-01T11:00:00Z');
        await succeededPayin(emu, rc.url(), { amount: 10, currency: 'PLN' }, 'blik');
        clock.set('2024-05-01T11:30:00Z');
        const [second] = await settleNow(emu);
        expect(second).toMatchObject({ fees: '0.10', net: '9.90' });
        expect((await admin(emu)('GET', `/settlements/${first?.settlement_id as string}`)).json).toMatchObject({ fees: '0.30', net: '9.70' });
        expect((await admin(emu)('DELETE', '/settlement-fees')).json.fees.blik).toEqual({ percent: '2', fixed: '0.1' });
      },
      { settlement: { fees: { blik: { percent: '2', fixed: '0.1' } } } },
    );
  });
});

test('settlement options out of range are refused at start', async () => {
  await expect(startTestEmulator({ settlement: { periodMs: 999 } })).rejects.toThrow(/periodMs/);
  await expect(startTestEmulator({ settlement: { periodMs: 86_400_001 } })).rejects.toThrow(/periodMs/);
  await expect(startTestEmulator({ settlement: { fees: { blik: { percent: '150', fixed: '0' } } } })).rejects.toThrow(/settlement.fees.blik: percent/);
});
