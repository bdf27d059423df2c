// A sandbox or live profile whose notification URL is a loopback address sends
// the gateway a link it cannot post to. Main says so on the profile and on every transaction sent
// that way, and reads their status instead (through the verifier and the shared rate limiter, with
// growing pauses) until final — also after a restart. The local emulator on loopback is fine. The
// gateway here is an independent one that, like a remote gateway, sends no notifications at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProfileView } from '../../../src/shared/contract';
import { startSpecGateway, type SpecGateway } from '../../helpers/spec-gateway';
import { makeTestCertificate, trustingFetch, type TestCertificate } from '../../helpers/test-tls';
import { gatewayProfile, localProfileId, payinForm, payoutForm, startHarness, waitFor, type Harness } from '../payments/harness';

let cert: TestCertificate;
let gateway: SpecGateway;
let h: Harness;
let sandbox: ProfileView;
let live: ProfileView;

const readsOf = (reference: string) => gateway.calls.filter((c) => c.idempotencyKey === null && c.reference === reference);

beforeAll(async () => {
  cert = makeTestCertificate();
  gateway = await startSpecGateway({ tls: cert, payinFinalAfterReads: 3, payoutFinalAfterReads: 3 });
  h = await startHarness({ fetch: trustingFetch(cert.cert), polling: { delaysMs: [100, 200, 400] } });
  sandbox = await gatewayProfile(h, 'Provider sandbox', 'sandbox', gateway.baseUrl.replace(/v2$/, ''), gateway.merchant);
  live = await gatewayProfile(h, 'Shop live', 'live', gateway.baseUrl, gateway.merchant);
});

afterAll(async () => {
  await h?.close();
  await gateway?.close();
  cert?.cleanup();
});

describe('notifications that cannot arrive', () => {
  it('says so on a sandbox or live profile whose notification URL is loopback, not on the local emulator, nor once a public URL is set', async () => {
    const profiles = await h.call('profiles:list');
    const byId = new Map(profiles.map((p) => [p.id, p]));
    for (const id of [sandbox.id, live.id]) {
      expect(byId.get(id)?.notifications).toMatchObject({ reachable: false, url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/n\//), warning: expect.stringContaining('none can arrive') });
    }
    expect(byId.get(await localProfileId(h))?.notifications).toEqual({ reachable: true, url: expect.any(String), warning: null });
    const published = await h.call('profiles:update', { id: sandbox.id, patch: { notificationPublicUrl: 'https://hooks.shop.example/paydesk/' } });
    expect(published.notifications).toMatchObject({ reachable: true, warning: null, url: expect.stringMatching(/^https:\/\/hooks\.shop\.example\/paydesk\/n\//) });
    await h.call('profiles:update', { id: sandbox.id, patch: { notificationPublicUrl: null } });
  });

  it('marks a pay-in sent with a loopback link and reads its status until final, with no notification at all', async () => {
    const sent = await h.call('payins:create', payinForm('open_banking', { profileId: sandbox.id }));
    expect(sent.payin?.notificationsUnreachable).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/n\//);
    const requestId = sent.payin?.requestId as string;
    const final = await waitFor(() => h.call('payins:get', { id: sent.payin?.id }), (d) => d.payin.final, 'the pay-in polled to its final status', 10_000);
    expect(final.payin).toMatchObject({ statusCode: '200', verification: 'verified', lastNotifiedStatus: null });
    expect(final.statusReads.filter((r) => r.result === 'ok').length).toBeGreaterThanOrEqual(3);
    const polls = readsOf(final.payin.payinId as string);
    // Growing pauses between reads (100, 200, 400 ms here), and none once final.
    expect((polls[2]?.at ?? 0) - (polls[1]?.at ?? 0)).toBeGreaterThanOrEqual((polls[1]?.at ?? 0) - (polls[0]?.at ?? 0));
    const count = polls.length;
    await new Promise((resolve) => setTimeout(resolve, 900));
    expect(readsOf(final.payin.payinId as string)).toHaveLength(count);
    expect(readsOf(requestId)).toEqual([]);
  });

  it('settles the attempt of a pay-in whose answer was lost when a poll finds it, under its one key', async () => {
    gateway.createFaults.push({ type: 'lose_answer', how: 'drop' }, { type: 'lose_answer', how: 'drop' }, { type: 'lose_answer', how: 'drop' });
    const lost = await h.call('payins:create', payinForm('blik', { profileId: sandbox.id }));
    expect(lost).toMatchObject({ outcome: 'unknown', payin: { payinId: null, notificationsUnreachable: expect.any(String) } });
    const settled = await waitFor(() => h.call('payins:get', { id: lost.payin?.id }), (d) => d.payin.attempt?.state === 'succeeded', 'a poll to find the pay-in and settle its attempt', 10_000);
    expect(settled.payin.payinId).toMatch(/^PI\./);
    expect(settled.attempts).toEqual([expect.objectContaining({ idempotencyKey: lost.attempt.idempotencyKey, responseSource: 'status_read' })]);
    expect(gateway.keysFor(lost.payin?.requestId as string)).toEqual([lost.attempt.idempotencyKey]);
  });

  it('polls a live payout to its final status after a restart too', async () => {
    const form = payoutForm('fps', { profileId: live.id });
    const review = await h.call('payouts:review', form);
    const sent = await h.call('payouts:create', { ...form, merchantReference: review.payout.merchantReference, reviewId: review.reviewId, confirmed: true });
    expect(sent.payout).toMatchObject({ statusCode: 'P100', notificationsUnreachable: expect.stringMatching(/^http:\/\/127\./) });
    await h.restart();
    const final = await waitFor(() => h.call('payouts:get', { id: sent.payout?.id }), (d) => d.payout.final, 'the payout polled to P200 after the restart', 10_000);
    expect(final.payout).toMatchObject({ statusCode: 'P200', verification: 'verified' });
  });

  it('leaves transactions of the local emulator, and of a profile with a public URL, to their notifications', async () => {
    const local = await h.call('payins:create', payinForm('blik', { profileId: await localProfileId(h) }));
    expect(local.payin?.notificationsUnreachable).toBeNull();
    await h.call('profiles:update', { id: sandbox.id, patch: { notificationPublicUrl: 'https://hooks.shop.example/paydesk/' } });
    const published = await h.call('payins:create', payinForm('blik', { profileId: sandbox.id }));
    expect(published.payin?.notificationsUnreachable).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(readsOf(published.payin?.payinId as string)).toEqual([]);
  });
});
