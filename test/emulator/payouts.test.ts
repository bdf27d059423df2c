// Payouts (spec 2.7, 3.2; PRODUCT.md choices): the four methods and their paymentDetails,
// P100 -> P101 -> P200 or a C-code, v2_payout_notification, payouts/get-status, C402 for
// invalid or missing fields, and "+s<code>" on customer.email for every code of 3.2.
import { describe, expect, test } from 'vitest';
import type { EmulatorHandle } from '../../src/emulator/index';
import { PAYOUT_STATUS_CATALOGUE } from '../../src/shared/spec/codes';
import { PAYOUT_METHODS } from '../../src/shared/spec/methods';
import { TEST_CARD } from '../helpers/fixtures';
import { admin, api, type Loose, payoutBody, Receiver, useEmulator, waitFor } from './helpers';

let emu: EmulatorHandle;
let rc: Receiver;
useEmulator((e, r) => ([emu, rc] = [e, r]));

const create = (method: string, over: Record<string, unknown> = {}) => api(emu)('/payouts/create', payoutBody(emu, method, rc.url('/payouts'), over));
const read = (payout_id: string) => api(emu)('/payouts/get-status', { merchant_id: emu.merchant.merchant_id, payout_id });
const notified = (id: string) => waitFor(() => rc.delivered('payout_id', id, 'v2_payout_notification')[0], 5_000, `payout notification ${id}`);

function expectC402(r: { status: number; json: Loose }, reason: string, fields: string[]): void {
  expect(r.status).toBe(400);
  expect(r.json).toMatchObject({ status: 'error', status_code: 'C402', reason_code: reason });
  expect(r.json.error_code).toMatch(/^\d{5}$/);
  expect(Object.keys(r.json.details).sort()).toEqual([...fields].sort());
}

describe('lifecycle', () => {
  test.each(PAYOUT_METHODS)('%s: P100 on create, then P101, then P200 with a notification', async (method) => {
    const r = await create(method);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ status: 'success', status_code: 'P100' });
    expect(r.json.payout_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(typeof r.json.merchantReference).toBe('string');
    // The read between create and P101 is the next test's, with timing slow enough for a busy machine.
    const n = await notified(r.json.payout_id);
    expect(n.path).toBe('/payouts');
    expect(n.body).toMatchObject({ event: 'v2_payout_notification', status: 'success', status_code: 'P200', payout_id: r.json.payout_id, method, merchantReference: r.json.merchantReference });
    const final = await read(r.json.payout_id);
    expect(final.json).toMatchObject({ status_code: 'P200', method, currency: payoutBody(emu, method, rc.url()).currency });
    expect(final.text).toContain(method === 'crypto' ? '"amount":0.5' : '"amount":100.25');
  });

  test('P101 is observed between P100 and the final state', async () => {
    const own = await (await import('./helpers')).startTestEmulator({ scenarioTiming: { payinCompleteMs: 50, payoutProcessingMs: 400, payoutFinalMs: 900 } });
    try {
      const r = await api(own)('/payouts/create', payoutBody(own, 'fps', rc.url()));
      const statusOf = async () => (await api(own)('/payouts/get-status', { merchant_id: own.merchant.merchant_id, payout_id: r.json.payout_id })).json.status_code;
      expect(await statusOf()).toBe('P100');
      await waitFor(async () => ((await statusOf()) === 'P101' ? true : undefined), 2_000, 'P101', 100);
      await waitFor(async () => ((await statusOf()) === 'P200' ? true : undefined), 2_000, 'P200', 100);
    } finally {
      await own.close();
    }
  });

  test(`every code of 3.2 is reachable by +s<code> on customer.email`, async () => {
    for (const c of PAYOUT_STATUS_CATALOGUE) {
      const r = await create('crypto', { customer: { firstName: 'A', lastName: 'B', email: `a+s${c.code}@example.com` } });
      expect(r.status).toBe(200);
      if (c.final) {
        const n = await notified(r.json.payout_id);
        expect(n.body).toMatchObject({ status_code: c.code, reason_code: c.defaultReason, status: c.code === 'P200' ? 'success' : 'failed' });
      } else {
        await waitFor(async () => ((await read(r.json.payout_id)).json.status_code === c.code ? true : undefined), 2_000, c.code, 100);
      }
    }
  });

  test('a payout held at P101 is completed through the admin API; final states never change', async () => {
    const r = await create('fps', { customer: { firstName: 'A', lastName: 'B', email: 'a+sP101@example.com' } });
    await waitFor(async () => ((await read(r.json.payout_id)).json.status_code === 'P101' ? true : undefined), 2_000, 'P101', 100);
    expect((await admin(emu)('POST', `/payouts/${r.json.payout_id}/complete`, { status_code: 'C405' })).status).toBe(200);
    expect((await notified(r.json.payout_id)).body.status_code).toBe('C405');
    expect((await admin(emu)('POST', `/payouts/${r.json.payout_id}/complete`, { status_code: 'P200' })).status).toBe(409);
  });

  test('the admin view shows the destination masked, as Paydesk masks it, by the spec’s field names', async () => {
    const r = await create('credit_card');
    const v = await admin(emu)('GET', `/payouts/${r.json.payout_id}`);
    expect(v.json.destination).toMatchObject({ method: 'credit_card', cardNum: '411111******1111' });
    expect(v.text).not.toContain(TEST_CARD.number);
    const fps = await admin(emu)('GET', `/payouts/${(await create('fps')).json.payout_id}`);
    expect(fps.json.destination).toMatchObject({ method: 'fps', accountNumber: '••••5678' });
  });
});

