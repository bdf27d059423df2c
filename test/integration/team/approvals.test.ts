// Approval of payouts and batches on a team server (maker–checker), and the
// typed amount a desk asks for instead. Real team server on loopback, real core and emulator; each
// person signs in and calls as a desktop would. What must hold: what the policy holds back is
// stored and never sent until a different approver approves it; the maker's own approval is
// refused by the server (even after their role changed to approver); a rejection needs a reason; an
// approval expires; a batch discarded while awaiting voids its approval; the approval sends exactly
// once under the key it records; the audit log names maker, approver, policy and body hash, and the
// evidence pack of the payout holds them. Of two people deciding one request at the
// same moment (two approvals of a payout or a batch, approve against reject or withdraw), one
// decides, and the other is refused with a conflict naming what was decided, by whom and when —
// never an internal error or a merchantReference "already used"; a payout is sent once. The same
// across two instances: test/integration/scale-out/approvals.test.ts.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalDecision, ApprovalView, BatchView, PayoutReviewView, SubmitResult } from '../../../src/shared/contract';
import { createRepositories } from '../../../src/main/ledger/repositories/index';
import { payoutForm } from '../../helpers/fixtures';
import { tempDir } from '../../helpers/temp-dir';
import { contractCall, contractRefusal, testCore } from '../../helpers/app-core';
import { desktopClient, oneGoesThrough, refusalTime, startTeamTestServer, type TeamClient, type TeamTestServer } from '../../helpers/team';
import { batchRows, exactlyOnceProblems, gatewayPayoutsByReference } from '../batches/helpers';

let server: TeamTestServer;
let temp: ReturnType<typeof tempDir>;
let admin: TeamClient;
let maker: TeamClient;
let approver: TeamClient;
/** A second approver, deciding at the same moment as the first. */
let other: TeamClient;
let localId: string;
/** Moves the server's clock forward (expiry). */
let skewMs = 0;
let seq = 0;
const reference = (name: string) => `appr-${name}-${Date.now()}-${++seq}`;
const heldAtGateway = () => gatewayPayoutsByReference(path.join(temp.dir, 'emulator.sqlite'));

beforeAll(async () => {
  temp = tempDir('paydesk-team-approvals-');
  // Sessions outlive the clock moved forward by the expiry tests; the expiry watch looks at the (moved) clock every 100 ms.
  server = await startTeamTestServer(temp.dir, { now: () => new Date(Date.now() + skewMs), sessions: { idleMinutes: 600, maxAgeMinutes: 1440 }, approvals: { expiryRecheckMs: 100 } });
  await server.addPerson('ada', 'admin');
  await server.addPerson('fin', 'finance');
  await server.addPerson('app', 'approver');
  admin = await desktopClient(server.origin, 'ada');
  maker = await desktopClient(server.origin, 'fin');
  approver = await desktopClient(server.origin, 'app');
  await server.addPerson('ines', 'approver');
  other = await desktopClient(server.origin, 'ines');
  localId = (await admin.value<{ id: string; environment: string }[]>('profiles:list')).find((p) => p.environment === 'local')!.id;
  await admin.value('approvals:set-policy', { environment: 'local', currency: 'EUR', mode: 'threshold', payoutAbove: '100', batchAbove: '500' });
}, 60_000);

afterAll(async () => {
  await server?.close();
  temp?.cleanup();
});

/** A reviewed open-banking payout of `amount` EUR submitted for approval by `who`. */
async function submitPayout(who: TeamClient, amount: string, ref = reference('p')): Promise<ApprovalView> {
  const form = payoutForm('open_banking', { amount, reference: ref, profileId: localId });
  const review = await who.value<PayoutReviewView>('payouts:review', form);
  return who.value<ApprovalView>('approvals:request-payout', { ...form, reviewId: review.reviewId, confirmed: true });
}

