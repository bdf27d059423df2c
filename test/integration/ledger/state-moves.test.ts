// The repositories write the state moves the services decide (batch-states.ts, approval-states.ts)
// only where the row is still in a state the move starts from: a compare-and-set, so a move
// decided on what another transaction has changed meanwhile writes nothing and says so.
import { afterEach, describe, expect, it } from 'vitest';
import { approvalMove } from '../../../src/main/services/approvals/approval-states';
import { OPEN_ITEMS, batchMove, itemMove } from '../../../src/main/services/payouts-batch/batch-states';
import { testLedger, type TestLedger } from '../../helpers/ledger';

let ledger: TestLedger | undefined;
afterEach(async () => {
  await ledger?.close();
  ledger = undefined;
});

describe('a state move in the ledger', () => {
  it('moves a batch only from the state it was decided on', async () => {
    ledger = await testLedger();
    const { repos, profile } = ledger;
    const batch = await repos.batches.createDraft({ profileId: profile.id, environment: 'local', fileName: 'moves.csv', declaredRows: 1 });
    expect(await repos.batches.moveBatch(batch.id, batchMove('running', 'paused'))).toBe(false);
    expect((await repos.batches.batch(batch.id))?.state).toBe('draft');
    expect(await repos.batches.moveBatch(batch.id, batchMove('draft', 'running'), { started: true })).toBe(true);
    expect(await repos.batches.moveBatch(batch.id, batchMove('running', 'cancelled'), { finished: true })).toBe(true);
    // A pause decided while it ran, written after the cancel: nothing moves back.
    expect(await repos.batches.moveBatch(batch.id, batchMove('running', 'paused'), { lastError: 'late' })).toBe(false);
    expect(await repos.batches.batch(batch.id)).toMatchObject({ state: 'cancelled', lastError: null });
  });

  it('settles an item only while it is open, and cancels only the pending ones', async () => {
    ledger = await testLedger();
    const { repos, profile } = ledger;
    const batch = await repos.batches.createDraft({ profileId: profile.id, environment: 'local', fileName: 'items.csv', declaredRows: 2 });
    await repos.batches.addItems(batch.id, [1, 2].map((line) => ({ line, merchantReference: `ref-${line}`, method: 'fps', amount: '1.00', currency: 'GBP', beneficiary: 'A', destination: 'd', form: '{}' })));
    const [first, second] = (await repos.batches.itemPage(batch.id, undefined, { limit: 10 })).items;
    expect(await repos.batches.moveItem(first!.id, itemMove(OPEN_ITEMS, 'sent'), null)).toBe(false);
    const payout = await repos.payouts.recordRequest({ profileId: profile.id, merchantReference: 'ref-1', method: 'fps', amount: '1.00', currency: 'GBP', email: 'a@example.com' });
    await repos.batches.markPrepared(first!.id, itemMove('pending', 'sending'), 'key-1', payout.id);
    await expect(repos.batches.markPrepared(first!.id, itemMove('pending', 'sending'), 'key-1', payout.id)).rejects.toThrow('batch item');
    expect(await repos.batches.moveItems(batch.id, itemMove('pending', 'cancelled'), 'cancelled before it was sent')).toBe(1);
    expect(await repos.batches.moveItem(first!.id, itemMove(OPEN_ITEMS, 'sent'), null)).toBe(true);
    expect(await repos.batches.moveItem(first!.id, itemMove(OPEN_ITEMS, 'unknown'), 'late')).toBe(false);
    expect([(await repos.batches.item(first!.id))?.state, (await repos.batches.item(second!.id))?.state]).toEqual(['sent', 'cancelled']);
  });

  it('decides an approval once: a second decision, or an expiry after it, writes nothing', async () => {
    ledger = await testLedger();
    const { repos, profile, clock } = ledger;
    await repos.team.createUser({ id: 'u-1', username: 'fin', displayName: 'Fin', role: 'finance', passwordHash: 'scrypt$1$1$1$a$b' });
    const expiresAt = new Date(clock.now().getTime() + 60_000).toISOString();
    const approval = await repos.approvals.insert({ kind: 'payout', profileId: profile.id, environment: 'live', subject: 'ref-1', currency: 'EUR', amount: '1500.00', itemCount: 1, body: '{}', bodyHash: 'h', reviewed: '{}', policy: 'p', makerId: 'u-1', makerName: 'Fin', expiresAt });
    const by = { reason: null, decidedById: 'u-2', decidedByName: 'App' };
    expect(await repos.approvals.decide(approval.id, approvalMove('awaiting', 'approved'), by, clock.now())).toBe(true);
    expect(await repos.approvals.decide(approval.id, approvalMove('awaiting', 'rejected'), { ...by, reason: 'late' }, clock.now())).toBe(false);
    clock.advance(120_000);
    expect(await repos.approvals.expireDue(approvalMove('awaiting', 'expired'), clock.now())).toEqual([]);
    expect(await repos.approvals.byId(approval.id)).toMatchObject({ state: 'approved', reason: null, decidedByName: 'App' });
  });
});
