// Tokenization and token charge (spec 2.5, 2.6, 5; PRODUCT.md choices): merchant_jwt verified
// with jose (EdDSA, registered kid, iat window, single-use jti, op and claims), consent, the
// tokenization notification with card metadata, token charge with CVV, and the reason code of
// every JWT and token failure. No full PAN or CVV ever leaves the emulator.
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { EmulatorHandle } from '../../src/emulator/index';
import { TEST_CARD } from '../helpers/fixtures';
import { admin, api, cardlessPayinBody, nowSeconds, Receiver, registerMerchantKey, startTestEmulator, tokenizeClaims, waitFor, type MerchantKey, type Loose } from './helpers';

let emu: EmulatorHandle;
let rc: Receiver;
let key: MerchantKey;
beforeAll(async () => {
  emu = await startTestEmulator();
  rc = await new Receiver().start();
  key = await registerMerchantKey(emu);
});
afterAll(async () => {
  await rc.close();
  await emu.close();
});

const tokenize = async (claims: Record<string, unknown> = {}, over: Record<string, unknown> = {}, jwt?: string) =>
  api(emu)('/payment/create/tokenization', {
    ...cardlessPayinBody(emu, rc.url('/payin'), over),
    merchant_jwt: jwt ?? (await key.sign(tokenizeClaims(emu, claims))),
    consent: true,
    tokenization_notification_url: rc.url('/tokens'),
    ...over,
  });

const decryptClaims = (token: string, over: Record<string, unknown> = {}) => ({ jti: randomUUID(), op: 'decrypt', sub: emu.merchant.merchant_id, iat: nowSeconds(), token, ...over });

const charge = async (token: string, claims: Record<string, unknown> = {}, over: Record<string, unknown> = {}) =>
  api(emu)('/payment/create/token', { ...cardlessPayinBody(emu, rc.url('/payin'), over), merchant_jwt: await key.sign(decryptClaims(token, claims)), cardCvv: '123', ...over });

async function vaultedToken(email = 'ana@example.com'): Promise<{ token: string; payin_id: string }> {
  const r = await tokenize({}, { email });
  expect(r.status).toBe(200);
  const n = await waitFor(() => rc.delivered('payin_id', r.json.payin_id, 'v2_tokenization_notification')[0], 3_000, 'tokenization notification');
  return { token: n.body.token as string, payin_id: r.json.payin_id as string };
}

function expectJwtError(r: { status: number; json: Loose }, reason: string, errorCode?: string): void {
  expect(r.status).toBe(400);
  expect(r.json).toMatchObject({ status: 'error', reason_code: reason });
  expect(r.json.details).toHaveProperty('merchant_jwt');
  if (errorCode) expect(r.json.error_code).toBe(errorCode);
}

describe('tokenization', () => {
  test('answers like 2.2, then sends v2_tokenization_notification with the token and card metadata only', async () => {
    const r = await tokenize();
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ status: 'success', status_code: 100 });
    expect(r.json.redirect_url).toContain(r.json.payin_id);
    const n = await waitFor(() => rc.delivered('payin_id', r.json.payin_id, 'v2_tokenization_notification')[0], 3_000);
    expect(n.path).toBe('/tokens');
    expect(n.body).toMatchObject({ event: 'v2_tokenization_notification', status_code: 200, payin_id: r.json.payin_id, request_id: r.json.request_id });
    expect(n.body.token).toMatch(/^tok_/);
    expect(n.body.card).toEqual({ brand: 'visa', bin: '411111', last4: '1111', exp_month: TEST_CARD.expMonth, exp_year: TEST_CARD.expYear });
    expect(n.raw).not.toContain('4111111111111111');
    const adminView = await admin(emu)('GET', `/payins/${r.json.payin_id}`);
    expect(adminView.text).not.toContain('4111111111111111');
  });

  test('the pay-in part follows the normal lifecycle (+s200 → v2_payin_notification)', async () => {
    const r = await tokenize({}, { email: 'ana+s200@example.com' });
    const n = await waitFor(() => rc.delivered('payin_id', r.json.payin_id, 'v2_payin_notification')[0], 3_000);
    expect(n.path).toBe('/payin');
    expect(n.body.status_code).toBe(200);
  });

  test('a card-data scenario tag (+s517) fails the vaulting: no token', async () => {
    const r = await tokenize({}, { email: 'ana+s517@example.com' });
    const n = await waitFor(() => rc.delivered('payin_id', r.json.payin_id, 'v2_tokenization_notification')[0], 3_000);
    expect(n.body).toMatchObject({ status_code: 517, reason_code: 'INVALID_CARD_NUMBER', token: null });
  });

  test.each([
    ['consent false', { consent: false }, 512, 'INVALID_PARAMS', 'consent'],
    ['consent "true" (a string)', { consent: 'true' }, 512, 'INVALID_PARAMS', 'consent'],
    ['consent missing', { consent: undefined }, 510, 'MISSING_PARAMS', 'consent'],
    ['tokenization_notification_url missing', { tokenization_notification_url: undefined }, 510, 'MISSING_PARAMS', 'tokenization_notification_url'],
    ['merchant_jwt missing', { merchant_jwt: undefined }, 510, 'MISSING_PARAMS', 'merchant_jwt'],
    ['card number in the body', { cardNum: '4111111111111111' }, 512, 'INVALID_PARAMS', 'cardNum'],
    ['a non-card method', { payment_method: 'blik' }, 508, 'INVALID_PAYMENT_METHOD', 'payment_method'],
  ])('%s is refused', async (_n, over, code, reason, field) => {
    const r = await tokenize({}, over as Record<string, unknown>);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ status_code: code, reason_code: reason });
    expect(Object.keys(r.json.details)).toEqual([field]);
    expect(r.text).not.toContain('4111111111111111');
  });
});