describe('approval of payouts on a team server', () => {
  it('holds a payout above the threshold: the review says so, a send is refused, and the request waits with nothing sent', async () => {
    const ref = reference('held');
    const form = payoutForm('open_banking', { amount: '150.00', reference: ref, profileId: localId });
    const review = await maker.value<PayoutReviewView>('payouts:review', form);
    expect(review.approval).toEqual({ step: 'approval', policy: 'Local emulator EUR: payouts above 100.00 and batches above 500.00 in all need approval.', amount: '150.00', currency: 'EUR' });
    expect(await maker.call('payouts:create', { ...form, reviewId: review.reviewId, confirmed: true })).toMatchObject({ ok: false, error: { code: 'conflict', message: expect.stringMatching(/Submit it for approval/) } });
    // The refusal did not spend the review: it is the proof the request carries.
    const approval = await maker.value<ApprovalView>('approvals:request-payout', { ...form, reviewId: review.reviewId, confirmed: true });
    expect(approval).toMatchObject({ kind: 'payout', state: 'awaiting', subject: ref, amount: '150.00', currency: 'EUR', maker: { name: 'fin' }, decidedBy: null, idempotencyKey: null, needsCardNumber: false });
    expect(approval.payout).toMatchObject({ method: 'open_banking', amount: '150.00', merchantReference: ref });
    expect(approval.bodyHash).toMatch(/^[0-9a-f]{64}$/);
    // Nothing claimed, recorded as a payout, or sent.
    expect(heldAtGateway().get(ref)).toBeUndefined();
    expect((await maker.value<{ items: { merchantReference: string }[] }>('payouts:list', { profileId: localId, search: ref })).items).toEqual([]);
    const queue = await approver.value<{ items: ApprovalView[]; awaiting: number }>('approvals:list', { scope: 'queue' });
    expect(queue.items.map((a) => a.id)).toContain(approval.id);
    // Listed as it is read alone, its profile named.
    expect(queue.items.find((a) => a.id === approval.id)).toEqual(await approver.value<ApprovalView>('approvals:get', { id: approval.id }));
    expect(queue.items.find((a) => a.id === approval.id)?.profile).toEqual({ id: localId, name: 'Local emulator', environment: 'local' });
    // The same proof is single use; a payout below the threshold is simply sent.
    expect(await maker.call('approvals:request-payout', { ...form, reviewId: review.reviewId, confirmed: true })).toMatchObject({ ok: false, error: { code: 'conflict' } });
    const small = payoutForm('open_banking', { amount: '99.99', reference: reference('small'), profileId: localId });
    const smallReview = await maker.value<PayoutReviewView>('payouts:review', small);
    expect(smallReview.approval.step).toBe('none');
    expect((await maker.value<SubmitResult>('payouts:create', { ...small, reviewId: smallReview.reviewId, confirmed: true })).outcome).toBe('succeeded');
  });

  it('sends an approved payout exactly once, under the key written on the approval, and audits maker, approver, policy and hash', async () => {
    const approval = await submitPayout(maker, '250.00');
    const decision = await approver.value<ApprovalDecision>('approvals:approve', { id: approval.id });
    expect(decision.approval).toMatchObject({ state: 'approved', decidedBy: { name: 'app' } });
    expect(decision.payout?.outcome).toBe('succeeded');
    expect(decision.approval.idempotencyKey).toBe(decision.payout?.attempt.idempotencyKey);
    expect(heldAtGateway().get(approval.subject)).toBe(1);
    // Decided: a second approval (a double click, another approver) sends nothing.
    expect(await approver.call('approvals:approve', { id: approval.id })).toMatchObject({ ok: false, error: { code: 'conflict', message: expect.stringMatching(/already approved by app \(you\) at .* UTC/) } });
    expect(heldAtGateway().get(approval.subject)).toBe(1);

    const repos = createRepositories(server.core.ledger);
    const entries = (await repos.audit.list({ limit: 1000 })).filter((e) => e.subject === approval.subject);
    const byAction = new Map(entries.map((e) => [e.action, { actor: e.actor, details: JSON.parse(e.details) as Record<string, unknown> }]));
    expect(byAction.get('approval.request')?.actor).toBe('fin');
    expect(byAction.get('approval.approve')?.actor).toBe('app');
    expect(byAction.get('approval.request')?.details).toMatchObject({ maker: 'fin', bodyHash: approval.bodyHash, policy: approval.policy });
    expect(byAction.get('approval.approve')?.details).toMatchObject({ maker: 'fin', approver: 'app', bodyHash: approval.bodyHash, idempotencyKey: decision.approval.idempotencyKey, requestedAt: approval.createdAt });
    expect(byAction.get('payout.create')?.details).toMatchObject({ approvalId: approval.id, maker: 'fin', approver: 'app' });
    expect(await repos.audit.verify()).toMatchObject({ ok: true });

    const payoutId = decision.payout!.payout!.id;
    const pack = JSON.parse((await admin.value<{ json: string }>('evidence:export', { subject: 'payout', id: payoutId })).json) as { approvals: Record<string, unknown>[] };
    expect(pack.approvals).toEqual([expect.objectContaining({ kind: 'payout', id: approval.id, state: 'approved', maker: 'fin', decidedBy: 'app', bodyHash: approval.bodyHash, idempotencyKey: decision.approval.idempotencyKey, policy: approval.policy })]);
  });

  it("refuses the maker's own approval on the server, even once their role is approver", async () => {
    const dana = await server.addPerson('dana', 'finance');
    const danaClient = await desktopClient(server.origin, 'dana');
    const approval = await submitPayout(danaClient, '300.00');
    // As finance: the role may not approve.
    expect(await danaClient.call('approvals:approve', { id: approval.id })).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    // Made an approver: still not their own.
    await admin.value('team:update-user', { id: dana.id, role: 'approver' });
    const asApprover = await desktopClient(server.origin, 'dana');
    expect(await asApprover.call('approvals:approve', { id: approval.id })).toMatchObject({ ok: false, error: { code: 'forbidden', message: expect.stringMatching(/another approver/) } });
    expect(await asApprover.call('approvals:reject', { id: approval.id, reason: 'my own' })).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(heldAtGateway().get(approval.subject)).toBeUndefined();
    expect((await approver.value<ApprovalView>('approvals:get', { id: approval.id })).state).toBe('awaiting');
  });

  it('rejects with a reason, lets the maker withdraw, and expires what waits too long: none of them sent', async () => {
    const rejected = await submitPayout(maker, '120.00');
    expect(await approver.call('approvals:reject', { id: rejected.id, reason: '' })).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    const after = await approver.value<ApprovalView>('approvals:reject', { id: rejected.id, reason: 'Wrong beneficiary' });
    expect(after).toMatchObject({ state: 'rejected', reason: 'Wrong beneficiary', decidedBy: { name: 'app' } });
    expect(await approver.call('approvals:approve', { id: rejected.id })).toMatchObject({ ok: false, error: { code: 'conflict' } });

    const withdrawn = await submitPayout(maker, '130.00');
    expect(await admin.call('approvals:withdraw', { id: withdrawn.id })).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect((await maker.value<ApprovalView>('approvals:withdraw', { id: withdrawn.id })).state).toBe('withdrawn');

    await admin.value('approvals:set-expiry', { hours: 2 });
    const late = await submitPayout(maker, '140.00');
    skewMs = 3 * 3_600_000;
    try {
      expect(await approver.call('approvals:approve', { id: late.id })).toMatchObject({ ok: false, error: { code: 'conflict', message: expect.stringMatching(/expired/) } });
      expect((await approver.value<ApprovalView>('approvals:get', { id: late.id })).state).toBe('expired');
    } finally {
      skewMs = 0;
    }
    for (const approval of [rejected, withdrawn, late]) expect(heldAtGateway().get(approval.subject)).toBeUndefined();
    const decided = await maker.value<{ items: ApprovalView[] }>('approvals:list', { scope: 'decided' });
    expect(decided.items.filter((a) => [rejected.id, withdrawn.id, late.id].includes(a.id)).map((a) => a.state).sort()).toEqual(['expired', 'rejected', 'withdrawn']);
  });

  it('expires an approval when it is due, with nobody reading or deciding it: once, as of its expiry, in the audit log', async () => {
    await admin.value('approvals:set-expiry', { hours: 1 });
    const due = await submitPayout(maker, '150.00');
    const stateOf = async () => (await server.core.ledger.get<{ state: string; decided_at: string | null; expires_at: string }>('SELECT state, decided_at, expires_at FROM approvals WHERE id = ?', [due.id]))!;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await stateOf()).state).toBe('awaiting'); // the watch ran meanwhile, and it is not due
    const withdrawnLate = await submitPayout(maker, '160.00');
    const pushed: ApprovalView[] = [];
    const unsubscribe = server.events.subscribe((channel, payload) => {
      if (channel === 'approvals:approval-changed' && (payload as ApprovalView).id === due.id) pushed.push(payload as ApprovalView);
    });
    skewMs = 2 * 3_600_000;
    try {
      // Only the ledger is looked at until it expires: no approval is read or decided meanwhile.
      await expect.poll(async () => (await stateOf()).state, { timeout: 5_000 }).toBe('expired');
      // Past its time, the maker's withdrawal finds it expired, whether the watch came first or not.
      expect(await maker.call('approvals:withdraw', { id: withdrawnLate.id })).toMatchObject({ ok: false, error: { code: 'conflict', message: expect.stringMatching(/expired/) } });
    } finally {
      skewMs = 0;
    }
    // The screens that list it are told, once.
    await expect.poll(() => pushed.map((view) => view.state)).toEqual(['expired']);
    unsubscribe();
    const row = await stateOf();
    expect(row.decided_at).toBe(row.expires_at);
    expect(row.expires_at).toBe(due.expiresAt);
    const entries = (await createRepositories(server.core.ledger).audit.list({ limit: 1000 })).filter((e) => e.subject === due.subject);
    expect(entries.filter((e) => e.action === 'approval.expire').map((e) => e.actor)).toEqual(['system']);
    expect((await approver.value<ApprovalView>('approvals:get', { id: due.id })).state).toBe('expired');
    await admin.value('approvals:set-expiry', { hours: 2 });
  });

  it('asks the approver of a card payout for its card number (never stored) and refuses one that is not the reviewed card', async () => {
    const ref = reference('card');
    const form = payoutForm('credit_card', { amount: '180.00', reference: ref, profileId: localId });
    const review = await maker.value<PayoutReviewView>('payouts:review', form);
    const approval = await maker.value<ApprovalView>('approvals:request-payout', { ...form, reviewId: review.reviewId, confirmed: true });
    expect(approval.needsCardNumber).toBe(true);
    const pan = (form.paymentDetails as { cardNum: string }).cardNum;
    const stored = await server.core.ledger.get<{ body: string }>('SELECT body FROM approvals WHERE id = ?', [approval.id]);
    expect(stored?.body).not.toContain(pan);
    expect(await approver.call('approvals:approve', { id: approval.id })).toMatchObject({ ok: false, error: { code: 'invalid_input', fields: { cardNum: expect.any(String) } } });
    expect(await approver.call('approvals:approve', { id: approval.id, cardNum: '4000056655665556' })).toMatchObject({ ok: false, error: { code: 'invalid_input', fields: { cardNum: 'not the reviewed card number' } } });
    const decision = await approver.value<ApprovalDecision>('approvals:approve', { id: approval.id, cardNum: pan });
    expect(decision.payout?.outcome).toBe('succeeded');
    expect(heldAtGateway().get(ref)).toBe(1);
  });
});

