// Spec 2.1 and section 8 through real HTTP: every method's required fields, every value rule,
// and the code each failure carries (PRODUCT.md's table), with `details` naming every field.
import { describe, expect, test } from 'vitest';
import type { EmulatorHandle } from '../../src/emulator/index';
import { PAYIN_FIELD_RULES, payinFieldsFor } from '../../src/shared/spec/field-rules';
import { PAYIN_METHODS } from '../../src/shared/spec/methods';
import { api, payinBody, Receiver, useEmulator } from './helpers';

let emu: EmulatorHandle;
let rc: Receiver;
useEmulator((e, r) => ([emu, rc] = [e, r]));

const create = (over: Record<string, unknown>, method = 'credit_card') => api(emu)('/payment/create', payinBody(emu, method, rc.url(), over));

function expectError(r: Awaited<ReturnType<typeof create>>, status_code: number, reason_code: string, fields: string[]): void {
  expect(r.status).toBe(400);
  expect(r.json).toMatchObject({ status: 'error', status_code, reason_code, payin_id: null });
  expect(r.json.error_code).toMatch(/^\d{5}$/);
  expect(Object.keys(r.json.details ?? {}).sort()).toEqual([...fields].sort());
}

const CONDITIONAL: Record<string, string[]> = {
  credit_card: ['mobile', 'address', 'city', 'zipCode', 'state', 'birthDate', 'cardNum', 'cardHolder', 'cardExpireMonth', 'cardExpireYear', 'cardCvv'],
  credit_card_ftd: ['mobile', 'address', 'city', 'zipCode', 'state', 'birthDate', 'cardNum', 'cardHolder', 'cardExpireMonth', 'cardExpireYear', 'cardCvv'],
  interac: ['mobile', 'address', 'city', 'zipCode'],
  blik: ['mobile'],
  googlepay: ['mobile', 'address', 'city', 'zipCode', 'state', 'birthDate'],
  applepay: ['mobile', 'address', 'city', 'zipCode', 'state', 'birthDate'],
  open_banking: [],
  crypto: [],
};

const UNCONDITIONAL = ['merchant_id', 'merchant_site_id', 'payment_method', 'amount', 'currency', 'email', 'request_id', 'country', 'notification_link', 'success_url', 'pending_url', 'fail_url', 'back_url', 'device_ip', 'first_name', 'last_name'];

describe('required fields per payment_method (2.1)', () => {
  test('the shared table has the 27 fields of 2.1, 16 unconditional', () => {
    expect(PAYIN_FIELD_RULES).toHaveLength(27);
    expect(PAYIN_FIELD_RULES.filter((r) => r.required === 'always').map((r) => r.field)).toEqual(UNCONDITIONAL);
  });

  test.each(PAYIN_METHODS)('a complete %s pay-in is accepted with 100 and a redirect_url', async (method) => {
    const r = await create({}, method);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ status: 'success', status_code: 100 });
    expect(r.json.payin_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.json.redirect_url).toBe(`${emu.hostedUrl}/${r.json.payin_id}`);
    expect(Date.parse(r.json.created_at)).not.toBeNaN();
  });

  test.each(PAYIN_METHODS)('%s without its conditional fields is 510 naming exactly them', async (method) => {
    const body = payinBody(emu, method, rc.url());
    for (const f of CONDITIONAL[method] as string[]) delete body[f];
    const r = await api(emu)('/payment/create', body);
    if ((CONDITIONAL[method] as string[]).length === 0) {
      expect(r.status).toBe(200);
      return;
    }
    expectError(r, 510, 'MISSING_PARAMS', CONDITIONAL[method] as string[]);
    expect(payinFieldsFor(method).map((f) => f.field)).toEqual([...UNCONDITIONAL, ...(CONDITIONAL[method] as string[])]);
  });

  test.each(UNCONDITIONAL.filter((f) => !['merchant_id', 'amount', 'payment_method'].includes(f)))('missing %s is 510 MISSING_PARAMS', async (field) => {
    const r = await create({ [field]: undefined });
    expectError(r, 510, 'MISSING_PARAMS', [field]);
  });

  test.each([null, '', '   '])('a blank value (%j) counts as missing', async (blank) => {
    expectError(await create({ email: blank }), 510, 'MISSING_PARAMS', ['email']);
  });

  test('missing merchant_id is 510 (it cannot be checked against the token)', async () => {
    expectError(await create({ merchant_id: undefined }), 510, 'MISSING_PARAMS', ['merchant_id']);
  });

  test('conditional fields are optional for other methods but still checked when sent', async () => {
    expect((await create({ mobile: undefined }, 'crypto')).status).toBe(200);
    expectError(await create({ mobile: 'call me' }, 'crypto'), 512, 'INVALID_PARAMS', ['mobile']);
  });
});

