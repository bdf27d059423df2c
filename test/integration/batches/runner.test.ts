// The BatchRunner's commits and bounds, on a real ledger with a scripted gateway whose answers the
// test releases: never more than `concurrency` items in flight; the answers that arrive together
// recorded in one commit, with the next items' intents; an answer that cannot be recorded holding
// back none of the others and settled later under its own key; open items (a crash left them)
// settled before pending ones are sent; a pause stopping new intents; each claim sent the moment
// it commits, and forgotten when its transaction rolls back.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PayoutCreateForm, SubmitResult } from '../../../src/shared/contract';
import type { AttemptRunner } from '../../../src/main/gateway/attempt-runner';
import type { PayoutSession } from '../../../src/main/services/payments/payout-service';
import type { AnsweredPayout, PayoutHooks, PreparedPayout } from '../../../src/main/services/payments/submitter';
import { payoutViewOf } from '../../../src/main/services/payments/views';
import { BatchRunner } from '../../../src/main/services/payouts-batch/batch-runner';
import { BatchHistory } from '../../../src/main/services/payouts-batch/batch-history';
import { BatchesRepository } from '../../../src/main/ledger/repositories/batches';
import { silentLogger } from '../../helpers/app-core';
import { testLedger, type TestLedger } from '../../helpers/ledger';
import { countCommits } from './helpers';
import { until } from '../../helpers/poll';
import { batchMove, itemMove } from '../../../src/main/services/payouts-batch/batch-states';

const opened: TestLedger[] = [];
afterEach(async () => {
  for (const ledger of opened.splice(0)) await ledger.close();
});

/**
 * The payout path as the runner sees it: prepare records a real attempt (already "sending") and
 * payout row and calls the item's hook; send waits until the test releases its answer; record
 * stores the answer (or throws, for the references in failRecord).
 */
function scriptedGateway(ledger: TestLedger) {
  const { repos, profile } = ledger;
  const waiting: { reference: string; answer: () => void }[] = [];
  const state = {
    inFlight: 0,
    maxInFlight: 0,
    prepared: [] as string[],
    recorded: [] as string[],
    resumed: [] as string[],
    resumedBeforeFirstPrepare: -1,
    failRecord: new Set<string>(),
    /** Claims the runner dropped because their transaction rolled back. */
    forgotten: [] as string[],
    sessions: 0,
    /** While set, session reads after the first wait for it (a keychain read that stalls). */
    stall: undefined as Promise<void> | undefined,
    /** The runner's word of which batch a payout row being sent is of (its pushes look it up no further). */
    announced: [] as { batchId: number; payoutRowId: number }[],
    /** Payout rows whose request left before the runner said which batch they are of. */
    sentUnannounced: [] as number[],
  };
  const runner = { forget: (key: string) => void state.forgotten.push(key) } as unknown as AttemptRunner;
  const session: PayoutSession = { profile, runner };
  const answered = (prepared: PreparedPayout, reference: string): AnsweredPayout => ({
    prepared,
    outcome: { key: prepared.key, endpoint: 'payout_create', state: 'succeeded', tries: 1, httpStatus: 200, body: { payout_id: `po-${reference}`, status_code: 'P100' } as never, raw: '{}', source: 'create' },
    message: 'accepted',
    record: async () => {
      if (state.failRecord.has(reference)) throw new Error('disk I/O error');
      await repos.attempts.markSucceeded(prepared.key, { httpStatus: 200, responseBody: '{}' });
    },
    abandon: async (reason) => {
      await repos.attempts.markUnknown(prepared.key, { error: reason });
    },
  });
  const payouts = {
    session: async () => {
      if (++state.sessions > 1 && state.stall) await state.stall;
      return session;
    },
    prepare: (form: PayoutCreateForm, s: PayoutSession, extra: { hooks?: PayoutHooks } = {}): Promise<PreparedPayout> =>
      repos.transaction(async () => {
        const reference = String(form.merchantReference);
        const key = `key-${reference}`;
        if (state.prepared.length === 0) state.resumedBeforeFirstPrepare = state.resumed.length;
        const attempt = await repos.attempts.record({ profileId: profile.id, kind: 'payout', idempotencyKey: key, reference, requestHash: 'h', requestBody: '{}', replayable: true, state: 'sending' });
        const row = await repos.payouts.recordRequest({ profileId: profile.id, merchantReference: reference, method: 'fps', amount: '10.00', currency: 'GBP', email: 'a@example.com', attemptId: attempt.id });
        await extra.hooks?.afterPrepare?.(key, row.id);
        state.prepared.push(reference);
        return { profile: s.profile, runner: s.runner, key, rowId: row.id, view: payoutViewOf(row, attempt, undefined) };
      }),
    send: (prepared: PreparedPayout): Promise<AnsweredPayout> => {
      const reference = prepared.key.slice('key-'.length);
      if (!state.announced.some((a) => a.payoutRowId === prepared.rowId)) state.sentUnannounced.push(prepared.rowId);
      state.inFlight++;
      state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
      return new Promise((resolve) =>
        waiting.push({
          reference,
          answer: () => {
            state.inFlight--;
            resolve(answered(prepared, reference));
          },
        }),
      );
    },
    recorded: async (a: AnsweredPayout) => {
      state.recorded.push(a.prepared.key);
    },
  };
  const attempts = {
    // An open item is settled under its own key: here the gateway "replays" its first answer.
    settle: async ({ key }: { key: string }) => {
      state.resumed.push(key);
      await repos.attempts.markSucceeded(key, { httpStatus: 200, responseBody: '{}' });
      return { outcome: 'succeeded', message: 'replayed' } as SubmitResult;
    },
  };
  /** Answers every request in flight, all in the same turn of the event loop. */
  const releaseAll = () => waiting.splice(0).forEach((w) => w.answer());
  return { payouts, attempts, state, waiting, releaseAll };
}

