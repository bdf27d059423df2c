// Exactly-once create calls, proved at the wire: a sandbox profile points at a proxy in front of
// the real emulator that loses answers, loses requests, stalls (timeouts) and answers 429 / 503
// on demand, and records every request with its Idempotency-Key and exact body.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ProfileView } from '../../../src/shared/contract';
import { INTERRUPTED } from '../../../src/main/services/payments/attempt-service';
import { startFaultProxy, type FaultProxy } from './fault-proxy';
import { admin, emulatorPayins, gatewayProfile, payinForm, startHarness, TEST_PAN, type Harness } from './harness';

const TIMEOUT_MS = 500;
let h: Harness;
let proxy: FaultProxy;
let sandbox: ProfileView;
let seq = 0;
const ref = (prefix: string) => `${prefix}-${Date.now()}-${++seq}`;

beforeAll(async () => {
  h = await startHarness({ timeoutMs: TIMEOUT_MS });
  proxy = await startFaultProxy(() => new URL(h.core.local.baseUrl).origin);
  // The sandbox profile speaks to the emulator's merchant through the proxy.
  sandbox = await gatewayProfile(h, 'Faulty gateway', 'sandbox', `${proxy.url}/api/`, h.core.local.merchant);
});

afterAll(async () => {
  await h?.close();
  await proxy?.close();
});

beforeEach(() => {
  proxy.faults.length = 0;
});

const createsFor = (requestId: string) => proxy.creates().filter((r) => (JSON.parse(r.body) as { request_id?: string }).request_id === requestId);
const create = (method: Parameters<typeof payinForm>[0], requestId: string) => h.call('payins:create', payinForm(method, { requestId, profileId: sandbox.id }));

function expectOneKeyAndBody(requests: { idempotencyKey: string | null; body: string }[], key: string): void {
  expect(requests.length).toBeGreaterThan(0);
  for (const request of requests) {
    expect(request.idempotencyKey).toBe(key);
    expect(request.body).toBe(requests[0]?.body);
  }
}

describe('transient failures are retried with the same key and bytes', () => {
  it('resends after an answer lost in flight; the gateway replays it and holds one pay-in', async () => {
    proxy.faults.push('drop_after');
    const requestId = ref('lost-answer');
    const result = await create('open_banking', requestId);
    expect(result).toMatchObject({ outcome: 'succeeded', tries: 2, payin: { statusCode: '100' }, attempt: { state: 'succeeded' } });
    const sent = createsFor(requestId);
    expect(sent.map((r) => r.fault)).toEqual(['drop_after', null]);
    expectOneKeyAndBody(sent, result.attempt.idempotencyKey);
    expect((await emulatorPayins(h.core, requestId)).matching).toBe(1);
    expect((await h.call('payins:get', { profileId: sandbox.id, requestId })).attempts).toHaveLength(1);
  });

  it('backs off after a 5xx and honours Retry-After after a 429', async () => {
    proxy.faults.push('status_503', 'status_429');
    const requestId = ref('busy-gateway');
    const result = await create('crypto', requestId);
    expect(result).toMatchObject({ outcome: 'succeeded', tries: 3, payin: { amount: '0.1234567891', statusCode: '100' } });
    const sent = createsFor(requestId);
    expect(sent.map((r) => r.fault)).toEqual(['status_503', 'status_429', null]);
    expectOneKeyAndBody(sent, result.attempt.idempotencyKey);
    expect((sent[1]?.at ?? 0) - (sent[0]?.at ?? 0)).toBeGreaterThanOrEqual(45); // the policy's first backoff (50 ms)
    expect((sent[2]?.at ?? 0) - (sent[1]?.at ?? 0)).toBeGreaterThanOrEqual(990); // Retry-After: 1 is a floor
  });

  it('never retries a 400: the refusal is final on the row and sent once', async () => {
    await admin(h.core, '/merchant', { disabled_methods: ['blik'] }, 'PUT');
    try {
      const requestId = ref('refused');
      const result = await create('blik', requestId);
      expect(result).toMatchObject({
        outcome: 'rejected',
        tries: 1,
        gatewayError: { httpStatus: 400, statusCode: '509', reasonCode: 'PAYMENT_METHOD_NOT_ENABLED' },
        payin: { statusCode: '509', final: true, payinId: null },
        attempt: { state: 'rejected', httpStatus: 400 },
      });
      expect(result.nextStep.action).not.toBe('resolve_unknown'); // a refusal is known, not unknown
      expect(createsFor(requestId)).toHaveLength(1);
    } finally {
      await admin(h.core, '/merchant', { disabled_methods: [] }, 'PUT');
    }
  });
});