describe('validation: C402', () => {
  const REQUIRED = ['merchant_id', 'site_id', 'method', 'amount', 'currency', 'merchantReference', 'country', 'notificationUrl', 'customer', 'paymentDetails'];
  test.each(REQUIRED.filter((f) => f !== 'merchant_id'))('missing %s', async (field) => {
    const reason = field === 'method' ? 'MISSING_PAYMENT_METHOD' : field === 'amount' ? 'MISSING_AMOUNT' : 'MISSING_PARAMS';
    const r = await create('fps', { [field]: undefined });
    if (field === 'method') {
      // without a method the paymentDetails.method cannot match either
      expect(r.json).toMatchObject({ status_code: 'C402', reason_code: reason });
      return;
    }
    expectC402(r, reason, [field]);
  });

  test('mode is optional but only "direct"; customer.phone is optional', async () => {
    expect((await create('fps', { mode: undefined })).status).toBe(200);
    expectC402(await create('fps', { mode: 'batch' }), 'INVALID_PARAMS', ['mode']);
    expect((await create('fps', { customer: { firstName: 'A', lastName: 'B', email: 'a@b.co' } })).status).toBe(200);
  });

  test('customer needs firstName, lastName and email', async () => {
    expectC402(await create('fps', { customer: { phone: 'x' } }), 'MISSING_PARAMS', ['customer.firstName', 'customer.lastName', 'customer.email', 'customer.phone']);
  });

  const DETAILS: Record<string, string[]> = {
    credit_card: ['cardNum', 'cardHolder', 'cardExpireMonth', 'cardExpireYear'],
    open_banking: ['iban', 'bic', 'accountHolder'],
    crypto: ['walletAddress', 'network'],
    fps: ['sortCode', 'accountNumber', 'accountHolder'],
  };
  test.each(PAYOUT_METHODS)('%s paymentDetails without its fields names each of them', async (method) => {
    expectC402(await create(method, { paymentDetails: { method } }), 'MISSING_PARAMS', (DETAILS[method] as string[]).map((f) => `paymentDetails.${f}`));
  });

  test.each([
    ['fps', { sortCode: '12-34-56' }, 'INVALID_PARAMS', 'sortCode'],
    ['fps', { accountNumber: '1234567' }, 'INVALID_PARAMS', 'accountNumber'],
    ['open_banking', { iban: 'GB82WEST12345698765431' }, 'INVALID_PARAMS', 'iban'],
    ['open_banking', { bic: 'NW' }, 'INVALID_PARAMS', 'bic'],
    ['crypto', { walletAddress: 'short' }, 'INVALID_PARAMS', 'walletAddress'],
    ['credit_card', { cardNum: '5555555555554445' }, 'INVALID_CARD_NUMBER', 'cardNum'],
    ['credit_card', { cardExpireMonth: '13' }, 'INVALID_EXPIRY', 'cardExpireMonth'],
    ['credit_card', { cardHolder: '  ' }, 'INVALID_CARDHOLDER_NAME', 'cardHolder'],
  ])('%s with %j is C402 %s', async (method, patch, reason, field) => {
    const body = payoutBody(emu, method, rc.url());
    const r = await api(emu)('/payouts/create', { ...body, paymentDetails: { ...(body.paymentDetails as object), ...patch } });
    expectC402(r, reason, [`paymentDetails.${field}`]);
  });

  test('an expired payout card names month and year', async () => {
    const body = payoutBody(emu, 'credit_card', rc.url());
    const r = await api(emu)('/payouts/create', { ...body, paymentDetails: { ...(body.paymentDetails as object), cardExpireYear: '2001' } });
    expectC402(r, 'INVALID_EXPIRY', ['paymentDetails.cardExpireMonth', 'paymentDetails.cardExpireYear']);
  });

  test('paymentDetails.method must equal method', async () => {
    expectC402(await create('fps', { paymentDetails: { ...(payoutBody(emu, 'fps', rc.url()).paymentDetails as object), method: 'crypto' } }), 'INVALID_PAYMENT_METHOD', ['paymentDetails.method']);
  });

  test.each([
    ['amount', 10.123, 'INVALID_AMOUNT'],
    ['amount', -5, 'INVALID_AMOUNT'],
    ['currency', 'POUND', 'UNSUPPORTED_CURRENCY'],
    ['country', 'GB', 'UNSUPPORTED_COUNTRY'],
    ['site_id', 'elsewhere', 'INVALID_SITE'],
    ['method', 'paypal', 'INVALID_PAYMENT_METHOD'],
    ['notificationUrl', 'not a url', 'INVALID_PARAMS'],
  ])('%s = %j is C402 %s', async (field, value, reason) => {
    const r = await create('fps', { [field]: value });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ status_code: 'C402', reason_code: reason });
    expect(r.json.details).toHaveProperty(field);
  });

  test('crypto payouts take up to 10 decimals', async () => {
    expect((await create('crypto', { amount: 0.0000000001 })).status).toBe(200);
  });
});