async function runningBatch(ledger: TestLedger, rows: number): Promise<{ store: BatchesRepository; batchId: number }> {
  const store = new BatchesRepository(ledger.db, ledger.clock.now, 'instance-a');
  const batch = await store.createDraft({ profileId: ledger.profile.id, environment: 'local', fileName: 'x.csv', declaredRows: rows });
  await store.addItems(
    batch.id,
    Array.from({ length: rows }, (_, i) => {
      const merchantReference = `ref-${i + 1}`;
      const form = { method: 'fps', amount: '10.00', currency: 'GBP', country: 'GBR', merchantReference };
      return { line: i + 2, merchantReference, method: 'fps', amount: '10.00', currency: 'GBP', beneficiary: 'Ana Lima', destination: 'sort code 401276', form: JSON.stringify(form) };
    }),
  );
  await store.moveBatch(batch.id, batchMove('draft', 'running'), { started: true });
  await store.runHere(batch.id);
  return { store, batchId: batch.id };
}

async function start(ledger: TestLedger, rows: number, concurrency: number, before: (gateway: ReturnType<typeof scriptedGateway>) => void = () => undefined) {
  const { store, batchId } = await runningBatch(ledger, rows);
  const gateway = scriptedGateway(ledger);
  before(gateway);
  const counter = countCommits(ledger.db);
  const runner = new BatchRunner({ transaction: ledger.repos.transaction, batches: store, history: new BatchHistory(ledger.repos.batchEvents, ledger.clock.now, (id) => store.counts(id)), payouts: gateway.payouts, attempts: gateway.attempts, log: silentLogger, changed: () => {}, ended: () => {}, sending: (id, payoutRowId) => void gateway.state.announced.push({ batchId: id, payoutRowId }), concurrency });
  runner.run(batchId);
  return { store, batchId, gateway, counter, runner };
}