describe('approval of batches on a team server', () => {
  async function draft(count: number, prefix: string): Promise<{ batch: BatchView; references: string[] }> {
    const rows = batchRows(count, { prefix, currency: 'EUR', amount: () => '100.00' });
    const batch = await maker.value<BatchView>('batches:create', { profileId: localId, fileName: `${prefix}.csv`, rows: rows.length });
    await maker.value('batches:add-items', { id: batch.id, items: rows });
    return { batch, references: rows.map((r) => String(r.form.merchantReference)) };
  }

  it('holds a batch above its total until approved as a whole, then sends each item once; a discarded one voids its approval', async () => {
    const { batch, references } = await draft(6, reference('batch'));
    const review = await maker.value<{ reviewId: string; approval: { step: string; amount: string | null } }>('batches:review', { id: batch.id });
    expect(review.approval).toMatchObject({ step: 'approval', amount: '600.00' });
    expect(await maker.call('batches:start', { id: batch.id, reviewId: review.reviewId, confirmed: true })).toMatchObject({ ok: false, error: { code: 'conflict', message: expect.stringMatching(/Submit the batch for approval/) } });
    const approval = await maker.value<ApprovalView>('approvals:request-batch', { id: batch.id, reviewId: review.reviewId, confirmed: true });
    expect(approval).toMatchObject({ kind: 'batch', state: 'awaiting', amount: '600.00', currency: 'EUR', itemCount: 6, batch: { id: batch.id } });
    // Only its approval starts it.
    const again = await maker.value<{ reviewId: string }>('batches:review', { id: batch.id });
    expect(await maker.call('batches:start', { id: batch.id, reviewId: again.reviewId, confirmed: true })).toMatchObject({ ok: false, error: { code: 'conflict', message: expect.stringMatching(/awaits approval/) } });
    expect(references.filter((r) => heldAtGateway().has(r))).toEqual([]);

    const decision = await approver.value<ApprovalDecision>('approvals:approve', { id: approval.id });
    expect(decision.approval.state).toBe('approved');
    expect(decision.batch?.state).toBe('running');
    const deadline = Date.now() + 20_000;
    let current = decision.batch!;
    while (current.state !== 'done' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      current = await maker.value<BatchView>('batches:get', { id: batch.id });
    }
    expect(current.counts.sent).toBe(6);
    expect(exactlyOnceProblems(heldAtGateway(), references)).toEqual([]);
    // Each of its payouts' evidence packs names the batch's approval.
    const item = (await maker.value<{ items: { id: number; merchantReference: string }[] }>('payouts:list', { profileId: localId, search: references[0] })).items[0]!;
    const pack = JSON.parse((await admin.value<{ json: string }>('evidence:export', { subject: 'payout', id: item.id })).json) as { approvals: Record<string, unknown>[] };
    expect(pack.approvals).toEqual([expect.objectContaining({ kind: 'batch', id: approval.id, state: 'approved', maker: 'fin', decidedBy: 'app' })]);

    const other = await draft(6, reference('discarded'));
    const otherReview = await maker.value<{ reviewId: string }>('batches:review', { id: other.batch.id });
    const voided = await maker.value<ApprovalView>('approvals:request-batch', { id: other.batch.id, reviewId: otherReview.reviewId, confirmed: true });
    await maker.value('batches:discard', { id: other.batch.id });
    expect(await approver.value<ApprovalView>('approvals:get', { id: voided.id })).toMatchObject({ state: 'voided', reason: 'the batch was discarded' });
    expect(await approver.call('approvals:approve', { id: voided.id })).toMatchObject({ ok: false, error: { code: 'conflict' } });
  });
});

