// CSV payout batches through the contract, against the real embedded emulator: a batch of 50 to
// the end (each payout at the gateway exactly once, audited, progress pushed, final states from
// notifications), pause and resume, cancel, a core closed mid-batch and started again, rows the
// preview would have refused, card rows, and a sandbox profile.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { BatchView } from '../../../src/shared/contract';
import { BatchesRepository } from '../../../src/main/ledger/repositories/batches';
import { createRepositories } from '../../../src/main/ledger/repositories/index';
import { startHarness, waitFor, type Harness } from '../payments/harness';
import { batchRows, exactlyOnceProblems, gatewayPayoutsByReference, getBatch, uploadBatch } from './helpers';

let h: Harness;
let seq = 0;
const prefix = (name: string) => `${name}-${Date.now()}-${++seq}`;
const emulatorFile = () => path.join(h.dataDir, 'emulator.sqlite');
const audit = () => createRepositories(h.core.ledger).audit.list({ limit: 1000 });
const settled = (b: BatchView) => b.counts.pending + b.counts.sending === 0;
/** A batch's history as kind and actor. */
const course = (b: BatchView) => b.history.map((e) => `${e.kind}:${e.actor}`);

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.close();
});

describe('a CSV batch', () => {
  it('sends 50 payouts once each, pushes progress, audits the start and every payout, and follows them to P200', async () => {
    const pushes: BatchView[] = [];
    const stop = h.core.events.subscribe((channel, payload) => {
      if (channel === 'batches:batch-changed') pushes.push(payload as BatchView);
    });
    // The runner says which batch each payout it sends is of: its pushes need no look-up.
    const lookups = vi.spyOn(BatchesRepository.prototype, 'batchOfPayoutRow');
    const rows = batchRows(50, { prefix: prefix('fifty') });
    const started = await uploadBatch(h.core.dispatch, rows, { fileName: 'fifty.csv' });
    expect(started).toMatchObject({ state: 'running', total: 50, declaredRows: 50, fileName: 'fifty.csv', environment: 'local' });
    expect(started.totals.map((t) => t.currency)).toEqual(['EUR', 'GBP']);

    const done = await waitFor(() => getBatch(h.core.dispatch, started.id), (b) => b.state === 'done', 'the batch to finish', 20_000);
    expect(done.counts).toEqual({ pending: 0, sending: 0, sent: 50, refused: 0, unknown: 0, cancelled: 0 });
    expect(done.finishedAt).not.toBeNull();

    const references = rows.map((r) => String(r.form.merchantReference));
    expect(exactlyOnceProblems(gatewayPayoutsByReference(emulatorFile()), references)).toEqual([]);

    // The final state of each payout comes from its notification (confirmed by a status read).
    const final = await waitFor(() => getBatch(h.core.dispatch, started.id), (b) => b.outcomes.paid === 50, 'every payout to be paid', 20_000);
    expect(final.outcomes).toEqual({ paid: 50, failed: 0, processing: 0, awaitingVerification: 0 });
    const items = await h.call('batches:items', { id: started.id, limit: 500 });
    expect(items.items).toHaveLength(50);
    expect(items.items.every((i) => i.state === 'sent' && i.statusCode === 'P200' && i.final && i.idempotencyKey !== null)).toBe(true);
    expect(items.items.map((i) => i.destination).slice(0, 3)).toEqual(['DE•• … 3000', 'ethereum 0x5290…9EE7', '40-12-76 ••••5678']);

    expect(lookups).not.toHaveBeenCalled();
    lookups.mockRestore();

    // Progress was pushed while it ran, never going backwards, and ended on the finished state.
    stop();
    const mine = pushes.filter((p) => p.id === started.id);
    expect(mine.length).toBeGreaterThan(2);
    const sentSeen = mine.map((p) => p.counts.sent);
    expect(sentSeen).toEqual([...sentSeen].sort((a, b) => a - b));
    expect(mine.some((p) => p.state === 'done')).toBe(true);

    const entries = await audit();
    expect(entries.filter((e) => e.action === 'batch.start' && e.subject === `batch:${started.id}`)).toHaveLength(1);
    const creates = entries.filter((e) => e.action === 'payout.create' && references.includes(e.subject ?? ''));
    expect(creates).toHaveLength(50);
    expect(JSON.parse(creates[0]?.details ?? '{}')).toMatchObject({ batchId: started.id, environment: 'local' });
  });

  it('pauses (nothing new is prepared while paused) and resumes to the end', async () => {
    const rows = batchRows(40, { prefix: prefix('pause') });
    const started = await uploadBatch(h.core.dispatch, rows);
    const paused = await h.call('batches:pause', { id: started.id });
    expect(paused.state).toBe('paused');
    // Items already in flight finish; then the count stays put.
    const quiet = await waitFor(() => getBatch(h.core.dispatch, started.id), (b) => b.counts.sending === 0, 'in-flight items to finish');
    expect(quiet.counts.pending).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const later = await getBatch(h.core.dispatch, started.id);
    expect(later.counts).toEqual(quiet.counts);
    expect(later.state).toBe('paused');

    const resumed = await h.call('batches:resume', { id: started.id });
    expect(resumed.state).toBe('running');
    const done = await waitFor(() => getBatch(h.core.dispatch, started.id), (b) => b.state === 'done', 'the resumed batch to finish', 20_000);
    expect(done.counts.sent).toBe(40);
    expect(exactlyOnceProblems(gatewayPayoutsByReference(emulatorFile()), rows.map((r) => String(r.form.merchantReference)))).toEqual([]);
    expect((await audit()).filter((e) => e.subject === `batch:${started.id}`).map((e) => e.action)).toEqual(['batch.resume', 'batch.pause', 'batch.start']);
    // The history says the same, and who: a person paused and resumed it; it finished by itself.
    expect(course(done)).toEqual(['started:user', 'paused:user', 'resumed:user', 'finished:system']);
    expect(done.history[2]).toMatchObject({ cause: null, stoppedAt: null, note: null, items: { pending: quiet.counts.pending, inFlight: 0, unknown: 0 } });
    expect(done.history.at(-1)?.items).toEqual({ pending: 0, inFlight: 0, unknown: 0 });
    expect(done.historyTotal).toBe(4);
  });

  it('cancels: pending items are never sent, items already sent are followed', async () => {
    const rows = batchRows(40, { prefix: prefix('cancel') });
    const started = await uploadBatch(h.core.dispatch, rows);
    const cancelled = await h.call('batches:cancel', { id: started.id });
    expect(cancelled.state).toBe('cancelled');
    const end = await waitFor(() => getBatch(h.core.dispatch, started.id), settled, 'in-flight items to settle');
    expect(end.counts.cancelled).toBeGreaterThan(0);
    expect(end.counts.sent + end.counts.cancelled).toBe(40);
    const held = gatewayPayoutsByReference(emulatorFile());
    const items = (await h.call('batches:items', { id: started.id, limit: 500 })).items;
    for (const item of items) expect(held.get(item.merchantReference) ?? 0, `${item.merchantReference} (${item.state})`).toBe(item.state === 'sent' ? 1 : 0);
    await expect(h.failure('batches:start', { id: started.id })).resolves.toMatchObject({ code: 'conflict' });
    expect(course(end)).toEqual(['started:user', 'cancelled:user']);
    expect(end.history[1]?.note).toBe(`${end.counts.cancelled} not sent yet, never to be sent`);
  });

  it('survives the core being closed mid-batch: the next start resumes it and sends nothing twice', async () => {
    const rows = batchRows(50, { prefix: prefix('closed') });
    const started = await uploadBatch(h.core.dispatch, rows);
    await h.restart();
    const done = await waitFor(() => getBatch(h.core.dispatch, started.id), (b) => b.state === 'done', 'the batch to finish after the restart', 20_000);
    expect(done.counts.sent).toBe(50);
    expect(exactlyOnceProblems(gatewayPayoutsByReference(emulatorFile()), rows.map((r) => String(r.form.merchantReference)))).toEqual([]);
    expect((await audit()).some((e) => e.action === 'batch.resume' && e.actor === 'system' && e.subject === `batch:${started.id}`)).toBe(true);
    // Its history: the app was closed on it (recorded then, with what was left), and Paydesk resumed it at the next start.
    expect(course(done)).toEqual(['started:user', 'interrupted:system', 'resumed:system', 'finished:system']);
    const [, interrupted, resumed] = done.history;
    expect(interrupted).toMatchObject({ cause: 'closed', note: null });
    expect(interrupted?.stoppedAt).toBe(interrupted?.at);
    expect((interrupted?.items?.pending ?? 0) + (interrupted?.items?.inFlight ?? 0)).toBeGreaterThan(0);
    expect(resumed?.items).toEqual(interrupted?.items);
    expect(resumed?.at && interrupted?.at && resumed.at >= interrupted.at).toBe(true);
  });
});

