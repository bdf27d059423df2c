// Concurrent approvals across instances: two team-server instances on one PostgreSQL ledger (a data
// directory, a pool and an HTTP server each; one envelope key and one gateway emulator, as
// docs/team.md sets them up), two approvers signed in to different instances approving the same
// request at the same moment. One decision holds and its payout (or batch) is sent once; the other
// approver is refused with a conflict naming who approved it and when, never an internal error.
// PostgreSQL only: a SQLite ledger is one desk's.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalView, BatchView, PayoutReviewView } from '../../../src/shared/contract';
import { payoutForm } from '../../helpers/fixtures';
import { testEngine } from '../../helpers/ledger';
import { desktopClient, oneGoesThrough, refusalTime, startTeamTestServer, type TeamClient, type TeamTestServer } from '../../helpers/team';
import { tempDir } from '../../helpers/temp-dir';
import { batchRows, exactlyOnceProblems, gatewayPayoutsByReference } from '../batches/helpers';

const ROUNDS = 8;

describe.skipIf(testEngine !== 'postgres')('two approvers on two instances of one team server', () => {
  let temp: ReturnType<typeof tempDir>;
  let a: TeamTestServer;
  let b: TeamTestServer;
  let maker: TeamClient;
  /** Signed in to instance A and to instance B. */
  let onA: TeamClient;
  let onB: TeamClient;
  let localId: string;
  let seq = 0;
  const heldAtGateway = () => gatewayPayoutsByReference(path.join(temp.dir, 'a', 'emulator.sqlite'));

  beforeAll(async () => {
    temp = tempDir('paydesk-scale-out-approvals-');
    a = await startTeamTestServer(path.join(temp.dir, 'a'));
    b = await startTeamTestServer(path.join(temp.dir, 'b'), { instanceOf: a });
    await a.addPerson('ada', 'admin');
    await a.addPerson('fin', 'finance');
    await a.addPerson('app', 'approver');
    await a.addPerson('ines', 'approver');
    const admin = await desktopClient(a.origin, 'ada');
    maker = await desktopClient(a.origin, 'fin');
    onA = await desktopClient(a.origin, 'app');
    onB = await desktopClient(b.origin, 'ines');
    localId = (await admin.value<{ id: string; environment: string }[]>('profiles:list')).find((p) => p.environment === 'local')!.id;
    await admin.value('approvals:set-policy', { environment: 'local', currency: 'EUR', mode: 'threshold', payoutAbove: '100', batchAbove: '500' });
  }, 60_000);

  afterAll(async () => {
    await b?.close();
    await a?.close();
    temp?.cleanup();
  });

  async function submitPayout(amount: string): Promise<ApprovalView> {
    const form = payoutForm('open_banking', { amount, reference: `scale-appr-${Date.now()}-${++seq}`, profileId: localId });
    const review = await maker.value<PayoutReviewView>('payouts:review', form);
    return maker.value<ApprovalView>('approvals:request-payout', { ...form, reviewId: review.reviewId, confirmed: true });
  }

  it(`sends a payout approved through both instances at once exactly once; the other approver is told who approved it and when (${ROUNDS} rounds)`, async () => {
    const clients: Record<string, TeamClient> = { app: onA, ines: onB };
    for (let round = 0; round < ROUNDS; round++) {
      const approval = await submitPayout('310.00');
      const { winner, refusal } = await oneGoesThrough({ app: () => onA.call('approvals:approve', { id: approval.id }), ines: () => onB.call('approvals:approve', { id: approval.id }) });
      const decided = await clients[winner]!.value<ApprovalView>('approvals:get', { id: approval.id });
      expect(decided).toMatchObject({ state: 'approved', decidedBy: { name: winner } });
      expect(refusal.code, refusal.message).toBe('conflict');
      expect(refusal.message).toContain(`already approved by ${winner} at ${refusalTime(decided.decidedAt!)}`);
      expect(refusal.message).not.toMatch(/merchantReference|internal|unexpected/i);
      expect(heldAtGateway().get(approval.subject), `round ${round}`).toBe(1);
      const attempts = await a.core.ledger.all<{ idempotency_key: string }>('SELECT idempotency_key FROM attempts WHERE reference = ?', [approval.subject]);
      expect(attempts.map((row) => row.idempotency_key)).toEqual([decided.idempotencyKey]);
    }
  }, 120_000);

  it('tells the approver on one instance that another rejected it on the other, and the other way round', async () => {
    for (let round = 0; round < 4; round++) {
      const approval = await submitPayout('320.00');
      const { winner, refusal } = await oneGoesThrough({ approve: () => onA.call('approvals:approve', { id: approval.id }), reject: () => onB.call('approvals:reject', { id: approval.id, reason: 'Not on file' }) });
      const decided = await onA.value<ApprovalView>('approvals:get', { id: approval.id });
      expect(refusal.code, refusal.message).toBe('conflict');
      const expected = winner === 'approve' ? `already approved by app at ${refusalTime(decided.decidedAt!)}` : `already rejected by ines at ${refusalTime(decided.decidedAt!)} (reason: Not on file)`;
      expect(refusal.message).toContain(expected);
      expect(heldAtGateway().get(approval.subject)).toBe(winner === 'approve' ? 1 : undefined);
    }
  }, 60_000);

  it('starts a batch approved through both instances at once once, each of its payouts sent once', async () => {
    const rows = batchRows(4, { prefix: `scale-appr-batch-${Date.now()}`, currency: 'EUR', amount: () => '200.00' });
    const batch = await maker.value<BatchView>('batches:create', { profileId: localId, fileName: 'race.csv', rows: rows.length });
    await maker.value('batches:add-items', { id: batch.id, items: rows });
    const review = await maker.value<{ reviewId: string }>('batches:review', { id: batch.id });
    const approval = await maker.value<ApprovalView>('approvals:request-batch', { id: batch.id, reviewId: review.reviewId, confirmed: true });
    const { winner, refusal } = await oneGoesThrough({ app: () => onA.call('approvals:approve', { id: approval.id }), ines: () => onB.call('approvals:approve', { id: approval.id }) });
    const decided = await onA.value<ApprovalView>('approvals:get', { id: approval.id });
    expect(refusal.code, refusal.message).toBe('conflict');
    expect(refusal.message).toContain(`already approved by ${winner} at ${refusalTime(decided.decidedAt!)}`);
    await expect.poll(async () => (await maker.value<BatchView>('batches:get', { id: batch.id })).state, { timeout: 20_000 }).toBe('done');
    expect(exactlyOnceProblems(heldAtGateway(), rows.map((r) => String(r.form.merchantReference)))).toEqual([]);
  }, 60_000);
});
