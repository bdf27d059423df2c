// A live payout whose create got no answer has no payout_id, the one key the spec
// reads payouts by; Paydesk looks it up by merchantReference, which a gateway that reads payouts by
// payout_id only refuses (HTTP 400 MISSING_PARAMS). Against an independent gateway written from the
// spec that does exactly that: the status poller, the automatic settling, the sweep and a person's
// re-read together ask it that way once — one rejected read in the timeline — and never again,
// also after a restart (the refusal is kept in the ledger for the profile); the payout's page and the
// Unknown outcomes list say so, and a resume under the same key settles it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProfileView } from '../../../src/shared/contract';
import { startSpecGateway, type SpecGateway } from '../../helpers/spec-gateway';
import { makeTestCertificate, trustingFetch, type TestCertificate } from '../../helpers/test-tls';
import { payoutForm, startHarness, waitFor, type Harness } from './harness';

let cert: TestCertificate;
let gateway: SpecGateway;
let h: Harness;
let live: ProfileView;

/** The status reads the gateway received for this merchantReference without a payout_id. */
const readsByReference = (reference: string) =>
  gateway.calls.filter((c) => c.path === '/payouts/get-status' && (JSON.parse(c.body) as Record<string, unknown>).payout_id === undefined && c.reference === reference);

async function sweep() {
  await h.call('reconciliation:sweep-start', {});
  return waitFor(async () => (await h.call('reconciliation:sweep-status')).sweep, (s) => s?.state !== 'running', 'the sweep to end', 15_000);
}

beforeAll(async () => {
  cert = makeTestCertificate();
  gateway = await startSpecGateway({ tls: cert, payoutReadBy: 'payout_id', payoutFinalAfterReads: 1 });
  // The live profile's notifications cannot arrive (loopback listener): its payouts are polled, every 100-200 ms here.
  h = await startHarness({ fetch: trustingFetch(cert.cert), timeoutMs: 600, polling: { delaysMs: [100, 200] } });
  const facts = { merchantId: gateway.merchant.merchant_id, merchantSiteId: gateway.merchant.merchant_site_id };
  live = await h.call('profiles:create', { name: 'Shop live', environment: 'live', baseUrl: gateway.baseUrl, ...facts });
  await h.call('credentials:set-merchant-token', { profileId: live.id, token: gateway.merchant.merchant_token });
});

afterAll(async () => {
  await h?.close();
  await gateway?.close();
  cert?.cleanup();
});

describe('a gateway that reads payouts by payout_id only', () => {
  it('is asked by merchantReference once: one rejected read, said once on the page and in the list, and a resume under the same key settles it', async () => {
    // Created at the gateway, every answer lost (the three tries of the harness's policy, one key).
    gateway.createFaults.push({ type: 'lose_answer', how: 'stall' }, { type: 'lose_answer', how: 'drop' }, { type: 'lose_answer', how: 'drop' });
    const form = payoutForm('open_banking', { profileId: live.id, amount: '31.40' });
    const review = await h.call('payouts:review', form);
    const reference = review.payout.merchantReference;
    const lost = await h.call('payouts:create', { ...form, merchantReference: reference, reviewId: review.reviewId, confirmed: true });
    expect(lost).toMatchObject({ outcome: 'unknown', payout: { payoutId: null, notificationsUnreachable: expect.any(String) } });
    const id = lost.payout!.id;
    const key = lost.attempt.idempotencyKey;

    // The poller asks first (after 100 ms); then everything else that reads a payout's status.
    await waitFor(() => readsByReference(reference).length, (n) => n > 0, 'the poller to read it by merchantReference', 5_000);
    await h.call('attempts:settle-unknown', { profileId: live.id });
    await sweep();
    const reread = await h.failure('payouts:read-status', { profileId: live.id, merchantReference: reference });
    expect(reread).toMatchObject({ code: 'unavailable', message: expect.stringMatching(/reads payouts by payout_id only .*HTTP 400 MISSING_PARAMS.*resume the payout under the same Idempotency-Key/) });
    // A restart does not make it ask again: the refusal is the profile's, kept in the ledger.
    await h.restart();
    await h.call('attempts:settle-unknown', { profileId: live.id });
    await sweep();
    await new Promise((resolve) => setTimeout(resolve, 500)); // the poller's pauses, several times over

    expect(readsByReference(reference)).toHaveLength(1);
    const detail = await h.call('payouts:get', { id });
    expect(detail.statusReads.map((r) => ({ result: r.result, httpStatus: r.httpStatus }))).toEqual([{ result: 'rejected', httpStatus: 400 }]);
    const timeline = await h.call('payouts:timeline', { id });
    expect(timeline.referenceReadRefused).toEqual({ at: expect.any(String), answer: 'HTTP 400 MISSING_PARAMS' });
    expect(timeline.entries.filter((e) => e.kind === 'status_read')).toHaveLength(1);
    // Left for a person (a live payout is resent only after its review), with the reason said once in the list.
    expect(detail.payout.attempt).toMatchObject({ state: 'unknown', settleNote: expect.stringMatching(/left for a person.*only after its review/) });
    expect(detail.payout.attempt?.settleNote).not.toMatch(/payout_id only/);
    const listed = await h.call('reconciliation:exceptions', { kind: 'unknown_attempts', profileId: live.id });
    const row = listed.items.find((r) => r.attemptId === detail.payout.attemptId);
    expect(row?.detail?.match(/reads payouts by payout_id only/g)).toHaveLength(1);
    expect(row?.detail).toMatch(/only after its review/);
    expect(gateway.keysFor(reference)).toEqual([key]);

    // Resume under the same key, through its review: the gateway replays its first answer.
    const resumeReview = await h.call('attempts:review', { key });
    const resumed = await h.call('attempts:resume', { key, reviewId: resumeReview.reviewId, confirmed: true });
    expect(resumed).toMatchObject({ outcome: 'succeeded', payout: { payoutId: expect.stringMatching(/^PO-/) } });
    expect(gateway.keysFor(reference)).toEqual([key]);
    expect(gateway.created(reference)).toBe(1);
    expect(readsByReference(reference)).toHaveLength(1);
    // With its payout_id it reads as any payout, and the page has nothing left to say about the key.
    await waitFor(() => h.call('payouts:get', { id }), (d) => d.payout.final, 'the payout polled to its final status by payout_id', 10_000);
    expect((await h.call('payouts:timeline', { id })).referenceReadRefused).toBeNull();
    expect(readsByReference(reference)).toHaveLength(1);
  }, 60_000);
});
