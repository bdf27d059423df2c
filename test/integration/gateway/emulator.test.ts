// The gateway client against the real emulator, in-process over real HTTP: every pay-in
// method, status reads, tokenization with a JWT signed here, token charge, every payout method,
// and exactly-once behaviour where the emulator can show it (replay of a lost answer, 500).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../../../src/emulator';
import { AttemptRunner } from '../../../src/main/gateway/attempt-runner';
import { GatewayClient } from '../../../src/main/gateway/client';
import { exportPublicJwk, generateMerchantKeyPair, type MerchantKeyPair } from '../../../src/main/gateway/jwt-keys';
import { MemoryAttemptStore } from '../../../src/main/gateway/memory-attempt-store';
import { signMerchantJwt } from '../../../src/main/gateway/merchant-jwt';
import { randomIds, realSleep, systemClock } from '../../../src/main/gateway/runtime';
import { numberText } from '../../../src/shared/json';
import { compareAmounts } from '../../../src/shared/money';
import { PAYIN_METHODS, PAYOUT_METHODS } from '../../../src/shared/spec/methods';
import { TEST_CARD, payinBody, payoutBody, tokenChargeBody, tokenizationBody, type TestMerchant } from '../../helpers/fixtures';
import { startNotificationSink, type NotificationSink } from './notification-sink';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let emu: EmulatorHandle;
let sink: NotificationSink;
let merchant: TestMerchant;
let client: GatewayClient;
let store: MemoryAttemptStore;
let runner: AttemptRunner;
let seq = 0;
const ref = (prefix: string) => `${prefix}-${Date.now()}-${++seq}`;

