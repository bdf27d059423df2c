// Real HTTP on 127.0.0.1 against a scripted fake gateway: the exactly-once rules of the
// AttemptRunner under timeouts, dropped connections, 5xx, 429 and 4xx, byte for byte.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AttemptRunner, type AttemptRunnerDeps } from '../../../src/main/gateway/attempt-runner';
import { GatewayClient } from '../../../src/main/gateway/client';
import { MemoryAttemptStore } from '../../../src/main/gateway/memory-attempt-store';
import { randomIds, realSleep, systemClock } from '../../../src/main/gateway/runtime';
import { numberText } from '../../../src/shared/json';
import { describePayinStatus, describeReason } from '../../../src/shared/spec/codes';
import { TEST_CARD, payinBody, payoutBody } from '../../helpers/fixtures';
import { startFakeGateway, type FakeGateway } from './fake-gateway';

const TOKEN = 'mt_test_SECRET_token_value';
const m = { merchant_id: 'mer_1', merchant_site_id: 'site_1' };
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const created = { status: 'success', status_code: 100, request_id: 'r1', payin_id: '0b5c3f4e-2c1a-4c47-9f53-3f1f3c1b2a10', redirect_url: 'http://x/pay' };

let gw: FakeGateway;
beforeAll(async () => {
  gw = await startFakeGateway();
});
afterAll(() => gw.close());
afterEach(() => {
  gw.requests.length = 0;
  gw.maxInFlight = 0;
  gw.fallback = { type: 'respond', status: 200, body: created };
});

function setup(opts: { timeoutMs?: number; policy?: AttemptRunnerDeps['policy']; store?: MemoryAttemptStore } = {}) {
  const client = new GatewayClient({ baseUrl: gw.baseUrl, merchantToken: TOKEN, timeoutMs: opts.timeoutMs ?? 2_000 });
  const store = opts.store ?? new MemoryAttemptStore();
  const runner = new AttemptRunner({
    transport: client,
    store,
    clock: systemClock,
    sleep: realSleep,
    ids: randomIds,
    policy: { maxTries: 4, maxTotalMs: 10_000, baseDelayMs: 50, factor: 2, maxDelayMs: 400, ...opts.policy },
  });
  return { client, store, runner };
}

/** A port that was free a moment ago: connecting to it is refused. */
async function freePort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The create calls on the wire (a status read carries no key). */
const creates = () => gw.requests.filter((r) => /\/create$/.test(r.path));
const keys = () => creates().map((r) => r.headers['idempotency-key']);
const bodies = () => creates().map((r) => r.body.toString('hex'));

describe('requests on the wire', () => {
  it('sends merchant-token, JSON content type and a UUID v4 Idempotency-Key on create calls, to the spec paths', async () => {
    const { runner, client } = setup();
    await runner.start('payin_create', payinBody(m, 'blik', 'r1'));
    await runner.start('payout_create', payoutBody(m, 'fps', 'p1'));
    await client.payinStatus({ merchant_id: 'mer_1', request_id: 'r1' });
    await client.payoutStatus({ merchant_id: 'mer_1', payout_id: 'po-1' });
    expect(gw.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /api/v2/payment/create',
      'POST /api/v2/payouts/create',
      'POST /api/v2/payment/get-status',
      'POST /api/v2/payouts/get-status',
    ]);
    for (const r of gw.requests) {
      expect(r.headers['merchant-token']).toBe(TOKEN);
      expect(r.headers['content-type']).toBe('application/json');
    }
    expect(keys()[0]).toMatch(UUID_V4);
    expect(keys()[1]).toMatch(UUID_V4);
    expect(keys()[0]).not.toBe(keys()[1]);
    expect(keys()).toHaveLength(2);
    expect(gw.requests.slice(2).map((r) => r.headers['idempotency-key'])).toEqual([undefined, undefined]);
    expect(JSON.parse(gw.requests[2]!.body.toString())).toEqual({ merchant_id: 'mer_1', request_id: 'r1' });
  });

  it('sends the amount with its exact decimal digits and reads answers exactly', async () => {
    const { runner, client } = setup();
    await runner.start('payin_create', payinBody(m, 'crypto', 'r1', { amount: '0.1000000001' }));
    expect(gw.requests[0]!.body.toString()).toMatch(/"amount":0\.1000000001[,}]/);
    gw.script({ type: 'respond', status: 200, body: '{"payin_id":"x","amount":90071992547409.9300000001,"status_code":200}' });
    const read = await client.payinStatus({ merchant_id: 'mer_1', payin_id: 'x' });
    expect(read.kind === 'ok' && numberText(read.body.amount)).toBe('90071992547409.9300000001');
  });

  it('accepts missing, extra and unknown-coded fields and keeps unknown codes as unknown', async () => {
    const { client } = setup();
    gw.script({ type: 'respond', status: 200, body: { status_code: 742, reason_code: 'QUANTUM_DECLINE', brand_new: [1] } });
    const read = await client.payinStatus({ merchant_id: 'mer_1', payin_id: 'x' });
    expect(read).toMatchObject({ kind: 'ok', body: { status_code: 742, reason_code: 'QUANTUM_DECLINE', brand_new: [1] } });
    if (read.kind !== 'ok') return;
    expect(describePayinStatus(read.body.status_code).known).toBe(false);
    expect(describeReason(read.body.reason_code).known).toBe(false);
  });

  it('does not follow redirects and refuses oversized answers', async () => {
    const { client, runner } = setup();
    gw.script({ type: 'respond', status: 302, headers: { location: '/elsewhere' } });
    expect(await runner.start('payin_create', payinBody(m, 'blik', 'r1'))).toMatchObject({ state: 'unknown', tries: 1 });
    expect(gw.requests).toHaveLength(1);
    gw.script({ type: 'respond', status: 200, body: `{"pad":"${'x'.repeat(1_100_000)}"}` });
    expect(await client.payinStatus({ merchant_id: 'mer_1', payin_id: 'x' })).toMatchObject({ kind: 'unexpected_response', status: 200 });
  });
});

