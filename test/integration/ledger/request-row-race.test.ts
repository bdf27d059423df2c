// Two processes on one row. A reference is recorded for one request only: a second request for it, under an attempt of its
// own, is refused, whether the first committed before it or commits while it waits on the first's
// insert (PostgreSQL: both pass the "is it free?" read, the second's insert waits, then inserts
// nothing). Taking the first's row would send the money twice. A redo by the same attempt gets
// its row back. And a status read applied while a notification's claim is being committed keeps
// that claim: the row it writes back is read after the claim's commit, not before it. On this
// run's engine.
import { afterEach, describe, expect, it } from 'vitest';
import { testLedger, type TestLedger } from '../../helpers/ledger';
import { applyStatus, upsertFromCreate } from '../../../src/main/services/payments/apply';

let ledger: TestLedger;
afterEach(async () => {
  await ledger?.close();
});

async function attempt(key: string): Promise<number> {
  return (await ledger.repos.attempts.prepare({ profileId: ledger.profile.id, kind: 'payout', idempotencyKey: key, reference: 'R-1', body: { merchantReference: 'R-1' } })).id;
}

const payout = (attemptId: number) => ({ profileId: ledger.profile.id, merchantReference: 'R-1', method: 'fps', amount: '5.00', currency: 'GBP', email: 'r@example.com', attemptId });

describe('one request per reference', () => {
  it('refuses the reference to a second request that waited on the first one\'s insert, and gives a redo its row', async () => {
    ledger = await testLedger();
    const [first, second] = [await attempt('k-1'), await attempt('k-2')];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let recorded = false;
    const one = ledger.db.transaction(async () => {
      await ledger.repos.payouts.recordRequest(payout(first));
      recorded = true;
      await held; // the first transaction stays open while the second records
    });
    while (!recorded) await new Promise((resolve) => setTimeout(resolve, 5));
    const two = ledger.db.transaction(() => ledger.repos.payouts.recordRequest(payout(second)));
    await new Promise((resolve) => setTimeout(resolve, 100));
    release();
    await one;
    await expect(two).rejects.toThrow(/R-1 is already recorded for another request/);
    const rows = await ledger.db.all<{ attempt_id: number }>('SELECT attempt_id FROM payouts WHERE merchant_reference = ?', ['R-1']);
    expect(rows).toEqual([{ attempt_id: first }]);
    // Refused as well once the first is committed; the first attempt's redo gets its own row back.
    await expect(ledger.repos.payouts.recordRequest(payout(second))).rejects.toThrow(/already recorded for another request/);
    expect((await ledger.repos.payouts.recordRequest(payout(first))).attemptId).toBe(first);
  });
});

describe('a row read to be written back', () => {
  it('keeps a claim committed while a status read waited to apply its answer', async () => {
    ledger = await testLedger();
    const row = await upsertFromCreate(ledger.repos.payins, { profileId: ledger.profile.id, kind: 'payin', requestId: 'S-1', method: 'blik', amount: '10.00', currency: 'PLN', email: 's@example.com' }, { gatewayId: 'pid-S-1', statusCode: 100 });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let claimed = false;
    const claim = ledger.db.transaction(async () => {
      await applyStatus(ledger.repos.payins, row.id, { statusCode: 200, source: 'notification' });
      claimed = true;
      await held;
    });
    while (!claimed) await new Promise((resolve) => setTimeout(resolve, 5));
    const read = applyStatus(ledger.repos.payins, row.id, { statusCode: 100, source: 'status_read' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    release();
    await claim;
    await read;
    const after = await ledger.repos.payins.byId(row.id);
    expect(after).toMatchObject({ statusCode: '100', lastNotifiedStatus: '200', lastVerifiedStatus: '100', claimState: 'unverified' });
  });
});