async function admin(path: string, body: unknown, method = 'POST'): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${emu.adminUrl}${path}`, { method, headers: { 'content-type': 'application/json' }, body: method === 'DELETE' ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

function newRunner(s: MemoryAttemptStore) {
  return new AttemptRunner({ transport: client, store: s, clock: systemClock, sleep: realSleep, ids: randomIds, policy: { maxTries: 3, maxTotalMs: 10_000, baseDelayMs: 50, maxDelayMs: 200 } });
}

beforeAll(async () => {
  emu = await startEmulator({ quiet: true });
  sink = await startNotificationSink();
  merchant = { merchant_id: emu.merchant.merchant_id, merchant_site_id: emu.merchant.merchant_site_id };
  client = new GatewayClient({ baseUrl: emu.baseUrl, merchantToken: emu.merchant.merchant_token, timeoutMs: 5_000 });
  store = new MemoryAttemptStore();
  runner = newRunner(store);
});

afterAll(async () => {
  await sink?.close();
  await emu?.close();
});

describe('pay-ins', () => {
  it.each(PAYIN_METHODS)('creates a %s pay-in and reads its status by payin_id and by request_id', async (method) => {
    const requestId = ref(method);
    const outcome = await runner.start('payin_create', payinBody(merchant, method, requestId, { notify: sink.url }));
    expect(outcome).toMatchObject({ state: 'succeeded', tries: 1, httpStatus: 200, body: { status: 'success', status_code: 100, request_id: requestId } });
    if (outcome.state !== 'succeeded') return;
    const payinId = outcome.body.payin_id as string;
    expect(payinId).toMatch(UUID);
    expect((await store.get(outcome.key))?.state).toBe('succeeded');

    const byId = await client.payinStatus({ merchant_id: merchant.merchant_id, payin_id: payinId });
    const byRef = await client.payinStatus({ merchant_id: merchant.merchant_id, request_id: requestId });
    for (const read of [byId, byRef]) {
      expect(read).toMatchObject({ kind: 'ok', body: { payin_id: payinId, request_id: requestId, status_code: 100, payment_method: method } });
    }
    if (byId.kind !== 'ok') return;
    const expected = method === 'crypto' ? '0.1234567891' : '10.50';
    expect(compareAmounts(numberText(byId.body.amount) as string, expected)).toBe(0);
    if (method === 'crypto') expect(numberText(byId.body.amount)).toBe('0.1234567891');
  });

  it('follows a +s200 scenario to its final status with a bounded status poll', async () => {
    const requestId = ref('scenario');
    await runner.start('payin_create', payinBody(merchant, 'open_banking', requestId, { email: 'ana+s200@example.com', notify: sink.url }));
    let status: unknown;
    for (let i = 0; i < 40 && status !== 200; i++) {
      const read = await client.payinStatus({ merchant_id: merchant.merchant_id, request_id: requestId });
      status = read.kind === 'ok' ? read.body.status_code : status;
      if (status !== 200) await realSleep(100);
    }
    expect(status).toBe(200);
  });

  it('a refused request (400) is rejected once, with the spec 2.3 body, and never retried', async () => {
    const body = payinBody(merchant, 'credit_card', ref('bad'), { notify: sink.url });
    delete body.cardCvv;
    const outcome = await runner.start('payin_create', body);
    expect(outcome).toMatchObject({ state: 'rejected', tries: 1, httpStatus: 400, body: { status: 'error', status_code: 510, reason_code: 'MISSING_PARAMS', details: { cardCvv: expect.any(String) } } });
  });

  it('a wrong merchant-token is a 401 rejection', async () => {
    const wrong = new GatewayClient({ baseUrl: emu.baseUrl, merchantToken: 'mt_wrong', timeoutMs: 5_000 });
    expect(await wrong.payinStatus({ merchant_id: merchant.merchant_id, request_id: 'x' })).toMatchObject({ kind: 'rejected', status: 401 });
  });

  it('a 429 on status reads carries Retry-After', async () => {
    await admin('/faults', { api: { force_rate_limit: 1 } });
    const read = await client.payinStatus({ merchant_id: merchant.merchant_id, request_id: 'anything' });
    expect(read).toMatchObject({ kind: 'rate_limited', status: 429, retryAfterSeconds: 1, body: { reason_code: 'TRANSIENT_ERROR' } });
  });
});

describe('exactly-once against the emulator', () => {
  it('a 500 is retried with the same key and the pay-in is created once', async () => {
    await admin('/faults', { api: { create_errors: 1 } });
    const requestId = ref('retry500');
    const outcome = await runner.start('payin_create', payinBody(merchant, 'blik', requestId, { notify: sink.url }));
    expect(outcome).toMatchObject({ state: 'succeeded', tries: 2 });
  });

  it('a lost answer after a crash: resume with the same key replays the first pay-in, no second one', async () => {
    const crashed = new MemoryAttemptStore();
    const before = newRunner(crashed);
    const requestId = ref('lost');
    const key = await before.prepare('payin_create', payinBody(merchant, 'googlepay', requestId, { notify: sink.url }));
    await crashed.markSending(key);
    // The request left and the gateway acted, but the app died before reading the answer.
    const first = await client.sendCreate('payin_create', (await crashed.get(key))?.sanitizedBody as string, key);
    expect(first.kind).toBe('ok');

    const after = newRunner(crashed);
    await after.recoverInterrupted();
    const resumed = await after.resume(key);
    expect(resumed).toMatchObject({ state: 'succeeded', tries: 1 });
    expect(resumed.state === 'succeeded' && resumed.body.payin_id).toBe(first.kind === 'ok' && first.body.payin_id);
  });

  it('an attempt interrupted before its request left is not found by a status read, then sent with its key', async () => {
    const crashed = new MemoryAttemptStore();
    const requestId = ref('never-left');
    const key = await newRunner(crashed).prepare('payin_create', payinBody(merchant, 'crypto', requestId, { notify: sink.url }));
    await crashed.markSending(key);
    const after = newRunner(crashed);
    await after.recoverInterrupted();
    expect(await after.resolveByStatus(key)).toMatchObject({ state: 'unknown', lookup: 'not_found' });
    expect(await after.resume(key)).toMatchObject({ state: 'succeeded', body: { request_id: requestId } });
    expect(await after.resolveByStatus(key)).toMatchObject({ state: 'succeeded', source: 'create', tries: 0 });
  });
});

describe('tokenization and token charge', () => {
  let key: MerchantKeyPair;

  beforeAll(async () => {
    key = await generateMerchantKeyPair();
    const registered = await admin('/keys', { merchant_id: merchant.merchant_id, kid: key.kid, public_jwk: exportPublicJwk(key) });
    expect(registered).toMatchObject({ status: 200, body: { status: 'registered', kid: key.kid } });
  });

  it('vaults a card from a JWT signed here, then charges the token', async () => {
    const tokenizeJwt = await signMerchantJwt(key, { op: 'tokenize', merchantId: merchant.merchant_id, card: TEST_CARD });
    const tokenizeRef = ref('tokenize');
    const vaulted = await runner.start('tokenization_create', tokenizationBody(merchant, tokenizeRef, tokenizeJwt, sink.url));
    expect(vaulted).toMatchObject({ state: 'succeeded', body: { status_code: 100, request_id: tokenizeRef } });
    const stored = await store.get(vaulted.key);
    expect(stored?.sanitizedBody).not.toContain(tokenizeJwt);
    expect(stored?.replayable).toBe(false);

    const notification = await sink.waitFor((n) => n.event === 'v2_tokenization_notification' && n.request_id === tokenizeRef, 5_000);
    expect(notification.card).toMatchObject({ bin: '411111', last4: '1111' });
    const token = notification.token as string;
    expect(typeof token).toBe('string');

    const chargeJwt = await signMerchantJwt(key, { op: 'decrypt', merchantId: merchant.merchant_id, token });
    const chargeRef = ref('charge');
    const charged = await runner.start('token_charge_create', tokenChargeBody(merchant, chargeRef, chargeJwt, sink.url));
    expect(charged).toMatchObject({ state: 'succeeded', body: { status: 'success', status_code: 100, request_id: chargeRef } });
    const read = await client.payinStatus({ merchant_id: merchant.merchant_id, request_id: chargeRef });
    expect(read).toMatchObject({ kind: 'ok', body: { request_id: chargeRef } });
  });

  it('a JWT signed by an unregistered key is refused once with INVALID_MERCHANT_JWT', async () => {
    const stranger = await generateMerchantKeyPair();
    const jwt = await signMerchantJwt(stranger, { op: 'tokenize', merchantId: merchant.merchant_id, card: TEST_CARD });
    const outcome = await runner.start('tokenization_create', tokenizationBody(merchant, ref('stranger'), jwt, sink.url));
    expect(outcome).toMatchObject({ state: 'rejected', tries: 1, httpStatus: 400, body: { reason_code: 'INVALID_MERCHANT_JWT' } });
  });
});

describe('payouts', () => {
  it.each(PAYOUT_METHODS)('creates a %s payout and reads its status by payout_id', async (method) => {
    const reference = ref(`po-${method}`);
    const outcome = await runner.start('payout_create', payoutBody(merchant, method, reference, { notify: sink.url }));
    expect(outcome).toMatchObject({ state: 'succeeded', tries: 1, body: { status_code: 'P100', merchantReference: reference } });
    if (outcome.state !== 'succeeded') return;
    const payoutId = (outcome.body as { payout_id?: string }).payout_id as string;
    expect(payoutId).toMatch(UUID);

    const read = await client.payoutStatus({ merchant_id: merchant.merchant_id, payout_id: payoutId });
    expect(read).toMatchObject({ kind: 'ok', body: { payout_id: payoutId, merchantReference: reference, method } });
    if (read.kind !== 'ok') return;
    expect(['P100', 'P101', 'P200']).toContain(read.body.status_code);
    if (method === 'crypto') expect(numberText(read.body.amount)).toBe('0.0000000001');
    else expect(compareAmounts(numberText(read.body.amount) as string, '99.90')).toBe(0);
  });

  it('a +sC405 payout ends with C405, read with a bounded poll', async () => {
    const outcome = await runner.start('payout_create', payoutBody(merchant, 'fps', ref('po-c405'), { email: 'ana+sC405@example.com', notify: sink.url }));
    const payoutId = outcome.state === 'succeeded' ? ((outcome.body as { payout_id?: string }).payout_id as string) : '';
    let status: unknown;
    for (let i = 0; i < 60 && status !== 'C405'; i++) {
      const read = await client.payoutStatus({ merchant_id: merchant.merchant_id, payout_id: payoutId });
      status = read.kind === 'ok' ? read.body.status_code : status;
      if (status !== 'C405') await realSleep(100);
    }
    expect(status).toBe('C405');
  });
});