/** Items 1..n as a crash leaves them: "sending" with their key, their attempt unknown. */
async function leftByCrash(ledger: TestLedger, store: BatchesRepository, batchId: number, n: number): Promise<void> {
  const { repos, profile } = ledger;
  for (const item of (await store.itemPage(batchId, ['pending'], { limit: n })).items) {
    const key = `key-${item.merchantReference}`;
    const attempt = await repos.attempts.record({ profileId: profile.id, kind: 'payout', idempotencyKey: key, reference: item.merchantReference, requestHash: 'h', requestBody: '{}', replayable: true, state: 'sending' });
    const row = await repos.payouts.recordRequest({ profileId: profile.id, merchantReference: item.merchantReference, method: 'fps', amount: '10.00', currency: 'GBP', email: 'a@example.com', attemptId: attempt.id });
    await store.markPrepared(item.id, itemMove('pending', 'sending'), key, row.id);
    await repos.attempts.markUnknown(key, { error: 'interrupted' });
  }
}

/** A batch of `rows` run four at a time; once four are in flight, instance B runs it (a resume there, a takeover). Returns once this runner has stopped. */
async function handedOverWithFourInFlight(rows: number) {
  const ledger = await testLedger();
  opened.push(ledger);
  const { store, batchId, gateway, runner } = await start(ledger, rows, 4);
  await until(() => gateway.waiting.length === 4, 'four requests', 2_000, 5);
  await new BatchesRepository(ledger.db, ledger.clock.now, 'instance-b').runHere(batchId);
  gateway.releaseAll();
  await runner.settled();
  return { ledger, store, batchId, gateway };
}

