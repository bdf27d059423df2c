// 'attempts:progress-changed' from a real core: a create a person waits on pushes each try, each
// wait (with its cause) and its end, with the policy that bounds it, and nothing of the card or
// the credentials; 'attempts:progress' gives the latest report while it is in flight; a batch's
// items, followed by the batch's own counters, push none.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attemptProgressSchema, type AttemptProgressView, type ProfileView } from '../../../src/shared/contract';
import { uploadBatch, batchRows, getBatch } from '../batches/helpers';
import { startFaultProxy, type FaultProxy } from './fault-proxy';
import { admin, gatewayProfile, payinForm, payoutForm, startHarness, TEST_PAN, waitFor, type Harness } from './harness';

const TIMEOUT_MS = 800;
let h: Harness;
let proxy: FaultProxy;
let sandbox: ProfileView;
const pushes: unknown[] = [];
let unsubscribe: () => void;

beforeAll(async () => {
  h = await startHarness({ timeoutMs: TIMEOUT_MS });
  unsubscribe = h.core.events.subscribe((channel, payload) => {
    if (channel === 'attempts:progress-changed') pushes.push(payload);
  });
  proxy = await startFaultProxy(() => new URL(h.core.local.baseUrl).origin);
  sandbox = await gatewayProfile(h, 'Faulty gateway', 'sandbox', `${proxy.url}/api/`, h.core.local.merchant);
});

afterAll(async () => {
  unsubscribe?.();
  await h?.close();
  await proxy?.close();
});

/** Every push checked against the contract, those of one reference in order. */
const progressOf = (reference: string): AttemptProgressView[] => pushes.map((p) => attemptProgressSchema.parse(p)).filter((p) => p.reference === reference);
const steps = (list: AttemptProgressView[]) => list.map((p) => [p.phase, p.tryNumber, p.wait?.cause ?? p.outcome ?? null]);

describe('attempt progress pushes', () => {
  it('a card pay-in through a 503 and a 429: every try, both waits with their cause, the end — the policy in each, no card data', async () => {
    proxy.faults.push('status_503', 'status_429');
    const result = await h.call('payins:create', payinForm('credit_card', { requestId: 'progress-card-1', profileId: sandbox.id }));
    expect(result).toMatchObject({ outcome: 'succeeded', tries: 3 });

    const progress = progressOf('progress-card-1');
    expect(steps(progress)).toEqual([
      ['sending', 1, null],
      ['waiting', 1, 'backoff'],
      ['sending', 2, null],
      ['waiting', 2, 'retry_after'],
      ['sending', 3, null],
      ['finished', 3, 'succeeded'],
    ]);
    expect(progress.map((p) => p.lastAnswer)).toEqual([null, 'HTTP 503 TRANSIENT_ERROR', 'HTTP 503 TRANSIENT_ERROR', 'HTTP 429 rate limited (Retry-After 1 s)', 'HTTP 429 rate limited (Retry-After 1 s)', 'HTTP 200']);
    expect(progress.filter((p) => p.phase === 'waiting').map((p) => p.wait?.ms)).toEqual([50, 1_000]);
    for (const p of progress) {
      expect(p).toMatchObject({ idempotencyKey: result.attempt.idempotencyKey, profileId: sandbox.id, kind: 'payin', policy: { maxTries: 3, maxTotalMs: 5_000, tryTimeoutMs: TIMEOUT_MS } });
    }
    // The time since the first try grows, and the Retry-After wait is in it.
    const elapsed = progress.map((p) => p.elapsedMs);
    expect([...elapsed].sort((a, b) => a - b)).toEqual(elapsed);
    expect((elapsed.at(-1) ?? 0) - (elapsed[3] ?? 0)).toBeGreaterThanOrEqual(990);

    const text = JSON.stringify(progress);
    expect(text).not.toContain(TEST_PAN);
    expect(text).not.toContain('411111');
    expect(text).not.toMatch(/cardCvv|cardNum|merchant_jwt/);
    expect(text).not.toContain(h.core.local.merchant.merchant_token);
  });

  it('keeps the latest report of a send in flight for a screen that opens mid-send, and forgets it at the end', async () => {
    proxy.faults.push('hang_after');
    const query = { profileId: sandbox.id, kind: 'payin' as const, reference: 'progress-hang-1' };
    const sending = h.call('payins:create', payinForm('open_banking', { requestId: query.reference, profileId: sandbox.id }));
    const during = await waitFor(() => h.call('attempts:progress', query), (p) => p !== null, 'the first report');
    expect(during).toMatchObject({ phase: 'sending', tryNumber: 1, lastAnswer: null, reference: query.reference });
    // The try is stalled (it times out after 800 ms): asked again, the same report, its key the one the tries carry.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await h.call('attempts:progress', query)).toEqual(during);
    const result = await sending;
    expect(result).toMatchObject({ outcome: 'succeeded', tries: 2 });
    expect(during?.idempotencyKey).toBe(result.attempt.idempotencyKey);
    expect(progressOf(query.reference).map((p) => p.lastAnswer)).toEqual([null, 'timeout', 'timeout', 'HTTP 200']);
    expect(await h.call('attempts:progress', query)).toBeNull();
    expect(await h.call('attempts:progress', { ...query, kind: 'payout' })).toBeNull();
  });

  it('a payout that runs out of tries ends "unknown", saying it hit the tries bound', async () => {
    const local = (await h.call('profiles:list')).find((p) => p.environment === 'local') as ProfileView;
    await admin(h.core, '/faults', { api: { create_errors: 3 } }, 'PUT');
    const result = await h.call('payouts:create', payoutForm('fps', { reference: 'progress-payout-1', profileId: local.id }));
    expect(result).toMatchObject({ outcome: 'unknown', tries: 3 });
    const progress = progressOf('progress-payout-1');
    expect(progress.at(-1)).toMatchObject({ phase: 'finished', tryNumber: 3, outcome: 'unknown', stopReason: 'max_tries', kind: 'payout', lastAnswer: 'HTTP 500 SYSTEM_ERROR' });
    expect(progress.filter((p) => p.phase === 'sending').map((p) => p.tryNumber)).toEqual([1, 2, 3]);
  });

  it('a batch pushes no attempt progress: its items show in the batch counters', async () => {
    await admin(h.core, '/faults', undefined, 'DELETE');
    const rows = batchRows(3, { prefix: 'progress-batch' });
    const batch = await uploadBatch(h.core.dispatch, rows);
    await waitFor(() => getBatch(h.core.dispatch, batch.id), (b) => b.state === 'done', 'the batch to finish', 10_000);
    expect(rows.flatMap((r) => progressOf(String(r.form.merchantReference)))).toEqual([]);
  });
});