describe('merchant_jwt failures', () => {
  test('not a JWS', async () => expectJwtError(await tokenize({}, {}, 'abc.def.ghi'), 'INVALID_MERCHANT_JWT', '40001'));
  test('alg other than EdDSA (HS256)', async () => {
    const jwt = await new SignJWT(tokenizeClaims(emu)).setProtectedHeader({ alg: 'HS256', kid: key.kid }).sign(new TextEncoder().encode('x'.repeat(32)));
    expectJwtError(await tokenize({}, {}, jwt), 'INVALID_MERCHANT_JWT', '40002');
  });
  test('unknown kid', async () => expectJwtError(await tokenize({}, {}, await key.sign(tokenizeClaims(emu), { kid: 'nobody' })), 'INVALID_MERCHANT_JWT', '40003'));
  test('signed by another key under a registered kid', async () => {
    const other = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    const jwt = await new SignJWT(tokenizeClaims(emu)).setProtectedHeader({ alg: 'EdDSA', kid: key.kid }).sign(other.privateKey);
    expectJwtError(await tokenize({}, {}, jwt), 'INVALID_MERCHANT_JWT', '40004');
  });
  test('a tampered payload', async () => {
    const [h, , s] = (await key.sign(tokenizeClaims(emu))).split('.');
    const forged = Buffer.from(JSON.stringify(tokenizeClaims(emu, { cardholder_number: '5555555555554444' }))).toString('base64url');
    expectJwtError(await tokenize({}, {}, `${h}.${forged}.${s}`), 'INVALID_MERCHANT_JWT', '40004');
  });
  test.each([
    ['iat 125 s in the past', { iat: nowSeconds() - 125 }],
    ['iat 125 s in the future', { iat: nowSeconds() + 125 }],
    ['iat missing', { iat: undefined }],
    ['exp in the past', { exp: nowSeconds() - 1 }],
  ])('%s', async (_n, claims) => expectJwtError(await tokenize(claims), 'INVALID_MERCHANT_JWT', '40005'));
  test('iat 100 s old is still accepted', async () => expect((await tokenize({ iat: nowSeconds() - 100 })).status).toBe(200));
  test('a jti is never accepted twice', async () => {
    const jti = randomUUID();
    expect((await tokenize({ jti })).status).toBe(200);
    expectJwtError(await tokenize({ jti }), 'INVALID_MERCHANT_JWT', '40006');
  });
  test('a refused request does not consume the jti', async () => {
    const jti = randomUUID();
    expect((await tokenize({ jti }, { consent: false })).status).toBe(400);
    expect((await tokenize({ jti })).status).toBe(200);
  });
  test('op=decrypt on the tokenization endpoint', async () => expectJwtError(await tokenize({ op: 'decrypt' }), 'INVALID_MERCHANT_JWT', '40007'));
  test('sub of another merchant', async () => expectJwtError(await tokenize({ sub: 'someone-else' }), 'INVALID_MERCHANT_JWT', '40008'));
  test('missing card claims', async () => expectJwtError(await tokenize({ cardholder_number: undefined }), 'INVALID_MERCHANT_JWT'));
  test('a token claim on op=tokenize', async () => expectJwtError(await tokenize({ token: 'tok_x' }), 'INVALID_MERCHANT_JWT', '40009'));
  test.each([
    ['Luhn failure', { cardholder_number: '4111111111111112' }, 517, 'INVALID_CARD_NUMBER'],
    ['no word in the name', { cardholder_name: '   ' }, 319, 'INVALID_CARDHOLDER_NAME'],
    ['expired card', { cardholder_exp_year: String(new Date().getUTCFullYear() - 1) }, 318, 'INVALID_EXPIRY'],
  ])('card claims: %s', async (_n, claims, code, reason) => {
    const r = await tokenize(claims);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ status_code: code, reason_code: reason, error_code: '40010' });
    expect(r.text).not.toContain('4111111111111112');
  });
  test('a kid registered for another merchant is refused at registration', async () => {
    const k = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
    const r = await admin(emu)('POST', '/keys', { merchant_id: 'other', kid: 'x', public_jwk: await exportJWK(k.publicKey) });
    expect(r.status).toBe(404);
    const priv = await admin(emu)('POST', '/keys', { merchant_id: emu.merchant.merchant_id, kid: 'x', public_jwk: await exportJWK(k.privateKey) });
    expect(priv.status).toBe(400);
  });
});