describe('exactly-once create calls', () => {
  it('timeout, then success: the retry reuses the same key and the same body bytes', async () => {
    const { runner, store } = setup({ timeoutMs: 300 });
    gw.script({ type: 'hang' }, { type: 'respond', status: 200, body: created });
    const outcome = await runner.start('payin_create', payinBody(m, 'credit_card', 'r1'));
    expect(outcome).toMatchObject({ state: 'succeeded', tries: 2, body: { payin_id: created.payin_id } });
    expect(gw.requests).toHaveLength(2);
    expect(new Set(keys()).size).toBe(1);
    expect(new Set(bodies()).size).toBe(1);
    expect(gw.requests[0]!.body.toString()).toContain(TEST_CARD.number);
    expect((await store.get(outcome.key))?.state).toBe('succeeded');
  });

  it('500, then success: same key and bytes', async () => {
    const { runner } = setup();
    gw.script({ type: 'respond', status: 500, body: { status: 'error', status_code: 501, reason_code: 'SYSTEM_ERROR' } });
    expect(await runner.start('payout_create', payoutBody(m, 'open_banking', 'p1'))).toMatchObject({ state: 'succeeded', tries: 2 });
    expect(new Set(keys()).size).toBe(1);
    expect(new Set(bodies()).size).toBe(1);
  });

  it('connection dropped after the request was read, then success: same key and bytes', async () => {
    const { runner } = setup();
    gw.script({ type: 'drop' });
    expect(await runner.start('payin_create', payinBody(m, 'interac', 'r1'))).toMatchObject({ state: 'succeeded', tries: 2 });
    expect(new Set(keys()).size).toBe(1);
    expect(new Set(bodies()).size).toBe(1);
  });

  it('429 with Retry-After: 1 waits at least a second before the same-key retry', async () => {
    const { runner } = setup();
    gw.script({ type: 'respond', status: 429, headers: { 'retry-after': '1' }, body: { reason_code: 'TRANSIENT_ERROR' } });
    expect(await runner.start('payin_create', payinBody(m, 'blik', 'r1'))).toMatchObject({ state: 'succeeded', tries: 2 });
    expect(gw.requests[1]!.receivedAt - gw.requests[0]!.receivedAt).toBeGreaterThanOrEqual(990);
    expect(new Set(keys()).size).toBe(1);
  });

  it.each([400, 401, 413])('%i is never retried', async (status) => {
    const { runner, store } = setup();
    gw.script({ type: 'respond', status, body: { status: 'error', status_code: 510, reason_code: 'MISSING_PARAMS', details: { email: 'is required' } } });
    const outcome = await runner.start('payin_create', payinBody(m, 'blik', 'r1'));
    expect(outcome).toMatchObject({ state: 'rejected', tries: 1, httpStatus: status, body: { reason_code: 'MISSING_PARAMS', details: { email: 'is required' } } });
    await new Promise((r) => setTimeout(r, 200));
    expect(gw.requests).toHaveLength(1);
    expect((await store.get(outcome.key))?.state).toBe('rejected');
  });

  it('concurrent sends of one attempt reach the server one at a time, and a settled one is not re-sent', async () => {
    const { runner } = setup({ policy: { maxTries: 1 } });
    const key = await runner.prepare('payin_create', payinBody(m, 'blik', 'r1'));
    const slow500 = { type: 'respond', status: 500, body: {}, delayMs: 100 } as const;
    gw.script(slow500, slow500, { type: 'respond', status: 200, body: created, delayMs: 100 });
    const results = await Promise.all([1, 2, 3, 4].map(() => runner.resume(key)));
    expect(results.map((r) => r.state)).toEqual(['unknown', 'unknown', 'succeeded', 'succeeded']);
    expect(results.map((r) => ('tries' in r ? r.tries : -1))).toEqual([1, 1, 1, 0]);
    expect(gw.requests).toHaveLength(3);
    expect(gw.maxInFlight).toBe(1);
    expect(new Set(keys())).toEqual(new Set([key]));
    expect(new Set(bodies()).size).toBe(1);
  });

  it('an unknown outcome stays unknown until a same-key resume settles it', async () => {
    const { runner, store } = setup({ timeoutMs: 150, policy: { maxTries: 2 } });
    gw.fallback = { type: 'hang' };
    const outcome = await runner.start('payout_create', payoutBody(m, 'crypto', 'p1'));
    expect(outcome).toMatchObject({ state: 'unknown', tries: 2 });
    expect(await store.get(outcome.key)).toMatchObject({ state: 'unknown', response: null });
    // Looked up by merchantReference: the gateway does not answer, so it stays unknown.
    expect(await runner.resolveByStatus(outcome.key)).toMatchObject({ state: 'unknown', lookup: 'failed' });
    expect(gw.requests.at(-1)).toMatchObject({ path: expect.stringMatching(/payouts\/get-status$/) });

    gw.fallback = { type: 'respond', status: 200, body: { status: 'success', status_code: 'P100', payout_id: 'po-1' } };
    expect(await runner.resume(outcome.key)).toMatchObject({ state: 'succeeded', tries: 1, body: { payout_id: 'po-1' } });
    expect(new Set(keys())).toEqual(new Set([outcome.key]));
    expect(new Set(bodies()).size).toBe(1);
  });

  it('an unknown pay-in is settled by a status read by request_id, never by a new key', async () => {
    const { runner, store } = setup({ timeoutMs: 150, policy: { maxTries: 1 } });
    gw.script({ type: 'hang' }, { type: 'respond', status: 400, body: { status_code: 512, reason_code: 'INVALID_PARAMS', payin_id: null } }, { type: 'respond', status: 200, body: { ...created, status_code: 101 } });
    const outcome = await runner.start('payin_create', payinBody(m, 'blik', 'r1'));
    expect(outcome.state).toBe('unknown');
    expect(await runner.resolveByStatus(outcome.key)).toMatchObject({ state: 'unknown', lookup: 'not_found' });
    expect((await store.get(outcome.key))?.state).toBe('unknown');
    expect(await runner.resolveByStatus(outcome.key)).toMatchObject({ state: 'succeeded', source: 'status_read', body: { status_code: 101 } });
    expect(gw.requests.map((r) => r.path)).toEqual(['/api/v2/payment/create', '/api/v2/payment/get-status', '/api/v2/payment/get-status']);
    expect(JSON.parse(gw.requests[1]!.body.toString())).toEqual({ merchant_id: 'mer_1', request_id: 'r1' });
  });

  it('after a crash mid-send, the restarted app resumes with the stored key and bytes', async () => {
    const store = new MemoryAttemptStore();
    const before = setup({ store });
    const key = await before.runner.prepare('payin_create', payinBody(m, 'open_banking', 'r1'));
    await store.markSending(key); // the process died here, after the request may have left

    const after = setup({ store });
    expect(await after.runner.recoverInterrupted()).toEqual([key]);
    expect((await store.get(key))?.state).toBe('unknown');
    expect(await after.runner.resume(key)).toMatchObject({ state: 'succeeded', tries: 1 });
    expect(keys()).toEqual([key]);
    expect(gw.requests[0]!.body.toString()).toBe((await store.get(key))?.sanitizedBody);
  });

  it('never puts the merchant-token or card data in outcomes, reasons or stored rows', async () => {
    const closed = new GatewayClient({ baseUrl: `http://127.0.0.1:${await freePort()}/api/v2`, merchantToken: TOKEN, timeoutMs: 1_000 });
    const store = new MemoryAttemptStore();
    const runner = new AttemptRunner({ transport: closed, store, clock: systemClock, sleep: realSleep, ids: randomIds, policy: { maxTries: 2, baseDelayMs: 10, maxDelayMs: 10 } });
    const outcome = await runner.start('payin_create', payinBody(m, 'credit_card', 'r1'));
    expect(outcome).toMatchObject({ state: 'unknown', reason: expect.stringMatching(/connection refused \(ECONNREFUSED\)/) });
    const everything = JSON.stringify([outcome, await store.listByState('unknown')]);
    expect(everything).not.toContain(TOKEN);
    expect(everything).not.toContain(TEST_CARD.number);
    expect(everything).not.toContain(`"cardCvv":"${TEST_CARD.cvv}"`);
  });
});