describe('what a batch refuses', () => {
  it('refuses rows the shared validator refuses, naming items.<line>.<field>, and stores none of the chunk', async () => {
    const draft = await h.call('batches:create', { fileName: 'bad.csv', rows: 3 });
    const [good, badIban, badAmount] = batchRows(3, { prefix: prefix('bad'), currency: 'EUR' });
    const refused = await h.failure('batches:add-items', {
      id: draft.id,
      items: [good, { ...badIban, form: { ...badIban?.form, paymentDetails: { iban: '', bic: 'COBADEFFXXX', accountHolder: 'Ana' } } }, { ...badAmount, form: { ...badAmount?.form, amount: '10.123' } }],
    });
    expect(refused.code).toBe('invalid_input');
    expect(refused.fields).toMatchObject({ 'items.3.paymentDetails.iban': 'is required', 'items.4.amount': expect.stringContaining('at most 2 decimals') });
    expect((await h.call('batches:get', { id: draft.id })).total).toBe(0);
    await expect(h.failure('batches:start', { id: draft.id })).resolves.toMatchObject({ code: 'conflict', message: expect.stringContaining('holds 0 of its 3 rows') });
    expect(await h.call('batches:discard', { id: draft.id })).toEqual({ discarded: true });
  });

  it('refuses card rows: card numbers are never stored, and a batch is', async () => {
    const draft = await h.call('batches:create', { fileName: 'cards.csv', rows: 1 });
    const refused = await h.failure('batches:add-items', {
      id: draft.id,
      items: [{ line: 2, form: { method: 'credit_card', amount: '10.00', currency: 'EUR', country: 'DEU', customer: { firstName: 'A', lastName: 'B', email: 'a@example.com' }, paymentDetails: { cardNum: '4111111111111111', cardHolder: 'A B', cardExpireMonth: '12', cardExpireYear: '2040' } } }],
    });
    expect(refused.fields?.['items.2.method']).toContain('card numbers are never stored');
    const { cellsContaining } = await import('../payments/harness');
    expect(await cellsContaining(h.core.ledger, '4111111111111111')).toEqual([]);
    await h.call('batches:discard', { id: draft.id });
  });

  it('is refused for a sandbox profile (spec 4, rule 3)', async () => {
    const sandbox = await h.call('profiles:create', { name: `Sandbox ${seq}`, environment: 'sandbox', baseUrl: 'https://sandbox.example.com/api/', merchantId: 'm', merchantSiteId: 's' });
    const refused = await h.failure('batches:create', { profileId: sandbox.id, fileName: 'x.csv', rows: 1 });
    expect(refused).toMatchObject({ code: 'unavailable', message: expect.stringContaining('sandbox') });
    await h.call('profiles:delete', { id: sandbox.id });
  });
});
