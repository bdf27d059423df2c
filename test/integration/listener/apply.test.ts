import { afterEach, describe, expect, it } from 'vitest';
import type { Repositories } from '../../../src/main/ledger/repositories/index';
import { NotificationApplier, type AppliedNotification } from '../../../src/main/services/notification-applier';
import { payinNotification, post } from '../../helpers/http';
import { listenerFixture, type ListenerFixture } from '../../helpers/listener';
import { until } from '../../helpers/poll';
import { applyCreateAnswer, applyStatus, upsertFromCreate } from '../../../src/main/services/payments/apply';

let fx: ListenerFixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

interface Wired {
  fx: ListenerFixture;
  applier: NotificationApplier;
  results: AppliedNotification[];
  /** Posts and waits until the apply step has processed the stored notification. */
  send(body: string): Promise<AppliedNotification>;
}

/** `reposFor`: what the applier is given of the ledger's repositories (a test wraps them); `retryDelaysMs`: its waits after a failure. */
async function wired(reposFor: (repos: Repositories) => Repositories = (repos) => repos, retryDelaysMs?: readonly number[]): Promise<Wired> {
  const results: AppliedNotification[] = [];
  const box: { applier?: NotificationApplier } = {};
  fx = await listenerFixture({}, (id) => box.applier?.enqueue(id));
  const f = fx;
  const applier = (box.applier = new NotificationApplier({ repos: reposFor(f.ledger.repos), ...(retryDelaysMs ? { retryDelaysMs } : {}) }));
  applier.subscribe((r) => results.push(r));
  return {
    fx: f,
    applier,
    results,
    send: async (body) => {
      const before = results.length;
      expect((await post(f.url, body)).status).toBe(200);
      await until(() => results.length > before, 'a new result', 3_000);
      return results.at(-1) as AppliedNotification;
    },
  };
}

async function payin(w: Wired, requestId: string, payinId: string | null, amount = '10.50') {
  const { payins } = w.fx.ledger.repos;
  const row = await payins.recordRequest({ profileId: w.fx.ledger.profile.id, kind: 'payin', requestId, method: 'credit_card', amount, currency: 'EUR', email: 'a@b.c' });
  return payinId ? (await applyCreateAnswer(payins, row.id, { gatewayId: payinId, statusCode: 100 })).record : row;
}

const outcomeOf = async (w: Wired, id: number) => (await w.fx.ledger.repos.notifications.byId(id))?.outcome;

/** Repositories whose next `failures` transactions fail as a busy ledger's do; the rest are the ledger's. */
function busyFor(failures: { left: number }) {
  return (repos: Repositories): Repositories => ({
    ...repos,
    transaction: async (work) => {
      if (failures.left > 0) {
        failures.left--;
        throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
      }
      return repos.transaction(work);
    },
  });
}