describe('payment_method, amount, site, currency, country', () => {
  test('missing payment_method is 506', async () => expectError(await create({ payment_method: undefined }), 506, 'MISSING_PAYMENT_METHOD', ['payment_method']));
  test('an unknown payment_method is 508', async () => expectError(await create({ payment_method: 'paypal' }), 508, 'INVALID_PAYMENT_METHOD', ['payment_method']));
  test('a non-string payment_method is 508', async () => expectError(await create({ payment_method: 3 }), 508, 'INVALID_PAYMENT_METHOD', ['payment_method']));
  test('missing amount is 503', async () => expectError(await create({ amount: undefined }), 503, 'MISSING_AMOUNT', ['amount']));
  test.each([['"25.50"'], ['0'], ['-1'], ['10.123'], ['1e-3'], ['true']])('amount %s is 504', async (amount) => {
    const body = JSON.stringify({ ...payinBody(emu, 'credit_card', rc.url()), amount: '__A__' }).replace('"__A__"', amount);
    expectError(await api(emu)('/payment/create', body), 504, 'INVALID_AMOUNT', ['amount']);
  });
  test.each([['10'], ['10.5'], ['10.50'], ['10.500'], ['1e2']])('fiat amount %s is accepted (value has at most 2 decimals)', async (amount) => {
    const body = JSON.stringify({ ...payinBody(emu, 'credit_card', rc.url()), amount: '__A__' }).replace('"__A__"', amount);
    expect((await api(emu)('/payment/create', body)).status).toBe(200);
  });
  test('crypto takes up to 10 decimals exactly and answers the amount from its source text', async () => {
    const body = JSON.stringify({ ...payinBody(emu, 'crypto', rc.url()), amount: '__A__' }).replace('"__A__"', '0.1234567891');
    const r = await api(emu)('/payment/create', body);
    expect(r.status).toBe(200);
    const read = await api(emu)('/payment/get-status', { merchant_id: emu.merchant.merchant_id, payin_id: r.json.payin_id });
    expect(read.text).toContain('"amount":0.1234567891');
    const eleven = JSON.stringify({ ...payinBody(emu, 'crypto', rc.url()), amount: '__A__' }).replace('"__A__"', '0.12345678912');
    expectError(await api(emu)('/payment/create', eleven), 504, 'INVALID_AMOUNT', ['amount']);
  });
  test('amounts are never rounded through floats (15 significant integer digits and cents survive)', async () => {
    const body = JSON.stringify({ ...payinBody(emu, 'blik', rc.url()), amount: '__A__' }).replace('"__A__"', '900719925474099.31');
    const r = await api(emu)('/payment/create', body);
    const read = await api(emu)('/payment/get-status', { merchant_id: emu.merchant.merchant_id, payin_id: r.json.payin_id });
    expect(read.text).toContain('"amount":900719925474099.31');
  });
  test('a wrong site id is 505', async () => expectError(await create({ merchant_site_id: 'site-of-someone-else' }), 505, 'INVALID_SITE', ['merchant_site_id']));
  test.each(['EURO', 'eur', 'XYZ', 'EU'])('currency %s is 402', async (currency) => expectError(await create({ currency }), 402, 'UNSUPPORTED_CURRENCY', ['currency']));
  test.each(['DE', 'deu', 'XXX', 'GERMANY'])('country %s is 401', async (country) => expectError(await create({ country }), 401, 'UNSUPPORTED_COUNTRY', ['country']));
  test.each(['USD', 'JPY', 'BRL'])('ISO 4217 currency %s is accepted', async (currency) => expect((await create({ currency })).status).toBe(200));
});

