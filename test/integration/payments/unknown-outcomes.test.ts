// A create call whose answer never arrived is settled — by the sweep, at
// start-up, or on request — always under its own Idempotency-Key: a pay-in by a status read by
// request_id (rate limited through the shared reader) and, when the gateway does not know it, the
// same bytes again; a payout by merchantReference where the gateway can look it up; a card attempt
// after a restart, and a live payout the lookup did not settle, are left for a person with a note
// saying why. Against an independent gateway written from the spec, which loses answers
// (creates, then stalls or drops the connection), refuses with 503 / 429 and a Retry-After in
// seconds and as an HTTP date, adds unknown fields and uses ids that are not UUIDs. And while a
// payout's answer is awaited, the push sent as it left is the view payouts:get gives of it (built
// from what was just recorded, not read again: d5ccc69).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PayoutView, ProfileView } from '../../../src/shared/contract';
import { startSpecGateway, type SpecGateway } from '../../helpers/spec-gateway';
import { makeTestCertificate, trustingFetch, type TestCertificate } from '../../helpers/test-tls';
import { gatewayProfile, payinForm, payoutForm, startHarness, waitFor, type Harness } from './harness';

let cert: TestCertificate;
let gateway: SpecGateway;
let h: Harness;
let sandbox: ProfileView;
let live: ProfileView;

const lostThreeTimes = () => gateway.createFaults.push({ type: 'lose_answer', how: 'stall' }, { type: 'lose_answer', how: 'drop' }, { type: 'lose_answer', how: 'drop' });
const sendsOf = (key: string) => gateway.calls.filter((c) => c.idempotencyKey === key);

async function sweep() {
  await h.call('reconciliation:sweep-start', {});
  return waitFor(async () => (await h.call('reconciliation:sweep-status')).sweep, (s) => s?.state !== 'running', 'the sweep to end', 15_000);
}

beforeAll(async () => {
  cert = makeTestCertificate();
  gateway = await startSpecGateway({ tls: cert, payinFinalAfterReads: 5 });
  h = await startHarness({ fetch: trustingFetch(cert.cert), timeoutMs: 600 });
  sandbox = await gatewayProfile(h, 'Provider sandbox', 'sandbox', gateway.baseUrl.replace(/v2$/, ''), gateway.merchant);
  live = await gatewayProfile(h, 'Shop live', 'live', gateway.baseUrl, gateway.merchant);
});

afterAll(async () => {
  await h?.close();
  await gateway?.close();
  cert?.cleanup();
});

