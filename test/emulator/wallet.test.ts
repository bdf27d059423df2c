// The payout wallet: a payout is debited when created and credited back when it fails; a top-up
// credits it. Payouts are never refused for funds unless balances are enforced (then C405).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { EmulatorHandle } from '../../src/emulator/index';
import { admin, api, csvRecords, payoutBody, Receiver, startTestEmulator, waitFor, type Loose } from './helpers';

let emu: EmulatorHandle;
let rc: Receiver;
beforeAll(async () => {
  rc = await new Receiver().start();
});
afterAll(async () => {
  await rc.close();
});

async function fresh(): Promise<EmulatorHandle> {
  emu = await startTestEmulator();
  return emu;
}

const wallet = async (currency: string): Promise<Loose | undefined> => ((await admin(emu)('GET', '/wallet')).json.wallets as Loose[]).find((w) => w.currency === currency);

async function payout(over: Record<string, unknown>): Promise<string> {
  const res = await api(emu)('/payouts/create', payoutBody(emu, 'open_banking', rc.url(), over));
  expect(res.status).toBe(200);
  return res.json.payout_id as string;
}

const finalStatus = (payoutId: string): Promise<string> =>
  waitFor(async () => {
    const code = (await admin(emu)('GET', `/payouts/${payoutId}`)).json.status_code as string;
    return code === 'P100' || code === 'P101' ? undefined : code;
  }, 5_000, `payout ${payoutId} final`);

describe('payout wallet', () => {
  test('a payout is debited when created; success moves nothing more; a failure is credited back; a top-up credits', async () => {
    await fresh();
    try {
      const ok = await payout({ amount: 100.25, currency: 'EUR' });
      expect(await wallet('EUR')).toMatchObject({ balance: '-100.25', wallet_id: expect.stringMatching(/^WAL-EUR-[0-9A-F]{10}$/) });
      expect(await finalStatus(ok)).toBe('P200');
      expect((await wallet('EUR'))?.balance).toBe('-100.25');

      const failed = await payout({ amount: 40, currency: 'EUR', customer: { firstName: 'Bo', lastName: 'Ek', email: 'bo+sC501@example.com' } });
      expect((await wallet('EUR'))?.balance).toBe('-140.25');
      expect(await finalStatus(failed)).toBe('C501');
      expect((await wallet('EUR'))?.balance).toBe('-100.25');

      const topup = await admin(emu)('POST', '/wallet/topups', { currency: 'EUR', amount: '500.00' });
      expect(topup.status).toBe(200);
      expect(topup.json).toMatchObject({ currency: 'EUR', amount: '500.00', balance: '399.75', wallet_id: (await wallet('EUR'))?.wallet_id });
      expect(await wallet('GBP')).toBeUndefined();

      const report = csvRecords((await admin(emu)('GET', '/reports/settlement.csv')).text);
      expect(report.map((r) => [r.type, r.payout_id, r.topup_id, r.method, r.amount, r.fee, r.net, r.direction])).toEqual([
        ['payout', ok, '', 'open_banking', '100.25', '0.00', '100.25', 'debit'],
        ['payout', failed, '', 'open_banking', '40.00', '0.00', '40.00', 'debit'],
        ['payout_reversal', failed, '', 'open_banking', '40.00', '0.00', '40.00', 'credit'],
        ['topup', '', topup.json.topup_id, '', '500.00', '0.00', '500.00', 'credit'],
      ]);
      expect(report.every((r) => r.wallet_id === topup.json.wallet_id && r.settlement_id === '' && r.payin_id === '')).toBe(true);
      expect(report[0]?.merchantReference).toMatch(/^po-/);
    } finally {
      await emu.close();
    }
  });

  test('a payout failed through the admin API is credited back once', async () => {
    await fresh();
    try {
      const id = await payout({ amount: 10, currency: 'GBP', customer: { firstName: 'Bo', lastName: 'Ek', email: 'bo+sP101@example.com' } });
      await waitFor(async () => ((await admin(emu)('GET', `/payouts/${id}`)).json.status_code === 'P101' ? true : undefined), 5_000, 'P101');
      expect((await wallet('GBP'))?.balance).toBe('-10.00');
      expect((await admin(emu)('POST', `/payouts/${id}/complete`, { status_code: 'C403' })).status).toBe(200);
      expect((await admin(emu)('POST', `/payouts/${id}/complete`, { status_code: 'C404' })).status).toBe(409);
      expect((await wallet('GBP'))?.balance).toBe('0.00');
    } finally {
      await emu.close();
    }
  });

  test('by default a payout is never refused for funds; with enforce_balance one above the balance ends C405 and is not debited', async () => {
    await fresh();
    try {
      expect((await admin(emu)('GET', '/wallet')).json).toEqual({ enforce_balance: false, wallets: [] });
      expect(await finalStatus(await payout({ amount: 1_000_000, currency: 'EUR' }))).toBe('P200');

      expect((await admin(emu)('PUT', '/wallet', { enforce_balance: true })).json.enforce_balance).toBe(true);
      await admin(emu)('POST', '/wallet/topups', { currency: 'USD', amount: 50 });
      const refused = await api(emu)('/payouts/create', payoutBody(emu, 'open_banking', rc.url(), { amount: 100.25, currency: 'USD' }));
      expect(refused.json).toMatchObject({ status: 'success', status_code: 'P100' }); // the create answers as always
      expect(await finalStatus(refused.json.payout_id as string)).toBe('C405');
      const read = await api(emu)('/payouts/get-status', { merchant_id: emu.merchant.merchant_id, payout_id: refused.json.payout_id });
      expect(read.json).toMatchObject({ status: 'failed', status_code: 'C405', reason_code: 'INSUFFICIENT_FUNDS' });
      expect((await wallet('USD'))?.balance).toBe('50.00');
      expect(await finalStatus(await payout({ amount: 20, currency: 'USD' }))).toBe('P200');
      expect((await wallet('USD'))?.balance).toBe('30.00');
      const report = csvRecords((await admin(emu)('GET', '/reports/settlement.csv?currency=USD')).text);
      expect(report.map((r) => r.type)).toEqual(['topup', 'payout']);
    } finally {
      await emu.close();
    }
  });

  test('bad top-ups and settings are refused with 400', async () => {
    await fresh();
    try {
      for (const body of [{ currency: 'EURO', amount: '1' }, { currency: 'EUR', amount: '0' }, { currency: 'EUR', amount: '-5' }, { currency: 'EUR' }, { currency: 'EUR', amount: '1', extra: 1 }]) {
        expect((await admin(emu)('POST', '/wallet/topups', body)).status).toBe(400);
      }
      expect((await admin(emu)('PUT', '/wallet', { enforce_balance: 'yes' })).status).toBe(400);
      expect((await admin(emu)('GET', '/wallet')).json.wallets).toEqual([]);
    } finally {
      await emu.close();
    }
  });
});