describe('an unknown outcome', () => {
  it('stays unknown (never failed) after timeouts, and a status read settles it without a new key', async () => {
    proxy.faults.push('hang_after', 'hang_after', 'hang_after');
    const requestId = ref('timeouts');
    const started = Date.now();
    const result = await create('open_banking', requestId);
    expect(Date.now() - started).toBeLessThan(3 * TIMEOUT_MS + 1_500);
    expect(result).toMatchObject({ outcome: 'unknown', tries: 3, nextStep: { action: 'resolve_unknown' }, attempt: { state: 'unknown' } });
    expect(result.attempt.error).toMatch(/timeout/);
    expect(result.payin).toMatchObject({ statusCode: null, final: false, payinId: null, attempt: { state: 'unknown' } });
    const sent = createsFor(requestId);
    expect(sent).toHaveLength(3);
    expectOneKeyAndBody(sent, result.attempt.idempotencyKey);
    expect((await emulatorPayins(h.core, requestId)).matching).toBe(1); // the gateway did act, once

    const read = await h.call('payins:read-status', { profileId: sandbox.id, requestId });
    expect(read.read).toMatchObject({ result: 'ok', statusCode: '100' });
    expect(read.payin).toMatchObject({ statusCode: '100', attempt: { idempotencyKey: result.attempt.idempotencyKey, state: 'succeeded' } });
    expect(read.payin?.payinId).toMatch(/^[0-9a-f-]{36}$/);
    const detail = await h.call('payins:get', { profileId: sandbox.id, requestId });
    expect(detail.attempts).toEqual([expect.objectContaining({ idempotencyKey: result.attempt.idempotencyKey, state: 'succeeded', responseSource: 'status_read' })]);
    expect(createsFor(requestId)).toHaveLength(3); // settled by reading, nothing resent
  });

  it('is resent under its own key when the gateway never received it, and two resumes at once send once', async () => {
    proxy.faults.push('drop_before', 'drop_before', 'drop_before');
    const requestId = ref('never-arrived');
    const result = await create('interac', requestId);
    expect(result).toMatchObject({ outcome: 'unknown', tries: 3 });
    expect((await emulatorPayins(h.core, requestId)).matching).toBe(0);

    const [first, second] = await Promise.all([
      h.call('attempts:resume', { key: result.attempt.idempotencyKey }),
      h.call('attempts:resume', { key: result.attempt.idempotencyKey }),
    ]);
    for (const resumed of [first, second]) expect(resumed).toMatchObject({ outcome: 'succeeded', payin: { statusCode: '100' }, attempt: { state: 'succeeded' } });
    const sent = createsFor(requestId);
    expect(sent).toHaveLength(4); // three lost, one delivered: never two sends of one attempt at once
    expectOneKeyAndBody(sent, result.attempt.idempotencyKey);
    expect((await emulatorPayins(h.core, requestId)).matching).toBe(1);
    const detail = await h.call('payins:get', { profileId: sandbox.id, requestId });
    expect(detail.statusReads.map((r) => r.result)).toContain('not_found');

    // A settled attempt is answered from the ledger.
    const again = await h.call('attempts:resume', { key: result.attempt.idempotencyKey });
    expect(again).toMatchObject({ outcome: 'succeeded', tries: 0 });
    expect(createsFor(requestId)).toHaveLength(4);
  });

  it('survives a crash mid-send: "sending" becomes "unknown" at start, and card attempts ask for the card again', async () => {
    proxy.faults.push('drop_before', 'drop_before', 'drop_before', 'drop_before', 'drop_before', 'drop_before');
    const plainId = ref('crash-plain');
    const cardId = ref('crash-card');
    const plain = await create('open_banking', plainId);
    const card = await create('credit_card', cardId);
    expect([plain.outcome, card.outcome]).toEqual(['unknown', 'unknown']);
    // As if the app died while the request was on the wire.
    await h.core.ledger.run("UPDATE attempts SET state = 'sending' WHERE idempotency_key = ?", [plain.attempt.idempotencyKey]);
    await h.restart();

    const [recovered] = await h.call('attempts:list', { subject: 'payin', id: plain.payin?.id ?? 0 });
    expect(recovered).toMatchObject({ state: 'unknown', error: INTERRUPTED });
    expect(await h.call('attempts:resume', { key: plain.attempt.idempotencyKey })).toMatchObject({ outcome: 'succeeded', payin: { statusCode: '100' } });
    expectOneKeyAndBody(createsFor(plainId), plain.attempt.idempotencyKey);

    // The card number and CVV were never stored, so the resend needs them again.
    const needs = await h.call('attempts:resume', { key: card.attempt.idempotencyKey });
    expect(needs).toMatchObject({ outcome: 'needs_body', needs: ['cardNum', 'cardCvv'], attempt: { state: 'unknown' } });
    const wrong = await h.failure('attempts:resume', { key: card.attempt.idempotencyKey, cardNum: '4012888888881881', cardCvv: '123' });
    expect(wrong.fields).toHaveProperty('cardNum');
    expect(createsFor(cardId)).toHaveLength(3);
    const resent = await h.call('attempts:resume', { key: card.attempt.idempotencyKey, cardNum: TEST_PAN, cardCvv: '123' });
    expect(resent).toMatchObject({ outcome: 'succeeded', tries: 1, payin: { statusCode: '100' } });
    expect(createsFor(cardId)).toHaveLength(4);
    expect(createsFor(cardId).every((r) => r.idempotencyKey === card.attempt.idempotencyKey)).toBe(true);
    expect((await emulatorPayins(h.core, cardId)).matching).toBe(1);
  });
});
