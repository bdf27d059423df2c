// The ledger's watches on a desk: a live profile's method whose decline rate over the
// window rose to the threshold (with enough finals) is told once, written in the transaction of the
// status that made it cross, and told again only after it was counted below; under the threshold,
// under the minimum, on a sandbox profile, or in a transaction rolled back, nothing is told. A sweep
// that finds rows newly in mismatch tells it once for the run; one that finds none new tells nothing.
// Real ledger (SQLite, or PostgreSQL with the postgres config); the sweep's reads are a stand-in
// verifier that contradicts rows in the ledger as the gateway's answer would.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_NOTICE_THRESHOLDS } from '../../../src/shared/contract';
import { openCluster } from '../../../src/main/ledger/cluster';
import type { Repositories } from '../../../src/main/ledger/repositories/index';
import type { Profile } from '../../../src/main/ledger/repositories/profiles';
import type { Notices } from '../../../src/main/services/notices/notices';
import { applyStatus } from '../../../src/main/services/payments/apply';
import { Sweeper } from '../../../src/main/services/reconciliation/sweep';
import type { VerificationResult } from '../../../src/main/services/verification/verifier';
import { silentLogger } from '../../helpers/app-core';
import { deskNotices, type DeskNotices } from '../../helpers/desk-notices';
import type { ManualClock } from '../../helpers/ledger';

let ledger: DeskNotices['ledger'];
let clock: ManualClock;
let repos: Repositories;
let notices: Notices;
let live: Profile;
let sandbox: Profile;
let seq = 0;

beforeEach(async () => {
  ({ ledger, clock, repos, notices, live, sandbox } = await deskNotices());
  // Told from 50 % of at least 4 finals over 30 min.
  await notices.setThresholds({ ...DEFAULT_NOTICE_THRESHOLDS, declineRatePercent: 50, declineRateMinimum: 4, declineRateWindowMinutes: 30 });
});

afterEach(async () => {
  await ledger.remove();
});

/** A payout of the profile by the method, made final with the code (P200 paid, C-codes declined). */
async function payout(profile: Profile, code: string, method = 'open_banking') {
  const row = await repos.payouts.recordRequest({ profileId: profile.id, merchantReference: `po-${++seq}`, method, amount: '10.00', currency: 'EUR', email: 'a@example.com' });
  await applyStatus(repos.payouts, row.id, { statusCode: 'P100', source: 'create' });
  await applyStatus(repos.payouts, row.id, { statusCode: code, source: 'status_read' });
  return row;
}

async function payin(profile: Profile, code: number, method = 'blik') {
  const row = await repos.payins.recordRequest({ profileId: profile.id, kind: 'payin', requestId: `pi-${++seq}`, method, amount: '10.00', currency: 'PLN', email: 'a@example.com' });
  await applyStatus(repos.payins, row.id, { statusCode: 100, source: 'create' });
  await applyStatus(repos.payins, row.id, { statusCode: code, source: 'status_read' });
  return row;
}

const told = async (kind: string) => (await notices.list({ limit: 200 })).items.filter((n) => n.kind === kind);
const minute = 60_000;

