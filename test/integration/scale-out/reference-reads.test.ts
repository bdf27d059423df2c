// Reads by merchantReference a gateway refused, on a team server with two instances on one PostgreSQL ledger: what a gateway said of
// itself is the team's. A live payout whose create answer was lost is looked up by merchantReference
// through instance A, and the gateway (payouts by payout_id only) refuses the key; instance B then
// does not ask it that way either — its settling, its sweep, a person's re-read through it — says
// so on the payout's page, and settles the payout with a resume under the same key.
// PostgreSQL only: a SQLite ledger is one desk's (the single-process case: test/integration/payments/reference-reads.test.ts).
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AttemptReviewView, InvokeOutput, PayoutReviewView, SubmitResult } from '../../../src/shared/contract';
import { SHORT_RETRIES } from '../../helpers/app-core';
import { payoutForm } from '../../helpers/fixtures';
import { testEngine } from '../../helpers/ledger';
import { waitFor } from '../../helpers/poll';
import { startSpecGateway, type SpecGateway } from '../../helpers/spec-gateway';
import { desktopClient, startTeamTestServer, type TeamClient, type TeamTestServer } from '../../helpers/team';
import { tempDir } from '../../helpers/temp-dir';
import { makeTestCertificate, trustingFetch, type TestCertificate } from '../../helpers/test-tls';

describe.skipIf(testEngine !== 'postgres')('a gateway that reads payouts by payout_id only, on two instances of one team server', () => {
  let temp: ReturnType<typeof tempDir>;
  let cert: TestCertificate;
  let gateway: SpecGateway;
  let a: TeamTestServer;
  let b: TeamTestServer;
  let onA: TeamClient;
  let onB: TeamClient;
  let liveId: string;

  beforeAll(async () => {
    temp = tempDir('paydesk-scale-out-reference-reads-');
    cert = makeTestCertificate();
    gateway = await startSpecGateway({ tls: cert, payoutReadBy: 'payout_id', payoutFinalAfterReads: 1 });
    const calls = { gateway: { fetch: trustingFetch(cert.cert), timeoutMs: 600, runner: { policy: SHORT_RETRIES } } };
    a = await startTeamTestServer(path.join(temp.dir, 'a'), calls);
    b = await startTeamTestServer(path.join(temp.dir, 'b'), { ...calls, instanceOf: a });
    await a.addPerson('ada', 'admin');
    onA = await desktopClient(a.origin, 'ada');
    onB = await desktopClient(b.origin, 'ada');
    const facts = { merchantId: gateway.merchant.merchant_id, merchantSiteId: gateway.merchant.merchant_site_id };
    liveId = (await onA.value<{ id: string }>('profiles:create', { name: 'Shop live', environment: 'live', baseUrl: gateway.baseUrl, ...facts })).id;
    await onA.value('credentials:set-merchant-token', { profileId: liveId, token: gateway.merchant.merchant_token });
  }, 60_000);

  afterAll(async () => {
    await b?.close();
    await a?.close();
    await gateway?.close();
    cert?.cleanup();
    temp?.cleanup();
  });

  it('asks it by merchantReference once, through A; B neither asks nor offers to, says why, and settles it by a resume under the same key', async () => {
    gateway.createFaults.push({ type: 'lose_answer', how: 'stall' }, { type: 'lose_answer', how: 'drop' }, { type: 'lose_answer', how: 'drop' });
    const form = payoutForm('fps', { profileId: liveId, amount: '12.50' });
    const review = await onA.value<PayoutReviewView>('payouts:review', form);
    const reference = review.payout.merchantReference;
    const lost = await onA.value<SubmitResult>('payouts:create', { ...form, merchantReference: reference, reviewId: review.reviewId, confirmed: true });
    expect(lost).toMatchObject({ outcome: 'unknown', payout: { payoutId: null } });
    const byReference = () => gateway.calls.filter((c) => c.path === '/payouts/get-status' && c.reference === reference);

    await onA.value('attempts:settle-unknown', { profileId: liveId });
    expect(byReference()).toHaveLength(1);

    await onB.value('attempts:settle-unknown', { profileId: liveId });
    expect(await onB.call('payouts:read-status', { profileId: liveId, merchantReference: reference })).toMatchObject({ ok: false, error: { code: 'unavailable', message: expect.stringMatching(/reads payouts by payout_id only/) } });
    const page = await onB.value<InvokeOutput<'payouts:timeline'>>('payouts:timeline', { id: lost.payout!.id });
    expect(page.referenceReadRefused).toEqual({ at: expect.any(String), answer: 'HTTP 400 MISSING_PARAMS' });
    expect(page.entries.filter((e) => e.kind === 'status_read')).toHaveLength(1);
    expect(byReference()).toHaveLength(1);

    const key = lost.attempt.idempotencyKey;
    const resumeReview = await onB.value<AttemptReviewView>('attempts:review', { key });
    const resumed = await onB.value<SubmitResult>('attempts:resume', { key, reviewId: resumeReview.reviewId, confirmed: true });
    expect(resumed).toMatchObject({ outcome: 'succeeded', payout: { payoutId: expect.stringMatching(/^PO-/) } });
    expect(gateway.keysFor(reference)).toEqual([key]);
    expect(gateway.created(reference)).toBe(1);
    await waitFor(() => onA.value<InvokeOutput<'payouts:timeline'>>('payouts:timeline', { id: lost.payout!.id }), (t) => t.referenceReadRefused === null, 'the payout read by its payout_id from now on');
    expect(byReference()).toHaveLength(1);
  }, 60_000);
});
