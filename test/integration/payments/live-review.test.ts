// Main itself refuses a live payout — created, started as a batch, or resumed —
// without the proof of a review of exactly that body. A real core (ledger file, keychain) and a
// live profile pointing at an independent https test gateway on 127.0.0.1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatchRowForm, ProfileView } from '../../../src/shared/contract';
import { compareAmounts } from '../../../src/shared/money';
import { startSpecGateway, type SpecGateway } from '../../helpers/spec-gateway';
import { makeTestCertificate, trustingFetch, type TestCertificate } from '../../helpers/test-tls';
import { payoutForm, startHarness, waitFor, type Harness } from './harness';

let cert: TestCertificate;
let gateway: SpecGateway;
let h: Harness;
let live: ProfileView;

const creates = () => gateway.calls.filter((c) => c.idempotencyKey !== null);
const payoutRows = async () => (await h.core.ledger.get<{ n: number }>('SELECT count(*) AS n FROM payouts WHERE profile_id = ?', [live.id]))?.n;

beforeAll(async () => {
  cert = makeTestCertificate();
  gateway = await startSpecGateway({ tls: cert });
  h = await startHarness({ fetch: trustingFetch(cert.cert), timeoutMs: 1_000 });
  live = await h.call('profiles:create', { name: 'Shop live', environment: 'live', baseUrl: gateway.baseUrl, merchantId: gateway.merchant.merchant_id, merchantSiteId: gateway.merchant.merchant_site_id });
  await h.call('credentials:set-merchant-token', { profileId: live.id, token: gateway.merchant.merchant_token });
});

afterAll(async () => {
  await h?.close();
  await gateway?.close();
  cert?.cleanup();
});