describe("a method's decline rate", () => {
  it('tells nothing under the minimum of finals, then once when the rate reaches the threshold, not again while it stays high', async () => {
    await payout(live, 'P200');
    await payout(live, 'P200');
    await payout(live, 'C501');
    expect(await told('decline-rate.high')).toEqual([]); // 1 of 3: fewer finals than 4
    await payout(live, 'C405'); // 2 of 4: 50 %
    const [notice, ...more] = await told('decline-rate.high');
    expect(more).toEqual([]);
    expect(notice).toMatchObject({
      title: 'High decline rate: open_banking payouts on Shop live',
      link: '#/payouts?method=open_banking&category=customer_error,decline,validation,merchant_setup,system',
    });
    expect(notice!.body).toContain('2 of the 4 open_banking payouts of Shop live that became final in the last 30 min were not paid (50%; told from 50%)');
    await payout(live, 'C501');
    clock.advance(2 * minute);
    await payout(live, 'C501');
    expect(await told('decline-rate.high')).toHaveLength(1);
  });

  it('tells again only after the rate was counted below the threshold and rose again', async () => {
    for (const code of ['P200', 'C501', 'C501', 'C501']) await payout(live, code); // 3 of 4
    expect(await told('decline-rate.high')).toHaveLength(1);
    for (const code of ['P200', 'P200', 'P200']) {
      clock.advance(2 * minute);
      await payout(live, code); // 3 of 5, 3 of 6, then 3 of 7: below
    }
    expect(await told('decline-rate.high')).toHaveLength(1);
    clock.advance(2 * minute);
    await payout(live, 'C501'); // 4 of 8: high again
    expect(await told('decline-rate.high')).toHaveLength(2);
  });

  it('counts only the window: finals older than it are not in the rate', async () => {
    for (const code of ['C501', 'C501', 'C501']) await payout(live, code);
    clock.advance(31 * minute);
    await payout(live, 'C501'); // 1 of 1 in the window: under the minimum
    expect(await told('decline-rate.high')).toEqual([]);
  });

  it('tells a pay-in method of its own, linking to the pay-ins filtered; payouts of another method are another rate', async () => {
    for (const code of [302, 500, 200, 302]) await payin(live, code);
    for (const code of ['P200', 'P200', 'C501', 'C501']) await payout(live, code, 'crypto');
    const notices = await told('decline-rate.high');
    expect(notices.map((n) => n.title).sort()).toEqual(['High decline rate: blik pay-ins on Shop live', 'High decline rate: crypto payouts on Shop live']);
    expect(notices.find((n) => n.title.includes('blik'))).toMatchObject({ link: expect.stringMatching(/^#\/payins\?method=blik&category=/), body: expect.stringContaining('3 of the 4 blik pay-ins') });
  });

  it('tells nothing under the threshold, nothing of a sandbox profile', async () => {
    for (const code of ['P200', 'P200', 'P200', 'C501', 'P200']) await payout(live, code); // 1 of 5
    for (const code of ['C501', 'C501', 'C501', 'C501']) await payout(sandbox, code);
    expect(await told('decline-rate.high')).toEqual([]);
  });

  it('leaves no notice, and nothing marked, when the status that made it cross rolled back', async () => {
    for (const code of ['P200', 'C501', 'C501']) await payout(live, code);
    const row = await repos.payouts.recordRequest({ profileId: live.id, merchantReference: `po-${++seq}`, method: 'open_banking', amount: '10.00', currency: 'EUR', email: 'a@example.com' });
    await expect(
      repos.transaction(async () => {
        await applyStatus(repos.payouts, row.id, { statusCode: 'C501', source: 'create' });
        throw new Error('the rest of the transaction failed');
      }),
    ).rejects.toThrow('the rest of the transaction failed');
    expect(await told('decline-rate.high')).toEqual([]);
    await payout(live, 'C501'); // committed: 3 of 4
    expect(await told('decline-rate.high')).toHaveLength(1);
  });
});

describe('a decline rate told high on a shared ledger', () => {
  it('is marked high by one transaction only when two cross at the same moment (the other finds it done)', async () => {
    const key = { kind: 'payout' as const, profileId: live.id, method: 'open_banking' };
    const crossing = () =>
      repos.transaction(async () => {
        const tells = await repos.noticeWatches.markHigh(key);
        await new Promise((resolve) => setTimeout(resolve, 50)); // still open while the other tries
        return tells;
      });
    expect((await Promise.all([crossing(), crossing()])).sort()).toEqual([false, true]);
    await repos.noticeWatches.counted(key, false);
    expect(await repos.noticeWatches.markHigh(key)).toBe(true);
  });
});

describe("the sweep's mismatches", () => {
  /** A stand-in for the gateway's reads: the rows named are contradicted (a mismatch), the rest agree. */
  function sweeper(contradicted: Set<string>) {
    return new Sweeper({
      repos,
      verifier: {
        verifyNow: async (subject, rowId): Promise<VerificationResult> => {
          const store = subject === 'payin' ? repos.payins : repos.payouts;
          const mismatch = contradicted.has(`${subject}:${rowId}`);
          if (mismatch) await store.contradictClaim(rowId, 'the gateway answered C501');
          return { subject, rowId, verdict: mismatch ? 'mismatch' : 'verified', read: null } as unknown as VerificationResult;
        },
      },
      applier: { retryOrphans: async () => [] },
      now: clock.now,
      log: silentLogger,
      publish: () => {},
      cluster: openCluster(ledger.db, { log: silentLogger }),
      foundMismatches: (found) => notices.sweepFoundMismatches(found),
    });
  }

  async function sweep(contradicted: Set<string>) {
    const run = sweeper(contradicted);
    await run.start({});
    await run.settled();
    return run.current()!;
  }

  async function open(kind: 'payin' | 'payout') {
    if (kind === 'payin') {
      const row = await repos.payins.recordRequest({ profileId: live.id, kind: 'payin', requestId: `pi-${++seq}`, method: 'blik', amount: '1.00', currency: 'PLN', email: 'a@example.com' });
      await applyStatus(repos.payins, row.id, { statusCode: 100, source: 'create' });
      return `payin:${row.id}`;
    }
    const row = await repos.payouts.recordRequest({ profileId: live.id, merchantReference: `po-${++seq}`, method: 'open_banking', amount: '1.00', currency: 'EUR', email: 'a@example.com' });
    await applyStatus(repos.payouts, row.id, { statusCode: 'P100', source: 'create' });
    return `payout:${row.id}`;
  }

  it('tells once per run that found new ones, with the counts and a link to Reconciliation; a run finding none new tells nothing', async () => {
    const rows = [await open('payin'), await open('payout'), await open('payout'), await open('payin')];
    expect(await sweep(new Set())).toMatchObject({ state: 'done', mismatches: 0 });
    expect(await told('sweep.mismatches')).toEqual([]);

    const found = new Set(rows.slice(0, 3));
    const first = await sweep(found);
    expect(first).toMatchObject({ state: 'done', mismatches: 3 });
    const [notice, ...more] = await told('sweep.mismatches');
    expect(more).toEqual([]);
    expect(notice).toMatchObject({ title: 'Sweep found 3 new mismatches', link: '#/reconciliation' });
    expect(notice!.body).toContain(`The sweep started ${first.startedAt} (all profiles) found 1 pay-in and 2 payouts newly in mismatch`);

    // The same rows still in mismatch: nothing new, nothing told.
    expect(await sweep(found)).toMatchObject({ state: 'done', mismatches: 3 });
    expect(await told('sweep.mismatches')).toHaveLength(1);
    // One more: told again, with its count.
    await sweep(new Set([...found, rows[3]!]));
    expect((await told('sweep.mismatches')).map((n) => n.title)).toEqual(['Sweep found 1 new mismatch', 'Sweep found 3 new mismatches']);
  });
});