describe('payouts/get-status', () => {
  test('needs payout_id or merchantReference; an unknown one is C402 naming it', async () => {
    const missing = await api(emu)('/payouts/get-status', { merchant_id: emu.merchant.merchant_id });
    expectC402(missing, 'MISSING_PARAMS', ['payout_id', 'merchantReference']);
    const unknown = await read('00000000-0000-4000-8000-000000000000');
    expectC402(unknown, 'INVALID_PARAMS', ['payout_id']);
    const unknownReference = await api(emu)('/payouts/get-status', { merchant_id: emu.merchant.merchant_id, merchantReference: 'never-sent' });
    expectC402(unknownReference, 'INVALID_PARAMS', ['merchantReference']);
  });

  test('finds a payout by its merchantReference (our extension: a payout whose create answer was lost), the newest of that reference', async () => {
    const reference = `lost-${Date.now()}`;
    const created = await create('fps', { merchantReference: reference });
    expect(created.status).toBe(200);
    const byReference = await api(emu)('/payouts/get-status', { merchant_id: emu.merchant.merchant_id, merchantReference: reference });
    expect(byReference.status).toBe(200);
    expect(byReference.json).toMatchObject({ payout_id: created.json.payout_id, merchantReference: reference });
    const again = await create('fps', { merchantReference: reference });
    const newest = await api(emu)('/payouts/get-status', { merchant_id: emu.merchant.merchant_id, merchantReference: reference });
    expect(newest.json.payout_id).toBe(again.json.payout_id);
  });
});
