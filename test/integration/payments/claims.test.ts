// A payout's claim on a real ledger: the Submitter with a real AttemptRunner over the ledger's
// attempt store and a scripted gateway. A claim whose transaction rolls back keeps nothing in
// memory (a card payout's bytes hold the full number) and is never sent; a committed claim is sent
// whatever fails or waits beside it; one that fails before its request leaves ends unknown with no
// try counted, and a resume settles it under its key at once, not after a restart.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AttemptRunner } from '../../../src/main/gateway/attempt-runner';
import type { CreateTransport } from '../../../src/main/gateway/client';
import type { PayoutCreateInput } from '../../../src/main/gateway/endpoints';
import { LedgerAttemptStore } from '../../../src/main/ledger/ledger-attempt-store';
import { EventBus } from '../../../src/main/services/event-bus';
import type { GatewaySessions } from '../../../src/main/services/gateway-sessions';
import { PaymentsContext, type PaymentsDeps } from '../../../src/main/services/payments/context';
import { Submitter } from '../../../src/main/services/payments/submitter';
import { TEST_CARD, payoutBody } from '../../helpers/fixtures';
import { testLedger, type TestLedger } from '../../helpers/ledger';

const opened: TestLedger[] = [];
afterEach(async () => {
  for (const ledger of opened.splice(0)) await ledger.close();
});

const m = { merchant_id: 'm-1', merchant_site_id: 's-1' };

async function setup() {
  const ledger = await testLedger();
  opened.push(ledger);
  const { db, repos, profile } = ledger;
  const sent: { key: string; body: string }[] = [];
  const transport: CreateTransport = {
    sendCreate: async (_endpoint, body, key) => {
      sent.push({ key, body });
      const answer = { payout_id: `po-${sent.length}`, status_code: 'P100' };
      return { kind: 'ok', status: 200, body: answer, raw: JSON.stringify(answer) } as never;
    },
    payinStatus: () => Promise.reject(new Error('no pay-ins here')),
    payoutStatus: () => Promise.reject(new Error('no status reads here')),
  };
  const store = new LedgerAttemptStore(repos.attempts, profile.id);
  const runner = new AttemptRunner({ transport, store, clock: { now: () => Date.now() }, sleep: async () => undefined, ids: { uuid: randomUUID } });
  const events = new EventBus();
  const deps = {
    db,
    repos,
    events,
    gateways: { for: async () => ({ runner }) } as unknown as GatewaySessions,
    applier: { matchOrphans: async () => [], matchOrphansOf: async () => [] },
  } as unknown as PaymentsDeps;
  const submitter = new Submitter(new PaymentsContext(deps));
  const audit = (body: PayoutCreateInput) => ({ actor: 'user', action: 'payout.create', profileId: profile.id, subject: body.merchantReference, details: {} });
  return { ledger, repos, profile, sent, store, runner, events, submitter, audit };
}

describe('a payout claim', () => {
  it('whose transaction rolls back leaves nothing recorded, nothing in memory, and can never be sent', async () => {
    const { repos, profile, sent, runner, submitter, audit } = await setup();
    const body = payoutBody(m, 'credit_card', 'ref-rolled-back');
    let claimedKey = '';
    await expect(
      submitter.preparePayout(profile, runner, body, audit(body), {
        afterPrepare: (key) => {
          claimedKey = key;
          throw new Error('batch item 7 is no longer pending');
        },
      }),
    ).rejects.toThrow(/no longer pending/);

    expect(claimedKey).not.toBe('');
    expect(await repos.attempts.byKey(claimedKey)).toBeUndefined();
    expect(await repos.payouts.byMerchantReference(profile.id, 'ref-rolled-back')).toBeUndefined();
    expect(runner.holds(claimedKey)).toBe(false);
    await expect(runner.sendClaimed(claimedKey)).rejects.toThrow(/not claimed/);
    expect(sent).toEqual([]);
  });

  it('is sent even when the push that goes out beside it fails', async () => {
    const { repos, profile, sent, runner, events, submitter, audit } = await setup();
    const body = payoutBody(m, 'credit_card', 'ref-push-fails');
    vi.spyOn(events, 'publish').mockImplementationOnce(() => {
      throw new Error('renderer gone');
    });

    const result = await submitter.payout(profile, body, audit(body));

    expect(result).toMatchObject({ outcome: 'succeeded', tries: 1, attempt: { state: 'succeeded' }, payout: { statusCode: 'P100' } });
    expect(sent).toHaveLength(1);
    const attempt = await repos.attempts.byKey(sent[0]?.key ?? '');
    expect(attempt).toMatchObject({ state: 'succeeded', tryCount: 1 });
    // Final: the gateway replays its answer for this key, so the card bytes are not kept.
    expect(runner.holds(attempt?.idempotencyKey ?? '')).toBe(false);
  });

  it('that fails before its request leaves ends unknown with no try counted, and is settled under its key at once', async () => {
    const { repos, profile, sent, store, runner, submitter, audit } = await setup();
    const body = payoutBody(m, 'fps', 'ref-not-sent');
    const prepared = await submitter.preparePayout(profile, runner, body, audit(body));
    expect(await repos.attempts.byKey(prepared.key)).toMatchObject({ state: 'sending', tryCount: 1 });
    vi.spyOn(store, 'get').mockRejectedValueOnce(new Error('disk I/O error'));

    await expect(submitter.sendPayout(prepared)).rejects.toThrow('disk I/O error');

    expect(sent).toEqual([]);
    expect(await repos.attempts.byKey(prepared.key)).toMatchObject({ state: 'unknown', tryCount: 0, lastSentAt: null, error: 'not sent: disk I/O error' });
    expect(runner.holds(prepared.key)).toBe(false);
    // Not "busy" until a restart: a resume sends it now, under its own key, and counts that one try.
    expect(await runner.resume(prepared.key)).toMatchObject({ state: 'succeeded', tries: 1 });
    expect(sent.map((s) => s.key)).toEqual([prepared.key]);
    expect(await repos.attempts.byKey(prepared.key)).toMatchObject({ state: 'succeeded', tryCount: 1, lastSentAt: expect.any(String) });
  });

  it('of a card payout that fails before leaving keeps the card number nowhere: the resume asks for it again', async () => {
    const { repos, profile, sent, store, runner, submitter, audit } = await setup();
    const body = payoutBody(m, 'credit_card', 'ref-card-not-sent');
    const prepared = await submitter.preparePayout(profile, runner, body, audit(body));
    vi.spyOn(store, 'get').mockRejectedValueOnce(new Error('disk I/O error'));

    await expect(submitter.sendPayout(prepared)).rejects.toThrow('disk I/O error');

    expect(runner.holds(prepared.key)).toBe(false);
    expect(JSON.stringify(await repos.attempts.byKey(prepared.key))).not.toContain(TEST_CARD.number);
    expect(await runner.resume(prepared.key)).toMatchObject({ state: 'needs_body', why: 'missing' });
    expect(await runner.resume(prepared.key, { body })).toMatchObject({ state: 'succeeded', tries: 1 });
    expect(sent.map((s) => s.key)).toEqual([prepared.key]);
  });
});
