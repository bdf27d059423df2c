// A sweep's failed reads are named, not only counted: which transaction (its table,
// row and reference) and why, so a person can open each one. On this run's engine.
import { upsertFromCreate } from '../../../src/main/services/payments/apply';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { soleCluster } from '../../../src/main/ledger/cluster';
import { Sweeper } from '../../../src/main/services/reconciliation/sweep';
import type { Verifier } from '../../../src/main/services/verification/verifier';
import type { SweepState } from '../../../src/shared/contract';
import { silentLogger } from '../../helpers/app-core';
import { testLedger, type TestLedger } from '../../helpers/ledger';

let ledger: TestLedger;
beforeAll(async () => {
  ledger = await testLedger();
});
afterAll(async () => {
  await ledger?.close();
});

describe('a sweep with failed reads', () => {
  it('lists each failed read with its transaction, reference and reason', async () => {
    const { repos, profile } = ledger;
    const ok = await upsertFromCreate(repos.payins, { profileId: profile.id, kind: 'payin', requestId: 'sweep-ok', method: 'blik', amount: '1.00', currency: 'PLN', email: 'r@example.com' }, { gatewayId: 'pid-ok', statusCode: 100 });
    const refused = await upsertFromCreate(repos.payins, { profileId: profile.id, kind: 'payin', requestId: 'sweep-refused', method: 'blik', amount: '1.00', currency: 'PLN', email: 'r@example.com' }, { gatewayId: 'pid-refused', statusCode: 100 });
    const limited = await upsertFromCreate(repos.payins, { profileId: profile.id, kind: 'payin', requestId: 'sweep-limited', method: 'blik', amount: '1.00', currency: 'PLN', email: 'r@example.com' }, { gatewayId: 'pid-limited', statusCode: 100 });
    const lost = await upsertFromCreate(repos.payouts, { profileId: profile.id, merchantReference: 'sweep-lost', method: 'fps', amount: '1.00', currency: 'GBP', email: 'r@example.com' }, { gatewayId: 'po-lost', statusCode: 'P100' });
    // The gateway: refuses one read, is unreachable for another, answers the third.
    const verifier: Pick<Verifier, 'verifyNow'> = {
      verifyNow: async (subject, rowId) => {
        const result = subject === 'payout' ? (rowId === lost.id ? 'unreachable' : 'ok') : rowId === refused.id ? 'rejected' : rowId === limited.id ? 'rate_limited' : 'ok';
        const detail = { rejected: 'HTTP 401 INVALID_MERCHANT', unreachable: 'connect ECONNREFUSED 127.0.0.1:9', rate_limited: 'rate limited by the gateway (HTTP 429, Retry-After 1 s): retry in 1 s', ok: null }[result];
        return { verdict: result === 'ok' ? 'verified' : 'gave_up', read: { result, detail, rateLimited: 0, changed: false, claim: 'none' } } as unknown as Awaited<ReturnType<Verifier['verifyNow']>>;
      },
    };
    const pushes: SweepState[] = [];
    const sweeper = new Sweeper({ repos, verifier, applier: { retryOrphans: async () => [] }, now: () => new Date(), log: silentLogger, publish: (state) => pushes.push(state), cluster: soleCluster(silentLogger) });
    await sweeper.start({});
    await sweeper.settled();
    const end = sweeper.current();
    expect(end).toMatchObject({ state: 'done', done: 4, failed: 3 });
    expect(end?.failures).toEqual(
      expect.arrayContaining([
        { subject: 'payin', rowId: refused.id, reference: 'sweep-refused', reason: 'the gateway refused the read: HTTP 401 INVALID_MERCHANT' },
        { subject: 'payout', rowId: lost.id, reference: 'sweep-lost', reason: 'the gateway could not be reached: connect ECONNREFUSED 127.0.0.1:9' },
        // Said once: not "still rate-limited after waiting: rate limited by the gateway … retry in 1 s".
        { subject: 'payin', rowId: limited.id, reference: 'sweep-limited', reason: 'the gateway still answered HTTP 429 (rate limited) after every wait the read allows: run the sweep again later' },
      ]),
    );
    expect(end?.failures).toHaveLength(3);
    expect(end?.failures.some((f) => f.rowId === ok.id && f.subject === 'payin')).toBe(false);
    // The last push carries them too: the screen that follows the sweep shows them.
    expect(pushes.at(-1)?.failures).toEqual(end?.failures);
  });
});