describe('two people deciding one request at the same moment', () => {
  const ROUNDS = 8;

  it(`sends a payout two approvers approve at once exactly once; the other is told who approved it and when (${ROUNDS} rounds)`, async () => {
    const [app, ines] = [await server.servedAs(approver), await server.servedAs(other)];
    const approverOf: Record<string, TeamClient> = { app: approver, ines: other };
    for (let round = 0; round < ROUNDS; round++) {
      const approval = await submitPayout(maker, '210.00', reference(`race-${round}`));
      // Odd rounds over HTTP, as two browsers send them; even rounds started in one turn of the event loop.
      const { winner, refusal } =
        round % 2 === 0
          ? await oneGoesThrough({ app: () => app('approvals:approve', { id: approval.id }), ines: () => ines('approvals:approve', { id: approval.id }) })
          : await oneGoesThrough({ app: () => approver.call('approvals:approve', { id: approval.id }), ines: () => other.call('approvals:approve', { id: approval.id }) });
      const decided = await approverOf[winner]!.value<ApprovalView>('approvals:get', { id: approval.id });
      expect(decided).toMatchObject({ state: 'approved', decidedBy: { name: winner } });
      expect(refusal.code, refusal.message).toBe('conflict');
      expect(refusal.message).toContain(`already approved by ${winner} at ${refusalTime(decided.decidedAt!)}`);
      expect(refusal.message).not.toMatch(/merchantReference|internal|unexpected/i);
      // One send: one payout at the gateway, one attempt and one payout row in the ledger.
      expect(heldAtGateway().get(approval.subject), `round ${round}`).toBe(1);
      const attempts = await server.core.ledger.all<{ idempotency_key: string }>('SELECT idempotency_key FROM attempts WHERE reference = ?', [approval.subject]);
      expect(attempts.map((a) => a.idempotency_key)).toEqual([decided.idempotencyKey]);
    }
  }, 120_000);

  it('tells whoever loses a race of approve with reject or withdraw what was decided, by whom and when; sends only what was approved', async () => {
    const [app, ines, fin] = [await server.servedAs(approver), await server.servedAs(other), await server.servedAs(maker)];
    for (let round = 0; round < 6; round++) {
      // approve against reject (two approvers), then approve against the maker's withdrawal.
      const versus = round % 2 === 0 ? 'reject' : 'withdraw';
      const approval = await submitPayout(maker, '220.00', reference(`race-${versus}-${round}`));
      const against = versus === 'reject' ? () => ines('approvals:reject', { id: approval.id, reason: 'Not on file' }) : () => fin('approvals:withdraw', { id: approval.id });
      const { winner, refusal } = await oneGoesThrough({ approve: () => app('approvals:approve', { id: approval.id }), [versus]: against });
      const decided = await approver.value<ApprovalView>('approvals:get', { id: approval.id });
      expect(refusal.code, refusal.message).toBe('conflict');
      expect(refusal.message).not.toMatch(/merchantReference|internal|unexpected/i);
      if (winner === 'approve') {
        expect(decided.state).toBe('approved');
        expect(refusal.message).toContain(`already approved by app at ${refusalTime(decided.decidedAt!)}`);
        expect(heldAtGateway().get(approval.subject)).toBe(1);
      } else {
        expect(decided.state).toBe(versus === 'reject' ? 'rejected' : 'withdrawn');
        expect(refusal.message).toContain(versus === 'reject' ? `already rejected by ines at ${refusalTime(decided.decidedAt!)}` : `already withdrawn by fin at ${refusalTime(decided.decidedAt!)}`);
        expect(heldAtGateway().get(approval.subject)).toBeUndefined();
      }
    }
  }, 120_000);

  it('tells an approver who comes after the expiry when it expired, and sends nothing', async () => {
    await admin.value('approvals:set-expiry', { hours: 1 });
    const approval = await submitPayout(maker, '230.00', reference('race-expiry'));
    skewMs = 2 * 3_600_000;
    try {
      const refusal = await approver.call('approvals:approve', { id: approval.id });
      expect(refusal).toMatchObject({ ok: false, error: { code: 'conflict', message: expect.stringContaining(`expired at ${refusalTime(approval.expiresAt)}`) } });
    } finally {
      skewMs = 0;
      await admin.value('approvals:set-expiry', { hours: 2 });
    }
    expect(heldAtGateway().get(approval.subject)).toBeUndefined();
  });

  it('starts a batch two approvers approve at once once, each item sent once; the other is told who approved it and when', async () => {
    const [app, ines] = [await server.servedAs(approver), await server.servedAs(other)];
    for (let round = 0; round < 3; round++) {
      const rows = batchRows(3, { prefix: reference(`race-batch-${round}`), currency: 'EUR', amount: () => '200.00' });
      const batch = await maker.value<BatchView>('batches:create', { profileId: localId, fileName: 'race.csv', rows: rows.length });
      await maker.value('batches:add-items', { id: batch.id, items: rows });
      const review = await maker.value<{ reviewId: string }>('batches:review', { id: batch.id });
      const approval = await maker.value<ApprovalView>('approvals:request-batch', { id: batch.id, reviewId: review.reviewId, confirmed: true });
      const { winner, refusal } = await oneGoesThrough({ app: () => app('approvals:approve', { id: approval.id }), ines: () => ines('approvals:approve', { id: approval.id }) });
      const decided = await approver.value<ApprovalView>('approvals:get', { id: approval.id });
      expect(refusal.code, refusal.message).toBe('conflict');
      expect(refusal.message).toContain(`already approved by ${winner} at ${refusalTime(decided.decidedAt!)}`);
      const references = rows.map((r) => String(r.form.merchantReference));
      await expect.poll(async () => (await maker.value<BatchView>('batches:get', { id: batch.id })).state, { timeout: 20_000 }).toBe('done');
      expect(exactlyOnceProblems(heldAtGateway(), references)).toEqual([]);
    }
  }, 120_000);
});