describe('token charge', () => {
  test('charges a vaulted token with op=decrypt and a CVV; the pay-in carries the card metadata', async () => {
    const { token } = await vaultedToken();
    const r = await charge(token, {}, { email: 'ana+s200@example.com' });
    expect(r.status).toBe(200);
    expect(r.json.status_code).toBe(100);
    const n = await waitFor(() => rc.delivered('payin_id', r.json.payin_id, 'v2_payin_notification')[0], 3_000);
    expect(n.body.status_code).toBe(200);
    const view = await admin(emu)('GET', `/payins/${r.json.payin_id}`);
    expect(view.json).toMatchObject({ kind: 'token_charge', token, card: { bin: '411111', last4: '1111' } });
    expect(view.text).not.toMatch(/"cardCvv"|"123"/);
  });

  test.each([
    ['missing cardCvv', { cardCvv: undefined }, 510, 'MISSING_PARAMS', 'cardCvv'],
    ['a 2-digit CVV', { cardCvv: '12' }, 317, 'INVALID_CVV', 'cardCvv'],
    ['a card number in the body', { cardNum: '4111111111111111' }, 512, 'INVALID_PARAMS', 'cardNum'],
    ['an expiry in the body', { cardExpireMonth: '12' }, 512, 'INVALID_PARAMS', 'cardExpireMonth'],
  ])('%s is refused', async (_n, over, code, reason, field) => {
    const { token } = await vaultedToken();
    const r = await charge(token, {}, over as Record<string, unknown>);
    expect(r.json).toMatchObject({ status_code: code, reason_code: reason });
    expect(Object.keys(r.json.details)).toEqual([field]);
  });

  test('an unknown token is INVALID_OR_EXPIRED_TOKEN', async () => {
    expectJwtError(await charge('tok_doesnotexist'), 'INVALID_OR_EXPIRED_TOKEN', '40011');
  });

  test('a revoked token is INVALID_OR_EXPIRED_TOKEN', async () => {
    const { token } = await vaultedToken();
    expect((await admin(emu)('POST', `/tokens/${token}/revoke`)).status).toBe(200);
    expectJwtError(await charge(token), 'INVALID_OR_EXPIRED_TOKEN', '40011');
  });

  test('op=tokenize on the token endpoint, card claims on op=decrypt, a missing token claim, a reused jti', async () => {
    const { token } = await vaultedToken();
    expectJwtError(await charge(token, { op: 'tokenize' }), 'INVALID_MERCHANT_JWT', '40007');
    expectJwtError(await charge(token, { cardholder_number: '4111111111111111' }), 'INVALID_MERCHANT_JWT', '40009');
    expectJwtError(await charge(token, { token: undefined }), 'INVALID_MERCHANT_JWT', '40009');
    const jti = randomUUID();
    expect((await charge(token, { jti })).status).toBe(200);
    expectJwtError(await charge(token, { jti }), 'INVALID_MERCHANT_JWT', '40006');
  });

  test('a token of another emulator instance (another merchant) is refused', async () => {
    const other = await startTestEmulator();
    try {
      const k = await registerMerchantKey(other);
      const body = { ...cardlessPayinBody(other, rc.url()), merchant_jwt: await k.sign({ jti: randomUUID(), op: 'decrypt', sub: other.merchant.merchant_id, iat: nowSeconds(), token: 'tok_x' }), cardCvv: '123' };
      expectJwtError(await api(other)('/payment/create/token', body), 'INVALID_OR_EXPIRED_TOKEN');
    } finally {
      await other.close();
    }
  });
});

describe('iat window at its exact edges (frozen clock)', () => {
  test('120 s either way is accepted, 121 s is not', async () => {
    const frozen = Date.parse('2030-06-15T12:00:00Z');
    const own = await startTestEmulator({ clock: { now: () => frozen } });
    try {
      const k = await registerMerchantKey(own);
      const at = frozen / 1000;
      const body = async (iat: number) => ({
        ...cardlessPayinBody(own, rc.url()),
        merchant_jwt: await k.sign({ ...tokenizeClaims(own), iat, cardholder_exp_year: '2032' }),
        consent: true,
        tokenization_notification_url: rc.url('/tokens'),
      });
      for (const iat of [at - 120, at + 120]) expect((await api(own)('/payment/create/tokenization', await body(iat))).status).toBe(200);
      for (const iat of [at - 121, at + 121]) expect((await api(own)('/payment/create/tokenization', await body(iat))).json.error_code).toBe('40005');
    } finally {
      await own.close();
    }
  });
});