describe('settling unknown outcomes', () => {
  it('the sweep settles a pay-in whose answer was lost with a status read by request_id, waiting out a 429 given as an HTTP date; one key, one pay-in', async () => {
    lostThreeTimes();
    const lost = await h.call('payins:create', payinForm('open_banking', { profileId: sandbox.id }));
    expect(lost).toMatchObject({ outcome: 'unknown', payin: { payinId: null, statusCode: null } });
    const requestId = lost.payin?.requestId as string;
    const key = lost.attempt.idempotencyKey;

    gateway.readFaults.push({ type: 'busy', status: 429, retryAfter: 'date', seconds: 2 });
    const state = await sweep();
    expect(state).toMatchObject({ state: 'done', unknownSettled: 1 });

    const detail = await h.call('payins:get', { id: lost.payin?.id });
    expect(detail.payin).toMatchObject({ payinId: expect.stringMatching(/^PI\./), statusCode: '100', attempt: { state: 'succeeded' } });
    expect(detail.attempts).toEqual([expect.objectContaining({ idempotencyKey: key, state: 'succeeded', responseSource: 'status_read' })]);
    // The 429 held the reader for its Retry-After (an HTTP date), then the same read went again.
    const reads = gateway.calls.filter((c) => c.path === '/payment/get-status' && c.reference === requestId);
    expect(reads.length).toBeGreaterThanOrEqual(2);
    expect((reads[1]?.at ?? 0) - (reads[0]?.at ?? 0)).toBeGreaterThanOrEqual(900);
    expect(detail.statusReads.map((r) => r.result)).toEqual(expect.arrayContaining(['rate_limited', 'ok']));
    expect(gateway.keysFor(requestId)).toEqual([key]);
    expect(gateway.created(requestId)).toBe(1);
  });

  it('resends a pay-in the gateway never received under its own key, after 503s whose Retry-After (HTTP date, seconds) was honoured', async () => {
    gateway.createFaults.push(
      { type: 'busy', status: 503, retryAfter: 'date', seconds: 1 },
      { type: 'busy', status: 503, retryAfter: 'seconds', seconds: 1 },
      { type: 'busy', status: 429, retryAfter: 'seconds', seconds: 1 },
    );
    const refused = await h.call('payins:create', payinForm('blik', { profileId: sandbox.id }));
    expect(refused.outcome).toBe('unknown');
    const key = refused.attempt.idempotencyKey;
    const requestId = refused.payin?.requestId as string;
    const tries = sendsOf(key);
    expect(tries).toHaveLength(3);
    expect((tries[1]?.at ?? 0) - (tries[0]?.at ?? 0)).toBeGreaterThanOrEqual(900);
    expect((tries[2]?.at ?? 0) - (tries[1]?.at ?? 0)).toBeGreaterThanOrEqual(900);
    expect(gateway.created(requestId)).toBe(0);

    const summary = await h.call('attempts:settle-unknown', { profileId: sandbox.id });
    expect(summary).toMatchObject({ settled: 1, left: 0 });
    const detail = await h.call('payins:get', { id: refused.payin?.id });
    expect(detail.payin).toMatchObject({ statusCode: '100', payinId: expect.stringMatching(/^PI\./), attempt: { state: 'succeeded', settleNote: expect.stringContaining('settled automatically') } });
    expect(gateway.keysFor(requestId)).toEqual([key]);
    expect(gateway.created(requestId)).toBe(1);
  });

  it('leaves a live payout whose answer was lost for its review: never resent in the background, said so in the Unknown outcomes list', async () => {
    lostThreeTimes();
    const form = payoutForm('open_banking', { profileId: live.id, amount: '12.34' });
    const review = await h.call('payouts:review', form);
    const lost = await h.call('payouts:create', { ...form, merchantReference: review.payout.merchantReference, reviewId: review.reviewId, confirmed: true });
    expect(lost).toMatchObject({ outcome: 'unknown', payout: { payoutId: null } });
    const key = lost.attempt.idempotencyKey;
    const sends = sendsOf(key).length;

    const state = await sweep();
    expect(state?.unknownLeft).toBeGreaterThanOrEqual(1);
    expect(sendsOf(key)).toHaveLength(sends);
    const detail = await h.call('payouts:get', { id: lost.payout?.id });
    expect(detail.payout.attempt).toMatchObject({ state: 'unknown', settleNote: expect.stringContaining('only after its review') });
    const listed = await h.call('reconciliation:exceptions', { kind: 'unknown_attempts', profileId: live.id });
    expect(listed.items.find((r) => r.attemptId === detail.payout.attemptId)?.detail).toMatch(/only after its review/);
    expect(gateway.keysFor(review.payout.merchantReference)).toEqual([key]);
  });

  it('settles a live payout whose answer was lost by a status read by merchantReference, where the gateway can look it up: nothing resent', async () => {
    const lookup = await startSpecGateway({ tls: cert, payoutReadBy: 'payout_id_or_reference' });
    try {
      const facts = { merchantId: lookup.merchant.merchant_id, merchantSiteId: lookup.merchant.merchant_site_id };
      const shop = await h.call('profiles:create', { name: 'Shop live with lookup', environment: 'live', baseUrl: lookup.baseUrl, ...facts });
      await h.call('credentials:set-merchant-token', { profileId: shop.id, token: lookup.merchant.merchant_token });
      const send = async (faults: typeof lookup.createFaults) => {
        lookup.createFaults.push(...faults);
        const form = payoutForm('fps', { profileId: shop.id, amount: '7.05' });
        const review = await h.call('payouts:review', form);
        // The second is the same payout again (same account and amount): confirmed as the review screen confirms it.
        return h.call('payouts:create', { ...form, merchantReference: review.payout.merchantReference, reviewId: review.reviewId, confirmed: true, confirmedDuplicateOf: review.duplicates.map((d) => d.id) });
      };
      // Created at the gateway, its answer lost three times; and one that never arrived (503 each time).
      const lost = await send([{ type: 'lose_answer', how: 'stall' }, { type: 'lose_answer', how: 'drop' }, { type: 'lose_answer', how: 'drop' }]);
      const neverArrived = await send([1, 2, 3].map(() => ({ type: 'busy' as const, status: 503 as const, retryAfter: 'seconds' as const, seconds: 0 })));
      expect([lost.outcome, neverArrived.outcome]).toEqual(['unknown', 'unknown']);
      const references = [lost, neverArrived].map((r) => r.payout?.merchantReference as string);
      const sends = references.map((reference) => lookup.calls.filter((c) => c.path === '/payouts/create' && c.reference === reference).length);

      const state = await sweep();
      expect(state).toMatchObject({ state: 'done' });
      const found = await h.call('payouts:get', { id: lost.payout?.id });
      expect(found.payout).toMatchObject({ payoutId: expect.stringMatching(/^PO-/), attempt: { state: 'succeeded' } });
      expect(found.attempts).toEqual([expect.objectContaining({ idempotencyKey: lost.attempt.idempotencyKey, state: 'succeeded', responseSource: 'status_read' })]);
      const missing = await h.call('payouts:get', { id: neverArrived.payout?.id });
      expect(missing.payout.attempt).toMatchObject({ state: 'unknown', settleNote: expect.stringMatching(/merchantReference.*only after its review/) });
      // Looked up, never resent: the creates the gateway saw are the ones made before the sweep.
      expect(references.map((reference) => lookup.calls.filter((c) => c.path === '/payouts/create' && c.reference === reference).length)).toEqual(sends);
      expect(references.map((reference) => lookup.created(reference))).toEqual([1, 0]);
      expect(lookup.calls.filter((c) => c.path === '/payouts/get-status').map((c) => c.reference)).toEqual(expect.arrayContaining(references));

      // A person can read it by merchantReference from its page too.
      const read = await h.call('payouts:read-status', { profileId: shop.id, merchantReference: references[1] });
      expect(read.read.result).toBe('not_found');
    } finally {
      await lookup.close();
    }
  });

  it('pushes a payout as its request leaves as the view payouts:get gives of it while its answer is awaited', async () => {
    const form = payoutForm('credit_card', { profileId: live.id, reference: `leaves-${Date.now()}` });
    const review = await h.call('payouts:review', form);
    const reference = review.payout.merchantReference;
    // Read the moment it is pushed: the first send then stalls for the 600 ms timeout.
    let first: { pushed: PayoutView; read: Promise<{ payout: PayoutView }> } | undefined;
    const stop = h.core.events.subscribe((channel, payload) => {
      const pushed = payload as PayoutView;
      if (channel === 'payouts:payout-changed' && pushed.merchantReference === reference && !first) first = { pushed, read: h.call('payouts:get', { id: pushed.id }) };
    });
    try {
      gateway.createFaults.push({ type: 'lose_answer', how: 'stall' }, { type: 'lose_answer', how: 'drop' }, { type: 'lose_answer', how: 'drop' });
      const created = await h.call('payouts:create', { ...form, merchantReference: reference, reviewId: review.reviewId, confirmed: true });
      expect(created).toMatchObject({ outcome: 'unknown' });
      expect(first?.pushed).toEqual((await first?.read)?.payout);
      expect(first?.pushed).toMatchObject({ attempt: { state: 'sending' }, card: { maskedPan: expect.stringMatching(/^\d{6}\*+\d{4}$/) } });
    } finally {
      stop();
    }
  });

  it('at start-up settles what it can and leaves a card attempt for a person, saying the card data is needed again', async () => {
    lostThreeTimes();
    const plain = await h.call('payins:create', payinForm('interac', { profileId: sandbox.id }));
    gateway.createFaults.push(...[1, 2, 3].map(() => ({ type: 'busy' as const, status: 503 as const, retryAfter: 'seconds' as const, seconds: 0 })));
    const card = await h.call('payins:create', payinForm('credit_card', { profileId: sandbox.id }));
    expect([plain.outcome, card.outcome]).toEqual(['unknown', 'unknown']);

    await h.restart();
    const plainAfter = await waitFor(() => h.call('payins:get', { id: plain.payin?.id }), (d) => d.payin.attempt?.state === 'succeeded', 'the plain pay-in settled at start-up', 10_000);
    expect(plainAfter.payin.payinId).toMatch(/^PI\./);
    const cardAfter = await waitFor(() => h.call('payins:get', { id: card.payin?.id }), (d) => d.payin.attempt?.settleNote !== null, 'the card pay-in tried at start-up', 10_000);
    expect(cardAfter.payin.attempt).toMatchObject({ state: 'unknown', settleNote: expect.stringMatching(/card data was never stored.*cardNum, cardCvv/) });
    const cardRequestId = card.payin?.requestId as string;
    expect(gateway.created(cardRequestId)).toBe(0);
    expect(gateway.keysFor(cardRequestId)).toEqual([card.attempt.idempotencyKey]);
    expect(gateway.keysFor(plain.payin?.requestId as string)).toEqual([plain.attempt.idempotencyKey]);
  });
});