describe('a live payout (payouts:create)', () => {
  it('is refused without a review, with an unconfirmed one, and with the review of another body; nothing is recorded or sent', async () => {
    const form = payoutForm('open_banking', { profileId: live.id });
    const none = await h.failure('payouts:create', form);
    expect(none).toMatchObject({ code: 'conflict', fields: { reviewId: expect.stringContaining('review it first') } });
    expect(none.message).toMatch(/live payout is sent only after its review/);

    const review = await h.call('payouts:review', form);
    expect(review).toMatchObject({ required: true, profile: { id: live.id, environment: 'live' }, payout: { amount: '99.90', currency: 'EUR', beneficiary: 'Ana Lima' } });
    expect(review.payout.destination).toContainEqual({ label: 'IBAN', value: 'DE•• •••• •••• •••• •• 3000' });
    const reviewed = { ...form, merchantReference: review.payout.merchantReference };
    const unconfirmed = await h.failure('payouts:create', { ...reviewed, reviewId: review.reviewId });
    expect(unconfirmed).toMatchObject({ code: 'invalid_input', fields: { confirmed: expect.any(String) } });

    // The proof of one body does not carry another: a different amount, the same review id.
    const other = await h.failure('payouts:create', { ...reviewed, amount: '999.90', reviewId: review.reviewId, confirmed: true });
    expect(other).toMatchObject({ code: 'conflict', fields: { reviewId: expect.stringContaining('does not match') } });
    // ...and the id it was tried with is spent.
    const after = await h.failure('payouts:create', { ...reviewed, reviewId: review.reviewId, confirmed: true });
    expect(after).toMatchObject({ code: 'conflict', fields: { reviewId: expect.stringContaining('already used') } });

    expect(creates()).toEqual([]);
    expect(await payoutRows()).toBe(0);
  });

  it('is sent once with the proof of its review, which cannot be used again', async () => {
    const form = payoutForm('fps', { profileId: live.id });
    const review = await h.call('payouts:review', form);
    const reviewed = { ...form, merchantReference: review.payout.merchantReference };
    const sent = await h.call('payouts:create', { ...reviewed, reviewId: review.reviewId, confirmed: true });
    expect(sent).toMatchObject({ outcome: 'succeeded', payout: { merchantReference: review.payout.merchantReference, statusCode: 'P100' } });
    expect(sent.payout?.payoutId).toMatch(/^PO-\d{4}-\d{6}$/);
    expect(gateway.keysFor(review.payout.merchantReference)).toHaveLength(1);

    const again = await h.failure('payouts:create', { ...form, merchantReference: 'another-ref-1', reviewId: review.reviewId, confirmed: true });
    expect(again).toMatchObject({ code: 'conflict', fields: { reviewId: expect.stringContaining('already used') } });
    expect(creates()).toHaveLength(1);
    const audit = await h.core.ledger.get<{ details: string }>("SELECT details FROM audit_log WHERE action = 'payout.create' AND subject = ?", [review.payout.merchantReference]);
    expect(JSON.parse(audit?.details ?? '{}')).toMatchObject({ reviewId: review.reviewId, environment: 'live' });
  });

  it('says in its review that notifications cannot reach this machine (loopback listener)', async () => {
    const review = await h.call('payouts:review', payoutForm('crypto', { profileId: live.id }));
    expect(review.notifications).toMatchObject({ reachable: false, url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/n\//) });
    expect(review.notifications.warning).toMatch(/loopback address.*none can arrive.*public URL/);
  });
});

describe('a live CSV batch (batches:start, batches:resume)', () => {
  const rows: BatchRowForm[] = [
    payoutForm('open_banking', { amount: '10.00', email: 'ana@example.com' }),
    payoutForm('fps', { amount: '20.50', email: 'jo@example.com' }),
  ];
  const draft = async (fileName: string) => {
    const batch = await h.call('batches:create', { profileId: live.id, fileName, rows: rows.length });
    const items = rows.map((form, i) => ({ line: i + 1, form }));
    // Later tests upload the same rows again: the person confirms each as a new payout (batches:check names what it may repeat).
    const found = await h.call('batches:check', { profileId: live.id, items });
    await h.call('batches:add-items', { id: batch.id, items: items.map((item, i) => ({ ...item, confirmedDuplicateOf: found.items[i]?.duplicates.map((d) => d.id) ?? [] })) });
    return batch.id;
  };

  it('starts only with the proof of its own review: count, totals per currency, items', async () => {
    const first = await draft('first.csv');
    const second = await draft('second.csv');
    const before = creates().length;

    expect(await h.failure('batches:start', { id: first })).toMatchObject({ code: 'conflict', fields: { reviewId: expect.stringContaining('review it first') } });
    const reviewOfSecond = await h.call('batches:review', { id: second });
    expect(reviewOfSecond).toMatchObject({ action: 'start', required: true, sends: { pending: 2, open: 0 }, batch: { total: 2, totals: [{ currency: 'EUR', count: 1 }, { currency: 'GBP', count: 1 }] } });
    expect(reviewOfSecond.batch.totals.map((t) => compareAmounts(t.amount, t.currency === 'EUR' ? '10.00' : '20.50'))).toEqual([0, 0]);
    expect(await h.failure('batches:start', { id: first, reviewId: reviewOfSecond.reviewId, confirmed: true })).toMatchObject({ code: 'conflict', fields: { reviewId: expect.stringContaining('does not match') } });
    expect((await h.call('batches:get', { id: first })).state).toBe('draft');
    expect(creates().length).toBe(before);

    const review = await h.call('batches:review', { id: first });
    const started = await h.call('batches:start', { id: first, reviewId: review.reviewId, confirmed: true });
    expect(started.state).toBe('running');
    await waitFor(() => h.call('batches:get', { id: first }), (b) => b.counts.sent === 2, 'both items sent', 10_000);
    expect(creates().length).toBe(before + 2);
    await h.call('batches:discard', { id: second });
  });

  it('is resumed by a person only with the proof of a review of what remains open', async () => {
    const id = await draft('lost.csv');
    // Every answer to the two items is lost (three tries each, under each item's own key).
    // The run settles its unknown items once more under their keys: those answers are lost too.
    for (let i = 0; i < 12; i++) gateway.createFaults.push({ type: 'lose_answer', how: 'drop' });
    const review = await h.call('batches:review', { id });
    await h.call('batches:start', { id, reviewId: review.reviewId, confirmed: true });
    const ended = await waitFor(() => h.call('batches:get', { id }), (b) => b.state === 'done', 'the batch to end with its items unknown', 10_000);
    expect(ended.counts).toMatchObject({ unknown: 2, sent: 0 });
    expect(gateway.createFaults).toEqual([]);

    const refused = await h.failure('batches:resume', { id });
    expect(refused).toMatchObject({ code: 'conflict', fields: { reviewId: expect.stringContaining('review it first') } });
    const resumeReview = await h.call('batches:review', { id });
    expect(resumeReview).toMatchObject({ action: 'resume', required: true, sends: { pending: 0, open: 2 } });
    expect((await h.call('batches:resume', { id, reviewId: resumeReview.reviewId, confirmed: true })).state).toBe('done');
    await waitFor(() => h.call('batches:get', { id }), (b) => b.counts.sent === 2, 'the open items settled under their keys', 10_000);
    const items = await h.call('batches:items', { id });
    for (const item of items.items) {
      expect(gateway.keysFor(item.merchantReference)).toEqual([item.idempotencyKey]);
      expect(gateway.created(item.merchantReference)).toBe(1);
    }
  });
});

describe('the resume of a live payout attempt (attempts:resume)', () => {
  it('is refused without the review of that attempt, and settles it under its own key once reviewed', async () => {
    // The gateway creates the payout and loses every answer (three tries, the same key).
    gateway.createFaults.push({ type: 'lose_answer', how: 'drop' }, { type: 'lose_answer', how: 'drop' }, { type: 'lose_answer', how: 'drop' });
    const form = payoutForm('open_banking', { profileId: live.id, amount: '42.00' });
    const review = await h.call('payouts:review', form);
    const lost = await h.call('payouts:create', { ...form, merchantReference: review.payout.merchantReference, reviewId: review.reviewId, confirmed: true });
    expect(lost).toMatchObject({ outcome: 'unknown', payout: { payoutId: null, statusCode: null } });
    const key = lost.attempt.idempotencyKey;
    const reference = review.payout.merchantReference;
    const sendsBefore = gateway.calls.filter((c) => c.idempotencyKey === key).length;

    expect(await h.failure('attempts:resume', { key })).toMatchObject({ code: 'conflict', fields: { reviewId: expect.stringContaining('review it first') } });
    // A review of a payout body is no proof for a resume.
    const notThis = await h.call('payouts:review', payoutForm('fps', { profileId: live.id }));
    expect(await h.failure('attempts:resume', { key, reviewId: notThis.reviewId, confirmed: true })).toMatchObject({ code: 'conflict', fields: { reviewId: expect.stringContaining('does not match') } });
    expect(gateway.calls.filter((c) => c.idempotencyKey === key).length).toBe(sendsBefore);

    const resumeReview = await h.call('attempts:review', { key });
    expect(resumeReview).toMatchObject({ required: true, attempt: { idempotencyKey: key, state: 'unknown' }, payout: { merchantReference: reference, amount: '42.00', beneficiary: 'Ana Lima' } });
    const resumed = await h.call('attempts:resume', { key, reviewId: resumeReview.reviewId, confirmed: true });
    expect(resumed).toMatchObject({ outcome: 'succeeded', payout: { merchantReference: reference, statusCode: 'P100' } });
    expect(resumed.payout?.payoutId).toMatch(/^PO-/);
    // One key for the intent, and one payout at the gateway: the resend was answered with the first answer.
    expect(gateway.keysFor(reference)).toEqual([key]);
    expect(gateway.created(reference)).toBe(1);
    // Settled: a resume now answers from the ledger and sends nothing, so it needs no review.
    const sends = gateway.calls.filter((c) => c.idempotencyKey === key).length;
    expect(await h.call('attempts:resume', { key })).toMatchObject({ outcome: 'succeeded', tries: 0 });
    expect(gateway.calls.filter((c) => c.idempotencyKey === key).length).toBe(sends);
  });
});
