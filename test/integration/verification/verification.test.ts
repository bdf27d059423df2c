// Notifications are claims (spec 5, rule 6): each one that claims news is confirmed by a status
// read before the ledger's status moves. Real core, real emulator over HTTP, real listener.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PayinView } from '../../../src/shared/contract';
import { payinClaim, payinForm, startHarness, unique, waitFor, type Harness } from './harness';
import { upsertFromCreate } from '../../../src/main/services/payments/apply';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

async function createPayin(opts: Parameters<typeof payinForm>[0] = {}): Promise<PayinView> {
  const result = await h.call('payins:create', payinForm(opts));
  if (!result.payin) throw new Error(`no pay-in: ${result.message}`);
  return result.payin;
}

const timeline = (id: number) => h.call('payins:timeline', { id });

describe('verification of notifications', () => {
  it('takes a +s200 pay-in from notified to verified with one status read, and tells the renderer at each step', async () => {
    const created = await createPayin({ email: 'ana+s200@example.com', requestId: unique('verified') });
    expect(created.statusCode).toBe('100');
    const done = await waitFor(() => timeline(created.id), (t) => t.payin.verification === 'verified', 'the verified pay-in');
    expect(done.payin).toMatchObject({ statusCode: '200', final: true, lastNotifiedStatus: '200', lastVerifiedStatus: '200', mismatch: false });
    const kinds = done.entries.map((e) => e.kind);
    expect(kinds.filter((k) => k === 'notification')).toHaveLength(1);
    expect(done.entries.filter((e) => e.kind === 'status_read').map((e) => [e.outcome, e.statusCode])).toEqual([['ok', '200']]);
    // Time order: the notification came before the read that confirmed it.
    expect(kinds.indexOf('notification')).toBeLessThan(kinds.indexOf('status_read'));

    const changes = h.pushesOf('payins:payin-changed').filter((p) => p.id === created.id);
    // The claim alone (status still 100, notified 200, unverified), then the verified status.
    expect(changes).toContainEqual(expect.objectContaining({ statusCode: '100', lastNotifiedStatus: '200', verification: 'claimed' }));
    expect(changes.at(-1)).toMatchObject({ statusCode: '200', verification: 'verified' });
    expect(h.pushesOf('notifications:notification-changed')).toContainEqual(expect.objectContaining({ payinRowId: created.id, outcome: 'applied', statusCode: '200' }));
  });

  it('flags a forged 200 for a pay-in the gateway still holds at 100 as a mismatch and never applies it', async () => {
    const created = await createPayin({ requestId: unique('forged') }); // no tag: it waits for the consumer
    const payinId = created.payinId as string;
    expect((await h.notify(payinClaim(payinId, created.requestId, 200))).status).toBe(200);
    const flagged = await waitFor(() => timeline(created.id), (t) => t.payin.mismatch, 'the mismatch');
    expect(flagged.payin).toMatchObject({ statusCode: '100', final: false, lastNotifiedStatus: '200', lastVerifiedStatus: '100', verification: 'mismatch' });
    expect(flagged.payin.conflict).toMatch(/notified status 200, but the gateway still says 100 after 4 status reads/);
    // One read, then the three rechecks of FAST_VERIFICATION, all answered 100.
    expect(flagged.entries.filter((e) => e.kind === 'status_read').map((e) => e.statusCode)).toEqual(['100', '100', '100', '100']);
    const [notification] = (await h.call('notifications:list', { payinRowId: created.id })).items;
    expect(notification).toMatchObject({ outcome: 'mismatch', statusCode: '200', detail: expect.stringMatching(/gateway's status read says status 100/) });
    // The gateway itself never moved.
    expect((await h.admin<{ status_code: number }>(`/payins/${payinId}`)).body.status_code).toBe(100);
  });

  it('flags a forged 200 for a declined pay-in at once, keeps 302, and reads the gateway to show it', async () => {
    const created = await createPayin({ email: 'ana+s302@example.com', requestId: unique('declined') });
    await waitFor(() => timeline(created.id), (t) => t.payin.verification === 'verified', 'the verified decline');
    expect((await h.notify(payinClaim(created.payinId as string, created.requestId, 200))).status).toBe(200);
    const flagged = await waitFor(() => timeline(created.id), (t) => t.entries.filter((e) => e.kind === 'status_read').length === 2, 'the second read');
    expect(flagged.payin).toMatchObject({ statusCode: '302', reasonCode: 'RISK_BLOCKED', mismatch: true, verification: 'mismatch', lastVerifiedStatus: '302' });
    expect(flagged.payin.conflict).toMatch(/final status 302 contradicted by notification status 200/);
    expect(flagged.entries.filter((e) => e.kind === 'notification').map((e) => [e.statusCode, e.outcome])).toEqual([
      ['302', 'applied'],
      ['200', 'mismatch'],
    ]);
  });

  it('records duplicate deliveries once (one read) and ignores older news arriving late', async () => {
    await h.admin('/faults', { notifications: { duplicate: 2 } }, 'PUT');
    const created = await createPayin({ email: 'ana+s200@example.com', requestId: unique('dup') });
    const settled = await waitFor(
      () => timeline(created.id),
      (t) => t.payin.verification === 'verified' && t.entries.filter((e) => e.kind === 'notification').length === 3,
      'the notification and its two copies',
    );
    expect(settled.entries.filter((e) => e.kind === 'notification').map((e) => e.outcome)).toEqual(['applied', 'duplicate', 'duplicate']);
    expect(settled.entries.filter((e) => e.kind === 'status_read')).toHaveLength(1);

    // A pending notification delivered after the final one: kept, changes nothing, no read.
    expect((await h.notify(payinClaim(created.payinId as string, created.requestId, 101))).status).toBe(200);
    const late = await waitFor(() => timeline(created.id), (t) => t.entries.filter((e) => e.kind === 'notification').length === 4, 'the late notification');
    expect(late.entries.filter((e) => e.kind === 'notification').at(-1)).toMatchObject({ statusCode: '101', outcome: 'stale', detail: expect.stringMatching(/already holds/) });
    await new Promise((resolve) => setTimeout(resolve, 150));
    const after = await timeline(created.id);
    expect(after.payin).toMatchObject({ statusCode: '200', verification: 'verified', lastNotifiedStatus: '200' });
    expect(after.entries.filter((e) => e.kind === 'status_read')).toHaveLength(1);
  });

  it('keeps a notification for an unknown pay-in as an orphan and verifies it once the pay-in is recorded (replay)', async () => {
    const profileId = await h.profileId();
    const requestId = unique('orphan');
    // Created at the gateway by another path: the ledger does not know it when its notification lands.
    const merchant = h.core.local.merchant;
    const response = await fetch(`${h.core.local.baseUrl}/payment/create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'merchant-token': merchant.merchant_token, 'idempotency-key': requestId },
      body: JSON.stringify({ ...payinForm({ email: 'ana+s200@example.com', requestId }), amount: 10.5, merchant_id: merchant.merchant_id, merchant_site_id: merchant.merchant_site_id, notification_link: await h.notificationUrl() }),
    });
    const answer = (await response.json()) as { payin_id: string };
    const orphan = await waitFor(() => h.call('notifications:list', { outcomes: ['orphan'] }), (l) => l.items.some((n) => n.transactionRef === answer.payin_id), 'the orphan');
    const orphanId = orphan.items.find((n) => n.transactionRef === answer.payin_id)?.id as number;

    const row = await upsertFromCreate(h.repos().payins, 
      { profileId, kind: 'payin', requestId, method: 'open_banking', amount: '10.50', currency: 'EUR', email: 'ana+s200@example.com' },
      { gatewayId: answer.payin_id, statusCode: 100 },
    );
    const replayed = await h.call('notifications:replay', { id: orphanId });
    expect(replayed).toMatchObject({ replayOf: orphanId, needsVerification: true, notification: { id: orphanId, outcome: 'applied', payinRowId: row.id } });
    const verified = await waitFor(() => timeline(row.id), (t) => t.payin.verification === 'verified', 'the matched pay-in verified');
    expect(verified.payin).toMatchObject({ statusCode: '200', lastNotifiedStatus: '200' });
    expect(verified.entries.filter((e) => e.kind === 'audit').map((e) => e.outcome)).toEqual(['notification.replay']);

    // Replaying an applied notification stores a copy that is recognised as a duplicate.
    const again = await h.call('notifications:replay', { id: orphanId });
    expect(again.notification).toMatchObject({ outcome: 'duplicate', payinRowId: row.id });
    expect(again.notification.id).not.toBe(orphanId);
    expect((await h.call('notifications:get', { id: again.notification.id })).headers).toContainEqual(['x-paydesk-replay-of', String(orphanId)]);
  });

  it('waits out an HTTP 429 per Retry-After and retries, so every claim is still verified', async () => {
    await h.admin('/faults', { rate_limit: { burst: 1, refill_per_second: 1 } }, 'PUT');
    const created = await Promise.all([1, 2, 3].map((i) => createPayin({ email: 'ana+s200@example.com', requestId: unique(`rl${i}`) })));
    const all = await waitFor(
      () => Promise.all(created.map((p) => timeline(p.id))),
      (ts) => ts.every((t) => t.payin.verification === 'verified'),
      'three verified pay-ins',
      10_000,
    );
    const reads = all.flatMap((t) => t.entries.filter((e) => e.kind === 'status_read'));
    const limited = reads.filter((e) => e.outcome === 'rate_limited');
    expect(limited.length).toBeGreaterThan(0);
    for (const t of all) {
      const own = t.entries.filter((e) => e.kind === 'status_read');
      expect(own.at(-1)?.outcome).toBe('ok');
      // After a 429 the next read of the same pay-in waited the Retry-After (1 s).
      own.forEach((entry, i) => {
        const next = own[i + 1];
        if (entry.outcome === 'rate_limited' && next) expect(Date.parse(next.at) - Date.parse(entry.at)).toBeGreaterThanOrEqual(900);
      });
    }
  });

  it('re-reads after a restart the claims a previous run could not verify', async () => {
    await h.restart({ verification: { ...{ timings: { recheckDelaysMs: [], retryDelaysMs: [], concurrency: 1 } }, maxRateLimitRetries: 0 } });
    await h.admin('/faults', { api: { force_rate_limit: 1000 } }, 'PUT');
    const created = await createPayin({ email: 'ana+s200@example.com', requestId: unique('restart') });
    const stuck = await waitFor(
      () => timeline(created.id),
      (t) => t.payin.lastNotifiedStatus === '200' && t.entries.some((e) => e.outcome === 'rate_limited'),
      'the notified, rate-limited pay-in',
    );
    expect(stuck.payin).toMatchObject({ statusCode: '100', verification: 'claimed' });
    const listed = await h.call('reconciliation:exceptions', { kind: 'notified_not_verified' });
    expect(listed.items.map((r) => r.rowId)).toContain(created.id);

    await h.admin('/faults', undefined, 'DELETE');
    await h.restart();
    const verified = await waitFor(() => timeline(created.id), (t) => t.payin.verification === 'verified', 'the pay-in verified after the restart');
    expect(verified.payin.statusCode).toBe('200');
    expect((await h.call('reconciliation:exceptions', { kind: 'notified_not_verified' })).items).toEqual([]);
  });

  it('closes promptly while rechecks are still scheduled', async () => {
    await h.restart({ verification: { timings: { recheckDelaysMs: [60_000], retryDelaysMs: [60_000], concurrency: 4 } } });
    const created = await createPayin({ requestId: unique('close') });
    await h.notify(payinClaim(created.payinId as string, created.requestId, 200));
    await waitFor(() => timeline(created.id), (t) => t.entries.some((e) => e.kind === 'status_read'), 'the first read');
    const started = Date.now();
    await h.core.close();
    expect(Date.now() - started).toBeLessThan(3_000);
    await h.restart(); // close() in afterEach needs an open core
  });
});