describe('the approval policy on a desk', () => {
  it('asks for the amount typed again instead of a second person, and sends only with it exact', async () => {
    const deskDir = tempDir('paydesk-desk-approvals-');
    const desk = { core: await testCore(deskDir.dir), close: async () => { await desk.core.close(); deskDir.cleanup(); } };
    try {
      await contractCall(desk.core, 'approvals:set-policy', { environment: 'local', currency: 'EUR', mode: 'threshold', payoutAbove: '100', batchAbove: null });
      const form = payoutForm('open_banking', { amount: '150.50', reference: reference('desk') });
      const review = await contractCall(desk.core, 'payouts:review', form);
      expect(review.approval).toMatchObject({ step: 'typed_amount', amount: '150.50', currency: 'EUR' });
      expect(await contractRefusal(desk.core, 'payouts:create', { ...form, reviewId: review.reviewId, confirmed: true })).toMatchObject({ code: 'invalid_input', fields: { typedAmount: 'type 150.50 to confirm' } });
      expect(await contractRefusal(desk.core, 'payouts:create', { ...form, reviewId: review.reviewId, confirmed: true, typedAmount: '150.05' })).toMatchObject({ code: 'invalid_input', fields: { typedAmount: 'does not match 150.50' } });
      // Approvals themselves need a second person: a desk has none.
      expect(await contractRefusal(desk.core, 'approvals:request-payout', { ...form, reviewId: review.reviewId, confirmed: true })).toMatchObject({ code: 'unavailable' });
      const sent = await contractCall(desk.core, 'payouts:create', { ...form, reviewId: review.reviewId, confirmed: true, typedAmount: '150.5' });
      expect(sent.outcome).toBe('succeeded');
      const entry = (await createRepositories(desk.core.ledger).audit.list({ limit: 100 })).find((e) => e.action === 'payout.create' && e.subject === form.merchantReference);
      expect(JSON.parse(entry!.details)).toMatchObject({ confirmedByTypedAmount: expect.stringMatching(/payouts above 100/) });

      // A batch whose total is above the batch rule: its total typed again.
      await contractCall(desk.core, 'approvals:set-policy', { environment: 'local', currency: 'EUR', mode: 'threshold', payoutAbove: null, batchAbove: '250' });
      const rows = batchRows(3, { prefix: reference('desk-batch'), currency: 'EUR', amount: () => '100.00' });
      const batch = await contractCall(desk.core, 'batches:create', { fileName: 'desk.csv', rows: rows.length });
      await contractCall(desk.core, 'batches:add-items', { id: batch.id, items: rows });
      const batchReview = await contractCall(desk.core, 'batches:review', { id: batch.id });
      expect(batchReview.approval).toMatchObject({ step: 'typed_amount', amount: '300.00', currency: 'EUR' });
      expect(await contractRefusal(desk.core, 'batches:start', { id: batch.id, reviewId: batchReview.reviewId, confirmed: true })).toMatchObject({ code: 'invalid_input', fields: { typedAmount: 'type 300.00 to confirm' } });
      expect((await contractCall(desk.core, 'batches:start', { id: batch.id, reviewId: batchReview.reviewId, confirmed: true, typedAmount: '300' })).state).toBe('running');
    } finally {
      await desk.close();
    }
  });
});
