// Reviews across instances: two team-server instances on one PostgreSQL ledger, as docs/team.md
// sets them up (one envelope key, the profile's public notification URL naming the balancer),
// behind a balancer without affinity. A person reviews on one
// instance and sends on the other: the send goes, once; the same review is refused as used on
// either instance; after the instance that made a review stops, the survivor still honours it.
// PostgreSQL only: a SQLite ledger is one desk's.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatchView, PayoutReviewView } from '../../../src/shared/contract';
import { payoutForm } from '../../helpers/fixtures';
import { testEngine } from '../../helpers/ledger';
import { desktopClient, startTeamTestServer, type TeamClient, type TeamTestServer } from '../../helpers/team';
import { tempDir } from '../../helpers/temp-dir';
import { batchRows, exactlyOnceProblems, gatewayPayoutsByReference } from '../batches/helpers';

describe.skipIf(testEngine !== 'postgres')('a review made on one instance of a team server, sent on another', () => {
  let temp: ReturnType<typeof tempDir>;
  let a: TeamTestServer;
  let b: TeamTestServer;
  let onA: TeamClient;
  let onB: TeamClient;
  let localId: string;
  let seq = 0;
  let stopped = false;
  const heldAtGateway = () => gatewayPayoutsByReference(path.join(temp.dir, 'a', 'emulator.sqlite'));

  beforeAll(async () => {
    temp = tempDir('paydesk-scale-out-reviews-');
    a = await startTeamTestServer(path.join(temp.dir, 'a'));
    b = await startTeamTestServer(path.join(temp.dir, 'b'), { instanceOf: a });
    await a.addPerson('fin', 'finance');
    onA = await desktopClient(a.origin, 'fin');
    onB = await desktopClient(b.origin, 'fin');
    const local = (await onA.value<{ id: string; environment: string; notificationUrl: string }[]>('profiles:list')).find((p) => p.environment === 'local')!;
    localId = local.id;
    // As docs/team.md sets several instances up: the profile's notifications go to one public
    // address (here A's listener, for the balancer), so both instances send the same bytes (a
    // review covers them, the notification URL included).
    await a.addPerson('ada', 'admin');
    const admin = await desktopClient(a.origin, 'ada');
    await admin.value('profiles:update', { id: localId, patch: { notificationPublicUrl: `${new URL(local.notificationUrl).origin}/` } });
  }, 60_000);

  afterAll(async () => {
    if (!stopped) await b?.close();
    await a?.close();
    temp?.cleanup();
  });

  it('sends a payout reviewed on A through B once, and refuses its review again on either', async () => {
    const reference = `scale-review-${Date.now()}-${++seq}`;
    const form = payoutForm('open_banking', { amount: '12.34', reference, profileId: localId });
    const review = await onA.value<PayoutReviewView>('payouts:review', form);
    const sent = await onB.call('payouts:create', { ...form, reviewId: review.reviewId, confirmed: true });
    expect(sent.ok, JSON.stringify(sent)).toBe(true);
    // Tried again (with a fresh merchantReference, else that is refused first) on either instance.
    for (const again of [onA, onB]) {
      const refused = await again.call('payouts:create', { ...form, merchantReference: `${reference}-again-${++seq}`, reviewId: review.reviewId, confirmed: true });
      expect(refused).toMatchObject({ ok: false, error: { code: 'conflict', fields: { reviewId: 'already used: review again' } } });
    }
    expect(heldAtGateway().get(reference)).toBe(1);
  });

  it('starts a batch reviewed on B through A, each of its payouts sent once', async () => {
    const rows = batchRows(3, { prefix: `scale-review-batch-${Date.now()}`, currency: 'EUR', amount: () => '20.00' });
    const batch = await onB.value<BatchView>('batches:create', { profileId: localId, fileName: 'reviews.csv', rows: rows.length });
    await onB.value('batches:add-items', { id: batch.id, items: rows });
    const review = await onB.value<{ reviewId: string }>('batches:review', { id: batch.id });
    await onA.value('batches:start', { id: batch.id, reviewId: review.reviewId, confirmed: true });
    await expect.poll(async () => (await onA.value<BatchView>('batches:get', { id: batch.id })).state, { timeout: 20_000 }).toBe('done');
    expect(exactlyOnceProblems(heldAtGateway(), rows.map((row) => String(row.form.merchantReference)))).toEqual([]);
  });

  it('honours on the survivor a review made on an instance that has stopped since', async () => {
    const reference = `scale-review-survivor-${Date.now()}-${++seq}`;
    const form = payoutForm('open_banking', { amount: '56.78', reference, profileId: localId });
    const review = await onB.value<PayoutReviewView>('payouts:review', form);
    await b.close();
    stopped = true;
    await onA.value('payouts:create', { ...form, reviewId: review.reviewId, confirmed: true });
    expect(heldAtGateway().get(reference)).toBe(1);
  });
});