describe('card fields', () => {
  const year = new Date().getUTCFullYear();
  test.each(['12', '12345', '12a', ''])('CVV %j is 317 (blank is missing: 510)', async (cvv) => {
    const r = await create({ cardCvv: cvv });
    if (cvv === '') expectError(r, 510, 'MISSING_PARAMS', ['cardCvv']);
    else expectError(r, 317, 'INVALID_CVV', ['cardCvv']);
  });
  test.each(['123', '1234'])('CVV %s is accepted', async (cvv) => expect((await create({ cardCvv: cvv })).status).toBe(200));
  test('an expired card is 318 naming month and year', async () => {
    expectError(await create({ cardExpireMonth: '01', cardExpireYear: String(year - 1) }), 318, 'INVALID_EXPIRY', ['cardExpireMonth', 'cardExpireYear']);
  });
  test.each([['13', String(year + 1), ['cardExpireMonth']], ['1', String(year + 1), ['cardExpireMonth']], ['05', '27', ['cardExpireYear']], ['05', String(year + 40), ['cardExpireYear']]])(
    'expiry %s/%s is 318',
    async (m, y, fields) => expectError(await create({ cardExpireMonth: m, cardExpireYear: y }), 318, 'INVALID_EXPIRY', fields as string[]),
  );
  test('the current month is not expired', async () => {
    const now = new Date();
    expect((await create({ cardExpireMonth: String(now.getUTCMonth() + 1).padStart(2, '0'), cardExpireYear: String(now.getUTCFullYear()) })).status).toBe(200);
  });
  test.each(['   ', '1234', '--'])('cardholder name %j without a word is 319', async (name) => expectError(await create({ cardHolder: name }), 319, 'INVALID_CARDHOLDER_NAME', ['cardHolder']));
  test('a one-word cardholder name is accepted', async () => expect((await create({ cardHolder: 'Madonna' })).status).toBe(200));
  test.each(['4111111111111112', '4111 1111 1111 1111', '41111', 'abcd'])('card number %s is 517', async (n) => expectError(await create({ cardNum: n }), 517, 'INVALID_CARD_NUMBER', ['cardNum']));
});

describe('other values are 512 INVALID_PARAMS', () => {
  test.each([
    ['email', 'not-an-email'],
    ['notification_link', 'ftp://x.example/'],
    ['success_url', '/relative'],
    ['device_ip', '999.1.1.1'],
    ['device_ip', 'localhost'],
    ['mobile', '0151 123'],
    ['birthDate', '1990-02-30'],
    ['birthDate', '2999-01-01'],
    ['first_name', 42],
    ['address', { street: 'x' }],
  ])('%s = %j', async (field, value) => expectError(await create({ [field]: value }), 512, 'INVALID_PARAMS', [field]));
  test('IPv6 device_ip is accepted', async () => expect((await create({ device_ip: '2001:db8::1' })).status).toBe(200));
});

describe('several failures at once', () => {
  test('details names every offending field; the codes follow the documented precedence', async () => {
    const r = await create({ email: 'x', cardCvv: '1', currency: 'EURO', city: undefined, merchant_site_id: 'nope' });
    expectError(r, 505, 'INVALID_SITE', ['email', 'cardCvv', 'currency', 'city', 'merchant_site_id']);
    const r2 = await create({ email: 'x', cardCvv: '1', city: undefined });
    expectError(r2, 510, 'MISSING_PARAMS', ['email', 'cardCvv', 'city']);
    const r3 = await create({ email: 'x', cardCvv: '1' });
    expectError(r3, 317, 'INVALID_CVV', ['email', 'cardCvv']);
  });

  test('request_id is echoed in validation errors', async () => {
    const r = await create({ request_id: 'echo-me', cardCvv: 'x' });
    expect(r.json.request_id).toBe('echo-me');
  });

  test('a request_id can be used by one pay-in only', async () => {
    const first = await create({ request_id: 'once-only' });
    expect(first.status).toBe(200);
    const again = await create({ request_id: 'once-only' });
    expectError(again, 512, 'INVALID_PARAMS', ['request_id']);
  });
});