describe('BatchRunner', () => {
  it('keeps at most `concurrency` items in flight, and records the answers that arrive together in one commit with the next items', async () => {
    const ledger = await testLedger();
    opened.push(ledger);
    const { store, batchId, gateway, counter, runner } = await start(ledger, 10, 4);

    await until(() => gateway.waiting.length === 4, 'the first four requests', 2_000, 5);
    expect(counter.commits).toBe(1); // the first four intents, together
    expect(await store.counts(batchId)).toMatchObject({ sending: 4, pending: 6, sent: 0 });

    gateway.releaseAll();
    await until(() => gateway.waiting.length === 4, 'the next four requests', 2_000, 5);
    expect(counter.commits).toBe(2); // four answers and the next four intents
    expect(await store.counts(batchId)).toMatchObject({ sent: 4, sending: 4, pending: 2 });

    gateway.releaseAll();
    await until(() => gateway.waiting.length === 2, 'the last two requests', 2_000, 5);
    expect(counter.commits).toBe(3);
    gateway.releaseAll();
    await runner.settled();

    expect(counter.commits).toBe(5); // the last two answers, then the end ("done", in the history)
    expect(gateway.state.maxInFlight).toBe(4);
    expect(await store.counts(batchId)).toMatchObject({ sent: 10, sending: 0, pending: 0, unknown: 0 });
    expect((await store.batch(batchId))?.state).toBe('done');
    // Each item holds the key of its one attempt, now settled, and its payout row.
    for (const item of (await store.itemPage(batchId, undefined, { limit: 100 })).items) {
      expect(item.idempotencyKey).toBe(`key-${item.merchantReference}`);
      expect((await ledger.repos.attempts.byKey(item.idempotencyKey as string))?.state).toBe('succeeded');
      expect(item.payoutRowId).not.toBeNull();
    }
    expect(gateway.state.prepared).toHaveLength(10);
    expect(gateway.state.recorded).toHaveLength(10);
    // Each payout was said to be of this batch before its request left.
    const items = (await store.itemPage(batchId, undefined, { limit: 100 })).items;
    expect(gateway.state.announced.sort((a, b) => a.payoutRowId - b.payoutRowId)).toEqual(items.map((item) => ({ batchId, payoutRowId: item.payoutRowId })).sort((a, b) => Number(a.payoutRowId) - Number(b.payoutRowId)));
    expect(gateway.state.sentUnannounced).toEqual([]);
  });

  it('records the other answers when one cannot be; that one is left unknown and settled under its own key', async () => {
    const ledger = await testLedger();
    opened.push(ledger);
    const { store, batchId, gateway, runner } = await start(ledger, 4, 4);
    gateway.state.failRecord.add('ref-2');

    await until(() => gateway.waiting.length === 4, 'four requests', 2_000, 5);
    gateway.releaseAll();
    await until(() => gateway.state.resumed.length === 1, 'ref-2 to be settled under its key', 2_000, 5);
    await runner.settled();

    expect(gateway.state.resumed).toEqual(['key-ref-2']);
    expect(gateway.state.prepared).toEqual(['ref-1', 'ref-2', 'ref-3', 'ref-4']);
    expect(await store.counts(batchId)).toMatchObject({ sent: 4, unknown: 0, sending: 0 });
    expect(gateway.state.recorded.sort()).toEqual(['key-ref-1', 'key-ref-3', 'key-ref-4']);
  });

  it('settles the items a crash left open, under their own keys, before it sends pending ones', async () => {
    const ledger = await testLedger();
    opened.push(ledger);
    const { store, batchId } = await runningBatch(ledger, 6);
    await leftByCrash(ledger, store, batchId, 2);
    const gateway = scriptedGateway(ledger);
    const runner = new BatchRunner({ transaction: ledger.repos.transaction, batches: store, history: new BatchHistory(ledger.repos.batchEvents, ledger.clock.now, (id) => store.counts(id)), payouts: gateway.payouts, attempts: gateway.attempts, log: silentLogger, changed: () => {}, ended: () => {}, sending: () => {}, concurrency: 4 });
    runner.run(batchId);

    await until(() => gateway.waiting.length === 4, 'the pending items in flight', 2_000, 5);
    expect(gateway.state.resumedBeforeFirstPrepare).toBe(2);
    expect(gateway.state.resumed).toEqual(['key-ref-1', 'key-ref-2']);
    gateway.releaseAll();
    await runner.settled();
    // Workers claim side by side (on PostgreSQL their transactions overlap): which prepared first is not fixed.
    expect([...gateway.state.prepared].sort()).toEqual(['ref-3', 'ref-4', 'ref-5', 'ref-6']);
    expect(await store.counts(batchId)).toMatchObject({ sent: 6, sending: 0, unknown: 0, pending: 0 });
  });

  it('sends each claimed item the moment its intent commits, while the session read beside it stalls', async () => {
    const ledger = await testLedger();
    opened.push(ledger);
    let unstall: () => void = () => undefined;
    const { store, batchId, gateway, runner } = await start(ledger, 6, 4, (g) => (g.state.stall = new Promise<void>((resolve) => (unstall = resolve))));

    // The first four intents committed, and every one of them on its way, though no session read after the first has returned.
    await until(() => gateway.waiting.length === 4, 'the first four requests', 2_000, 5);
    expect(gateway.state.sessions).toBeGreaterThan(1);
    expect(await store.counts(batchId)).toMatchObject({ sending: 4, pending: 2 });

    unstall();
    gateway.releaseAll();
    await until(() => gateway.waiting.length === 2, 'the last two requests', 2_000, 5);
    gateway.releaseAll();
    await runner.settled();
    expect(await store.counts(batchId)).toMatchObject({ sent: 6, sending: 0, pending: 0 });
  });

  it('forgets the next items claimed in a group commit that rolls back, and claims them again with the answers that can be recorded', async () => {
    const ledger = await testLedger();
    opened.push(ledger);
    const { store, batchId, gateway, runner } = await start(ledger, 8, 4);
    gateway.state.failRecord.add('ref-2');

    await until(() => gateway.waiting.length === 4, 'four requests', 2_000, 5);
    // ref-1's answer claims ref-5 in the group; ref-2's answer then fails it, so that claim was never made.
    gateway.releaseAll();
    await until(() => gateway.state.resumed.length === 1, 'ref-2 to be settled under its key', 2_000, 5);
    await until(() => gateway.waiting.length === 4, 'the next requests', 2_000, 5);
    expect(gateway.state.forgotten).toEqual(['key-ref-5']);
    expect(gateway.waiting.map((w) => w.reference).sort()).toEqual(['ref-5', 'ref-6', 'ref-7', 'ref-8']);
    gateway.releaseAll();
    await runner.settled();

    expect(gateway.state.forgotten).toEqual(['key-ref-5']);
    expect(gateway.state.resumed).toEqual(['key-ref-2']);
    expect(await store.counts(batchId)).toMatchObject({ sent: 8, sending: 0, unknown: 0, pending: 0 });
  });

  it('forgets the claims of an intent transaction that fails part-way, and sends none of them', async () => {
    const ledger = await testLedger();
    opened.push(ledger);
    const { store, batchId } = await runningBatch(ledger, 4);
    const gateway = scriptedGateway(ledger);
    const nextToClaim = store.nextToClaim.bind(store);
    let pendingReads = 0;
    vi.spyOn(store, 'nextToClaim').mockImplementation(async (...args: Parameters<BatchesRepository['nextToClaim']>) => {
      if (++pendingReads === 2) throw new Error('database disk image is malformed');
      return nextToClaim(...args);
    });
    const runner = new BatchRunner({ transaction: ledger.repos.transaction, batches: store, history: new BatchHistory(ledger.repos.batchEvents, ledger.clock.now, (id) => store.counts(id)), payouts: gateway.payouts, attempts: gateway.attempts, log: silentLogger, changed: () => {}, ended: () => {}, sending: () => {}, concurrency: 4 });
    runner.run(batchId);
    await runner.settled();

    expect(gateway.state.prepared).toEqual(['ref-1']);
    expect(gateway.state.forgotten).toEqual(['key-ref-1']);
    expect(gateway.state.maxInFlight).toBe(0);
    expect(await ledger.repos.attempts.byKey('key-ref-1')).toBeUndefined();
    expect(await store.counts(batchId)).toMatchObject({ pending: 4, sending: 0 });
  });

  it('after a pause, records the answers in flight and prepares nothing new', async () => {
    const ledger = await testLedger();
    opened.push(ledger);
    const { store, batchId, gateway, runner } = await start(ledger, 8, 4);

    await until(() => gateway.waiting.length === 4, 'four requests', 2_000, 5);
    await store.moveBatch(batchId, batchMove('running', 'paused'));
    gateway.releaseAll();
    await runner.settled();

    expect(gateway.state.prepared).toHaveLength(4);
    expect(await store.counts(batchId)).toMatchObject({ sent: 4, sending: 0, pending: 4 });
    expect((await store.batch(batchId))?.state).toBe('paused');
  });

  it('once another instance runs the batch (a resume there, a takeover), records the answers in flight, claims nothing more and leaves its end to that one', async () => {
    const { store, batchId, gateway } = await handedOverWithFourInFlight(8);
    expect(gateway.state.prepared).toEqual(['ref-1', 'ref-2', 'ref-3', 'ref-4']);
    expect(await store.counts(batchId)).toMatchObject({ sent: 4, sending: 0, pending: 4 });
    expect(await store.batch(batchId)).toMatchObject({ state: 'running', runBy: 'instance-b' });
  });

  it('taken over with nothing left pending, records its answers but leaves the end of the batch to the new runner', async () => {
    const { ledger, store, batchId } = await handedOverWithFourInFlight(4);
    expect(await store.counts(batchId)).toMatchObject({ sent: 4, sending: 0, pending: 0 });
    expect(await store.batch(batchId)).toMatchObject({ state: 'running', runBy: 'instance-b', finishedAt: null });
    expect((await ledger.repos.batchEvents.latest(batchId, 100)).map((e) => e.kind)).not.toContain('finished');
  });
});