describe('a notification that failed to apply', () => {
  it('is applied on a later try, without a restart', async () => {
    // The turn's transaction and its one-by-one retry fail; the try after the first wait applies it.
    const failures = { left: 2 };
    const w = await wired(busyFor(failures), [300, 300]);
    const row = await payin(w, 'req-p-retry-1', 'p-retry-1');
    expect((await post(w.fx.url, payinNotification('p-retry-1', 200))).status).toBe(200);
    await until(() => failures.left === 0, 'the failed apply');
    const [id] = await w.fx.ledger.repos.notifications.pendingIds(10);
    expect(await outcomeOf(w, id!)).toBe('pending');
    await until(() => w.results.length > 0, 'the apply after the wait', 3_000);
    expect(w.results).toEqual([expect.objectContaining({ outcome: 'applied', subject: 'payin', rowId: row.id })]);
    expect(await outcomeOf(w, id!)).toBe('applied');
  });

  it('is left pending after the last wait, and applied at the next start', async () => {
    // Two failures per try: the first and both tries after a wait fail.
    const failures = { left: 6 };
    const w = await wired(busyFor(failures), [50, 50]);
    await payin(w, 'req-p-retry-2', 'p-retry-2');
    expect((await post(w.fx.url, payinNotification('p-retry-2', 200))).status).toBe(200);
    await until(() => failures.left === 0, 'three failed tries', 3_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const [id] = await w.fx.ledger.repos.notifications.pendingIds(10);
    expect(await outcomeOf(w, id!)).toBe('pending');
    expect(w.results).toEqual([]);
    // What a start does with what it finds pending.
    expect(await w.applier.recoverPending()).toBe(1);
    expect(await outcomeOf(w, id!)).toBe('applied');
  });

  it('is not tried again once the applier closed', async () => {
    const failures = { left: 2 };
    const w = await wired(busyFor(failures), [200]);
    await payin(w, 'req-p-retry-3', 'p-retry-3');
    expect((await post(w.fx.url, payinNotification('p-retry-3', 200))).status).toBe(200);
    await until(() => failures.left === 0, 'the failed apply');
    await w.applier.close();
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(w.results).toEqual([]);
    const [id] = await w.fx.ledger.repos.notifications.pendingIds(10);
    expect(await outcomeOf(w, id!)).toBe('pending');
  });
});

describe('applying stored notifications', () => {
  it('records the notified final status as an unverified claim; only a status read that agrees moves the status', async () => {
    const w = await wired();
    const row = await payin(w, 'req-p-1', 'p-1');
    const result = await w.send(payinNotification('p-1', 200));
    expect(result).toMatchObject({ outcome: 'applied', subject: 'payin', rowId: row.id, needsVerification: true });
    expect(await w.fx.ledger.repos.payins.byId(row.id)).toMatchObject({ statusCode: '100', final: false, lastNotifiedStatus: '200', claimState: 'unverified', verification: 'claimed' });
    const read = await applyStatus(w.fx.ledger.repos.payins, row.id, { statusCode: 200, source: 'status_read' });
    expect(read).toMatchObject({ outcome: 'advanced', claim: 'verified', record: { statusCode: '200', final: true, claimState: 'verified', verification: 'verified' } });
    // Its push is the view its own write left: the claim shows even though the status read was done before the push was looked at.
    expect(result.pushes).toEqual([
      { channel: 'payins:payin-changed', view: expect.objectContaining({ id: row.id, statusCode: '100', lastNotifiedStatus: '200', verification: 'claimed', final: false }) },
    ]);
    expect((await w.fx.ledger.repos.notifications.forPayin(row.id)).map((n) => n.id)).toEqual([result.id]);
  });

  it('recognises a duplicate delivery and changes nothing for it', async () => {
    const w = await wired();
    const row = await payin(w, 'req-p-2', 'p-2');
    const first = await w.send(payinNotification('p-2', 302, { reason_code: 'RISK_BLOCKED' }));
    const second = await w.send(payinNotification('p-2', 302, { reason_code: 'RISK_BLOCKED', updated_at: '2026-03-01T11:00:00.000Z' }));
    expect(first.outcome).toBe('applied');
    expect(second).toMatchObject({ outcome: 'duplicate', rowId: row.id, detail: `duplicate of notification ${first.id}` });
    expect(await w.fx.ledger.repos.payins.byId(row.id)).toMatchObject({ statusCode: '100', lastNotifiedStatus: '302', claimState: 'unverified', mismatch: false });
  });

  it('ignores a late pending notification after the final one (out-of-order delivery), calling it stale', async () => {
    const w = await wired();
    const row = await payin(w, 'req-p-3', 'p-3');
    await w.send(payinNotification('p-3', 200));
    const late = await w.send(payinNotification('p-3', 101));
    // It changed nothing, so it is not "applied".
    expect(late.outcome).toBe('stale');
    expect(await w.fx.ledger.repos.notifications.byId(late.id)).toMatchObject({ outcome: 'stale', payinRowId: row.id });
    expect(late).toMatchObject({ needsVerification: false, detail: expect.stringMatching(/200 already holds/) });
    expect(await w.fx.ledger.repos.payins.byId(row.id)).toMatchObject({ statusCode: '100', lastNotifiedStatus: '200', claimState: 'unverified' });
  });

  it('keeps a notification for an unknown pay-in as an orphan, and applies it once the pay-in is known', async () => {
    const w = await wired();
    const orphan = await w.send(payinNotification('p-4', 200));
    const copy = await w.send(payinNotification('p-4', 200));
    expect(orphan.outcome).toBe('orphan');
    expect(copy.outcome).toBe('duplicate');
    // The create answer arrives after the notification (it raced it, or the app restarted).
    const row = await payin(w, 'req-p-4', 'p-4');
    const matched = await w.applier.matchOrphans('payin', row.id);
    expect(matched).toEqual([expect.objectContaining({ id: orphan.id, outcome: 'applied', rowId: row.id })]);
    expect(await w.fx.ledger.repos.payins.byId(row.id)).toMatchObject({ statusCode: '100', lastNotifiedStatus: '200', claimState: 'unverified' });
    expect((await w.fx.ledger.repos.notifications.forPayin(row.id)).map((n) => [n.id, n.outcome])).toEqual([
      [orphan.id, 'applied'],
      [copy.id, 'duplicate'],
    ]);
  });

  it('matches a notification by request_id when the create answer (and payin_id) was lost', async () => {
    const w = await wired();
    const row = await payin(w, 'req-p-5', null);
    const result = await w.send(payinNotification('p-5', 200));
    expect(result).toMatchObject({ outcome: 'applied', rowId: row.id });
    expect(await w.fx.ledger.repos.payins.byId(row.id)).toMatchObject({ payinId: 'p-5', statusCode: null, lastNotifiedStatus: '200' });
  });

  it('flags a mismatch when the notification contradicts the final status or the amount', async () => {
    const w = await wired();
    const declined = await payin(w, 'req-p-6', 'p-6');
    await applyStatus(w.fx.ledger.repos.payins, declined.id, { statusCode: 302, source: 'create' });
    expect((await w.send(payinNotification('p-6', 200))).outcome).toBe('mismatch');
    expect(await w.fx.ledger.repos.payins.byId(declined.id)).toMatchObject({ statusCode: '302', mismatch: true });

    const wrongAmount = await payin(w, 'req-p-7', 'p-7', '99.00');
    const result = await w.send(payinNotification('p-7', 200)); // notifies 10.5
    expect(result.outcome).toBe('mismatch');
    expect((await w.fx.ledger.repos.payins.byId(wrongAmount.id))?.conflict).toMatch(/amount 10\.5 instead of 99\.00/);
  });

  it('keeps an unknown status code as sent and flags it unknown', async () => {
    const w = await wired();
    const row = await payin(w, 'req-p-8', 'p-8');
    const claim = await w.send(payinNotification('p-8', 642, { reason_code: 'SHINY_NEW_REASON' }));
    expect(await w.fx.ledger.repos.notifications.byId(claim.id)).toMatchObject({ statusCode: '642', outcome: 'applied' });
    expect(await w.fx.ledger.repos.payins.byId(row.id)).toMatchObject({ statusCode: '100', lastNotifiedStatus: '642', claimState: 'unverified' });
    // The status read confirms it: the unknown code is then held exactly as sent, flagged unknown.
    await applyStatus(w.fx.ledger.repos.payins, row.id, { statusCode: 642, reasonCode: 'SHINY_NEW_REASON', source: 'status_read' });
    expect(await w.fx.ledger.repos.payins.byId(row.id)).toMatchObject({ statusCode: '642', statusKnown: false, final: false, reasonCode: 'SHINY_NEW_REASON', reasonKnown: false, claimState: 'verified' });
  });

  it('applies payout notifications and vaults token metadata from tokenization notifications', async () => {
    const w = await wired();
    const { payouts, payins, tokens } = w.fx.ledger.repos;
    const payout = await upsertFromCreate(payouts, 
      { profileId: w.fx.ledger.profile.id, merchantReference: 'po-ref', method: 'crypto', amount: '0.0001', currency: 'USD', email: 'c@d.e' },
      { gatewayId: 'po-1', statusCode: 'P100' },
    );
    const paid = await w.send(JSON.stringify({ event: 'v2_payout_notification', status_code: 'P200', payout_id: 'po-1', merchantReference: 'po-ref', amount: 0.00010, currency: 'USD' }));
    expect(paid).toMatchObject({ outcome: 'applied', subject: 'payout', rowId: payout.id });
    expect(await payouts.byId(payout.id)).toMatchObject({ statusCode: 'P100', lastNotifiedStatus: 'P200', claimState: 'unverified' });

    const tokenPayin = await upsertFromCreate(payins, 
      { profileId: w.fx.ledger.profile.id, kind: 'tokenization', requestId: 'req-t', method: 'credit_card', amount: '1.00', currency: 'EUR', email: 'a@b.c' },
      { gatewayId: 'p-t', statusCode: 100 },
    );
    const vaulted = await w.send(
      JSON.stringify({ event: 'v2_tokenization_notification', status_code: 200, payin_id: 'p-t', request_id: 'req-t', token: 'tok_abc', card: { brand: 'visa', bin: '411111', last4: '1111', exp_month: '12', exp_year: '2030' } }),
    );
    expect(vaulted).toMatchObject({ outcome: 'applied', rowId: tokenPayin.id });
    expect(await tokens.byRef(w.fx.ledger.profile.id, 'tok_abc')).toMatchObject({ id: vaulted.tokenRowId, brand: 'visa', bin: '411111', last4: '1111', payinId: 'p-t' });
    expect((await payins.byId(tokenPayin.id))?.statusCode).toBe('100'); // the pay-in's own result comes with v2_payin_notification
    expect(paid.pushes).toEqual([{ channel: 'payouts:payout-changed', view: expect.objectContaining({ id: payout.id, lastNotifiedStatus: 'P200', verification: 'claimed' }) }]);
    expect(vaulted.pushes.map((p) => p.channel)).toEqual(['payins:payin-changed', 'tokens:token-changed']);
    expect(vaulted.pushes[1]?.view).toMatchObject({ id: vaulted.tokenRowId, brand: 'visa', last4: '1111' });
  });

  it('applies after a restart what was stored but not yet applied', async () => {
    fx = await listenerFixture(); // no apply step wired: notifications stay pending, as after a crash
    const f = fx;
    await upsertFromCreate(f.ledger.repos.payins, 
      { profileId: f.ledger.profile.id, kind: 'payin', requestId: 'req-p-9', method: 'blik', amount: '10.5', currency: 'EUR', email: 'a@b.c' },
      { gatewayId: 'p-9', statusCode: 100 },
    );
    for (const code of [200, 200]) expect((await post(f.url, payinNotification('p-9', code))).status).toBe(200);
    expect(await f.ledger.repos.notifications.pendingIds()).toHaveLength(2);
    const applier = new NotificationApplier({ repos: f.ledger.repos });
    expect(await applier.recoverPending()).toBe(2);
    expect(await f.ledger.repos.notifications.pendingIds()).toEqual([]);
    expect(await Promise.all(f.stored.map(async (id) => (await f.ledger.repos.notifications.byId(id))?.outcome))).toEqual(['applied', 'duplicate']);
    expect(await f.ledger.repos.payins.byPayinId('p-9')).toMatchObject({ statusCode: '100', lastNotifiedStatus: '200', claimState: 'unverified' });
  });

  it('applies what each turn stored in one transaction, one turn after the other, never two side by side', async () => {
    const seen = { open: 0, most: 0, transactions: 0 };
    // Each apply transaction is slowed, so turns that arrive meanwhile would run beside it if they could.
    const w = await wired((repos) => ({
      ...repos,
      transaction: async (work) => {
        seen.transactions++;
        seen.most = Math.max(seen.most, ++seen.open);
        try {
          await new Promise((resolve) => setTimeout(resolve, 20));
          return await repos.transaction(work);
        } finally {
          seen.open--;
        }
      },
    }));
    for (let wave = 0; wave < 4; wave++) {
      await Promise.all(Array.from({ length: 10 }, (_, i) => post(w.fx.url, payinNotification(`p-turns-${wave}-${i}`, 200))));
    }
    await until(() => w.results.length === 40, '40 results', 3_000);
    expect(w.results.map((r) => r.outcome)).toEqual(Array(40).fill('orphan'));
    expect(seen.transactions).toBeGreaterThan(1);
    expect(seen.most).toBe(1);
  });

  it('leaves malformed notifications alone', async () => {
    const w = await wired();
    expect((await post(w.fx.url, '{oops')).status).toBe(400);
    // A notification stored after it has been applied: the apply step has passed the malformed one.
    expect((await w.send(payinNotification('p-10', 200))).outcome).toBe('orphan');
    const id = w.fx.stored[0] as number;
    expect(await outcomeOf(w, id)).toBe('malformed');
    expect(w.results.filter((r) => r.id === id)).toEqual([]);
  });
});
