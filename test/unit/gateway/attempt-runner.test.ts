// The runner's rules with a scripted transport and a fake clock: what is stored when, which
// failures are retried with the same key and bytes, and how unknown attempts are settled.
import { describe, expect, it, vi } from 'vitest';
import { nextStep } from '../../../src/main/gateway/advice';
import { AttemptRunner, type AttemptProgress } from '../../../src/main/gateway/attempt-runner';
import type { CreateTransport } from '../../../src/main/gateway/client';
import type { CreateEndpoint } from '../../../src/main/gateway/endpoints';
import { MemoryAttemptStore } from '../../../src/main/gateway/memory-attempt-store';
import type { CallResult } from '../../../src/main/gateway/result';
import { TEST_CARD, payinBody, payoutBody } from '../../helpers/fixtures';

const m = { merchant_id: 'mer_1', merchant_site_id: 'site_1' };
type Step = CallResult<Record<string, unknown>>;
const ok = (body: Record<string, unknown> = { status: 'success', status_code: 100, payin_id: 'p-1' }): Step => ({ kind: 'ok', status: 200, body, raw: JSON.stringify(body) });
const rejected = (status: number, body: Record<string, unknown>): Step => ({ kind: 'rejected', status, body, raw: JSON.stringify(body) });
const serverError: Step = { kind: 'server_error', status: 500, body: {}, raw: '' };
const timeout: Step = { kind: 'timeout' };

function harness(script: Step[], statusScript: Step[] = [], policy = {}) {
  const store = new MemoryAttemptStore();
  const sent: { endpoint: CreateEndpoint; body: string; key: string; stateAtSend: string | undefined }[] = [];
  const statusReads: unknown[] = [];
  let now = 1_000_000;
  const sleeps: number[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const transport: CreateTransport = {
    async sendCreate(endpoint, body, key) {
      sent.push({ endpoint, body, key, stateAtSend: (await store.get(key))?.state });
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((r) => setTimeout(r, 5));
      inFlight--;
      return (script.shift() ?? ok()) as never;
    },
    async payinStatus(request) {
      statusReads.push(request);
      return (statusReads.length <= statusScript.length ? statusScript[statusReads.length - 1] : ok({ payin_id: 'p-1', status_code: 101 })) as never;
    },
    async payoutStatus(request) {
      statusReads.push(request);
      return (statusReads.length <= statusScript.length ? statusScript[statusReads.length - 1] : ok({ payout_id: 'po-1', status_code: 'P101' })) as never;
    },
  };
  let n = 0;
  const events: AttemptProgress[] = [];
  const runner = new AttemptRunner({
    transport,
    store,
    clock: { now: () => now },
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
    ids: { uuid: () => `key-${++n}` },
    policy: { maxTries: 4, maxTotalMs: 60_000, baseDelayMs: 100, factor: 2, maxDelayMs: 1_000, ...policy },
  });
  const progress = { onProgress: (p: AttemptProgress) => events.push(p) };
  return { store, sent, statusReads, sleeps, runner, events, progress, maxInFlight: () => maxInFlight, advance: (ms: number) => (now += ms) };
}

describe('AttemptRunner.start', () => {
  it('records the key and sanitized body before the request leaves, then stores the answer', async () => {
    const h = harness([ok()]);
    const outcome = await h.runner.start('payin_create', payinBody(m, 'credit_card', 'r1'));
    expect(outcome).toMatchObject({ state: 'succeeded', key: 'key-1', tries: 1, httpStatus: 200, source: 'create' });
    expect(h.sent[0]).toMatchObject({ key: 'key-1', stateAtSend: 'sending' });
    const stored = await h.store.get('key-1');
    expect(stored).toMatchObject({ state: 'succeeded', endpoint: 'payin_create', reference: 'r1', replayable: false });
    expect(stored?.sanitizedBody).not.toContain(TEST_CARD.number);
    expect(stored?.response).toEqual({ httpStatus: 200, body: JSON.stringify({ status: 'success', status_code: 100, payin_id: 'p-1' }), source: 'create' });
  });

  it('retries timeouts and 5xx with the same key and the same bytes, on the backoff schedule', async () => {
    const h = harness([timeout, serverError, { kind: 'network_error', message: 'reset', connectFailed: false }, ok()]);
    const outcome = await h.runner.start('payin_create', payinBody(m, 'credit_card', 'r1'));
    expect(outcome).toMatchObject({ state: 'succeeded', tries: 4 });
    expect(new Set(h.sent.map((s) => s.key))).toEqual(new Set(['key-1']));
    expect(new Set(h.sent.map((s) => s.body)).size).toBe(1);
    expect(h.sent[0]?.body).toContain(TEST_CARD.number);
    expect(h.sleeps).toEqual([100, 200, 400]);
  });

  it('honours Retry-After on 429', async () => {
    const h = harness([{ kind: 'rate_limited', status: 429, retryAfterSeconds: 2, body: {}, raw: '' }, ok()]);
    await h.runner.start('payout_create', payoutBody(m, 'fps', 'p1'));
    expect(h.sleeps).toEqual([2_000]);
  });

  it.each([400, 401, 404, 409, 413, 422])('never retries a %i', async (status) => {
    const h = harness([rejected(status, { status: 'error', reason_code: 'INVALID_PARAMS' }), ok()]);
    const outcome = await h.runner.start('payin_create', payinBody(m, 'blik', 'r1'));
    expect(outcome).toMatchObject({ state: 'rejected', tries: 1, httpStatus: status, body: { reason_code: 'INVALID_PARAMS' } });
    expect(h.sent).toHaveLength(1);
    expect((await h.store.get('key-1'))?.state).toBe('rejected');
  });

  it('ends unknown, never failed, when the tries run out', async () => {
    const h = harness([timeout, timeout, timeout, timeout, ok()]);
    const outcome = await h.runner.start('payin_create', payinBody(m, 'blik', 'r1'));
    expect(outcome).toMatchObject({ state: 'unknown', tries: 4 });
    expect(h.sent).toHaveLength(4);
    expect(await h.store.get('key-1')).toMatchObject({ state: 'unknown', response: null });
    expect((await h.store.get('key-1'))?.unknownReason).toMatch(/timeout; no further try \(max_tries\) after 4 tries/);
    expect(nextStep(outcome).action).toBe('resolve_unknown');
  });

  it('stops at the total time budget', async () => {
    const h = harness([serverError, serverError, serverError], [], { maxTotalMs: 250 });
    const outcome = await h.runner.start('payin_create', payinBody(m, 'blik', 'r1'));
    expect(outcome).toMatchObject({ state: 'unknown', tries: 2 });
    expect(h.sleeps).toEqual([100]);
  });

  it('does not retry an unreadable answer; its outcome is unknown', async () => {
    const h = harness([{ kind: 'unexpected_response', status: 200, message: 'not JSON' }]);
    expect(await h.runner.start('payin_create', payinBody(m, 'blik', 'r1'))).toMatchObject({ state: 'unknown', tries: 1 });
  });

  it('refuses an amount that is not decimal text before anything is recorded or sent', async () => {
    const h = harness([]);
    await expect(h.runner.start('payin_create', payinBody(m, 'blik', 'r1', { amount: '1e3' }))).rejects.toThrow(TypeError);
    await expect(h.runner.prepare('payin_create', { ...payinBody(m, 'blik', 'r1'), amount: 10.5 as unknown as string })).rejects.toThrow(TypeError);
    expect(await h.store.listByState('prepared')).toEqual([]);
    expect(h.sent).toEqual([]);
  });

  it('gives each attempt its own key', async () => {
    const h = harness([]);
    await h.runner.start('payin_create', payinBody(m, 'blik', 'r1'));
    await h.runner.start('payin_create', payinBody(m, 'blik', 'r2'));
    expect(h.sent.map((s) => s.key)).toEqual(['key-1', 'key-2']);
  });
});

describe('AttemptRunner progress', () => {
  const rateLimited = (seconds: number): Step => ({ kind: 'rate_limited', status: 429, retryAfterSeconds: seconds, body: {}, raw: '' });
  const steps = (events: AttemptProgress[]) => events.map((e) => [e.phase, e.tryNumber, e.lastAnswer, e.wait?.cause ?? e.outcome ?? null]);

  it('reports each try, each wait with its cause and length, and the end, without bodies', async () => {
    const h = harness([timeout, rateLimited(3), { kind: 'server_error', status: 503, body: {}, raw: '' }, ok()]);
    await h.runner.start('payin_create', payinBody(m, 'credit_card', 'r1'), h.progress);
    expect(steps(h.events)).toEqual([
      ['sending', 1, null, null],
      ['waiting', 1, 'timeout', 'backoff'],
      ['sending', 2, 'timeout', null],
      ['waiting', 2, 'HTTP 429 rate limited (Retry-After 3 s)', 'retry_after'],
      ['sending', 3, 'HTTP 429 rate limited (Retry-After 3 s)', null],
      ['waiting', 3, 'HTTP 503', 'backoff'],
      ['sending', 4, 'HTTP 503', null],
      ['finished', 4, 'HTTP 200', 'succeeded'],
    ]);
    // The waits are the ones the runner then sleeps: backoff 100, Retry-After 3 s over backoff 200, backoff 400.
    expect(h.events.filter((e) => e.phase === 'waiting').map((e) => e.wait?.ms)).toEqual([100, 3_000, 400]);
    expect(h.sleeps).toEqual([100, 3_000, 400]);
    expect(new Set(h.events.map((e) => e.key))).toEqual(new Set(['key-1']));
    expect(h.events.every((e) => e.reference === 'r1' && e.endpoint === 'payin_create')).toBe(true);
    expect(h.events[0]?.policy).toEqual({ maxTries: 4, maxTotalMs: 60_000 });
    expect(JSON.stringify(h.events)).not.toContain(TEST_CARD.number);
  });

  it('counts elapsed time from the first try, on the runner clock', async () => {
    const h = harness([timeout, ok()]);
    await h.runner.start('payin_create', payinBody(m, 'blik', 'r1'), h.progress);
    const startedAt = h.events[0]?.startedAt ?? NaN;
    expect(h.events.every((e) => e.startedAt === startedAt)).toBe(true);
    expect(h.events.map((e) => e.at - startedAt)).toEqual([0, 0, 100, 100]);
  });

  it('ends "unknown" saying why no further try was made: tries spent, time budget, or an unreadable answer', async () => {
    const tries = harness([timeout, timeout, timeout, timeout]);
    await tries.runner.start('payin_create', payinBody(m, 'blik', 'r1'), tries.progress);
    expect(tries.events.at(-1)).toMatchObject({ phase: 'finished', tryNumber: 4, outcome: 'unknown', stopReason: 'max_tries', lastAnswer: 'timeout' });

    // A Retry-After that does not fit the time budget is not shortened: the send stops.
    const budget = harness([rateLimited(90)]);
    await budget.runner.start('payout_create', payoutBody(m, 'fps', 'p1'), budget.progress);
    expect(budget.events.at(-1)).toMatchObject({ phase: 'finished', tryNumber: 1, outcome: 'unknown', stopReason: 'max_total_time' });
    expect(budget.sleeps).toEqual([]);

    const unreadable = harness([{ kind: 'unexpected_response', status: 200, message: 'not JSON' }]);
    await unreadable.runner.start('payin_create', payinBody(m, 'blik', 'r1'), unreadable.progress);
    expect(unreadable.events.at(-1)).toMatchObject({ outcome: 'unknown', stopReason: 'not_retryable' });
  });

  it('reports a refusal as the end, with no wait before it', async () => {
    const h = harness([rejected(400, { status: 'error', reason_code: 'INVALID_PARAMS' })]);
    await h.runner.start('payin_create', payinBody(m, 'blik', 'r1'), h.progress);
    expect(steps(h.events)).toEqual([
      ['sending', 1, null, null],
      ['finished', 1, 'HTTP 400 INVALID_PARAMS', 'rejected'],
    ]);
  });

  it('reports the sends of a claim and of a resume too, and only to the send that asked', async () => {
    const h = harness([serverError, ok(), ok()]);
    const key = await h.runner.claim('payout_create', payoutBody(m, 'fps', 'p1'));
    const other = await h.runner.claim('payout_create', payoutBody(m, 'fps', 'p2'));
    const [claimed] = await Promise.all([h.runner.sendClaimed(key, h.progress), h.runner.sendClaimed(other)]);
    await claimed.record();
    expect(h.events.map((e) => e.key)).toEqual([key, key, key, key]);
    expect(steps(h.events).at(-1)).toEqual(['finished', 2, 'HTTP 200', 'succeeded']);

    const resumed = harness([timeout, timeout, timeout, timeout, ok()]);
    const first = await resumed.runner.start('payin_create', payinBody(m, 'blik', 'r1'));
    expect(first.state).toBe('unknown');
    await resumed.runner.resume(first.key, resumed.progress);
    expect(steps(resumed.events)).toEqual([
      ['sending', 1, null, null],
      ['finished', 1, 'HTTP 200', 'succeeded'],
    ]);
  });

  it('a throwing progress listener does not change the outcome', async () => {
    const h = harness([timeout, ok()]);
    const outcome = await h.runner.start('payin_create', payinBody(m, 'blik', 'r1'), {
      onProgress: () => {
        throw new Error('listener bug');
      },
    });
    expect(outcome).toMatchObject({ state: 'succeeded', tries: 2 });
    expect((await h.store.get('key-1'))?.state).toBe('succeeded');
  });
});

describe('AttemptRunner.resume', () => {
  it('returns a settled attempt as stored without sending', async () => {
    const h = harness([ok()]);
    await h.runner.start('payin_create', payinBody(m, 'blik', 'r1'));
    const again = await h.runner.resume('key-1');
    expect(again).toMatchObject({ state: 'succeeded', tries: 0, body: { payin_id: 'p-1' } });
    expect(h.sent).toHaveLength(1);
  });

  it('re-sends an unknown attempt with the same key and bytes', async () => {
    const h = harness([timeout, timeout, timeout, timeout, ok()]);
    await h.runner.start('payin_create', payinBody(m, 'credit_card', 'r1'));
    expect(await h.runner.resume('key-1')).toMatchObject({ state: 'succeeded', tries: 1 });
    expect(new Set(h.sent.map((s) => `${s.key}|${s.body}`)).size).toBe(1);
  });

  it('after a crash: an attempt left "sending" becomes unknown and is re-sent from the stored body', async () => {
    const before = harness([]);
    const key = await before.runner.prepare('payin_create', payinBody(m, 'crypto', 'r1'));
    await before.store.markSending(key);
    const expectedBytes = (await before.store.get(key))?.sanitizedBody;

    // A new runner over the same store is the app after a restart: no bodies in memory.
    const after = harness([ok()]);
    const runner = new AttemptRunner({ transport: { sendCreate: (...a) => (after.sent.push({ endpoint: a[0], body: a[1], key: a[2], stateAtSend: 'x' }), Promise.resolve(ok() as never)), payinStatus: () => Promise.reject(new Error('unused')), payoutStatus: () => Promise.reject(new Error('unused')) }, store: before.store, clock: { now: () => 0 }, sleep: async () => undefined, ids: { uuid: () => 'never' } });
    expect(await runner.resume(key)).toMatchObject({ state: 'busy' });
    expect(await runner.recoverInterrupted()).toEqual([key]);
    expect(await before.store.get(key)).toMatchObject({ state: 'unknown', unknownReason: expect.stringMatching(/interrupted/) });
    expect(await runner.resume(key)).toMatchObject({ state: 'succeeded' });
    expect(after.sent).toEqual([{ endpoint: 'payin_create', body: expectedBytes, key, stateAtSend: 'x' }]);
  });

  it('after a crash: a card attempt needs its body again, which must match the stored hash', async () => {
    const first = harness([timeout, timeout, timeout, timeout]);
    const body = payinBody(m, 'credit_card', 'r1');
    await first.runner.start('payin_create', body);
    const sent: string[] = [];
    const restarted = new AttemptRunner({ transport: { sendCreate: async (_e, b) => (sent.push(b), ok() as never), payinStatus: () => Promise.reject(new Error('unused')), payoutStatus: () => Promise.reject(new Error('unused')) }, store: first.store, clock: { now: () => 0 }, sleep: async () => undefined, ids: { uuid: () => 'never' } });
    expect(await restarted.resume('key-1')).toMatchObject({ state: 'needs_body', why: 'missing' });
    expect(await restarted.resume('key-1', { body: { ...body, amount: '10.51' } })).toMatchObject({ state: 'needs_body', why: 'mismatch' });
    expect(sent).toEqual([]);
    expect(await restarted.resume('key-1', { body })).toMatchObject({ state: 'succeeded' });
    expect(sent).toEqual([first.sent[0]?.body]);
  });

  it('refuses a replayable stored body whose hash no longer matches', async () => {
    const h = harness([]);
    const key = await h.runner.prepare('payin_create', payinBody(m, 'crypto', 'r1'));
    const record = await h.store.get(key);
    const store = new MemoryAttemptStore();
    await store.prepare(key, record!.requestHash, record!.sanitizedBody.replace('0.1234567891', '9.1234567891'), { endpoint: 'payin_create', reference: 'r1', replayable: true });
    const runner = new AttemptRunner({ transport: { sendCreate: () => Promise.reject(new Error('must not send')), payinStatus: () => Promise.reject(new Error('unused')), payoutStatus: () => Promise.reject(new Error('unused')) }, store, clock: { now: () => 0 }, sleep: async () => undefined, ids: { uuid: () => 'x' } });
    expect(await runner.resume(key)).toMatchObject({ state: 'needs_body', why: 'mismatch' });
  });

  it('never runs two sends of one attempt at once', async () => {
    const h = harness([timeout, timeout, timeout, timeout, timeout, ok(), ok()], [], { maxTries: 1 });
    const key = await h.runner.prepare('payin_create', payinBody(m, 'blik', 'r1'));
    const results = await Promise.all([h.runner.resume(key), h.runner.resume(key), h.runner.resume(key)]);
    expect(h.maxInFlight()).toBe(1);
    expect(results.map((r) => r.state)).toEqual(['unknown', 'unknown', 'unknown']);
    expect(new Set(h.sent.map((s) => s.key))).toEqual(new Set([key]));
  });

  it('a second sender over the same store sees "busy" while the first is in flight', async () => {
    const store = new MemoryAttemptStore();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    let sends = 0;
    const transport: CreateTransport = { sendCreate: async () => (sends++, await gate, ok() as never), payinStatus: () => Promise.reject(new Error('unused')), payoutStatus: () => Promise.reject(new Error('unused')) };
    const deps = { transport, store, clock: { now: () => 0 }, sleep: async () => undefined, ids: { uuid: () => 'k' } };
    const a = new AttemptRunner(deps);
    const b = new AttemptRunner(deps);
    const key = await a.prepare('payin_create', payinBody(m, 'crypto', 'r1'));
    const first = a.resume(key);
    await new Promise((r) => setTimeout(r, 5));
    expect(await b.resume(key)).toMatchObject({ state: 'busy' });
    release();
    expect(await first).toMatchObject({ state: 'succeeded' });
    expect(sends).toBe(1);
  });
});

describe('AttemptRunner.claim and sendClaimed (intent committed in the caller transaction, answer recorded by the caller)', () => {
  it('records the attempt already "sending" with its first try counted, before any request', async () => {
    const h = harness([ok({ payout_id: 'po-1', status_code: 'P100' })]);
    const key = await h.runner.claim('payout_create', payoutBody(m, 'fps', 'ref-1'));
    expect(await h.store.get(key)).toMatchObject({ state: 'sending', endpoint: 'payout_create', reference: 'ref-1', replayable: true, response: null });
    expect(h.sent).toEqual([]);
    await h.runner.sendClaimed(key);
    expect(h.sent).toEqual([expect.objectContaining({ key, stateAtSend: 'sending' })]);
  });

  it('returns the answer unrecorded: the store says "sending" until the caller runs record()', async () => {
    const h = harness([ok({ payout_id: 'po-1', status_code: 'P100' })]);
    const key = await h.runner.claim('payout_create', payoutBody(m, 'fps', 'ref-1'));
    const sent = await h.runner.sendClaimed(key);
    expect(sent.outcome).toMatchObject({ state: 'succeeded', key, tries: 1, source: 'create', body: { payout_id: 'po-1' } });
    expect((await h.store.get(key))?.state).toBe('sending');
    // Meanwhile nobody else sends it: a resume sees it in flight.
    expect(await h.runner.resume(key)).toMatchObject({ state: 'busy' });
    await sent.record();
    expect(await h.store.get(key)).toMatchObject({ state: 'succeeded', response: { httpStatus: 200, source: 'create' } });
    expect(h.sent).toHaveLength(1);
  });

  it('retries transient failures with the same key and bytes, and leaves a refusal or an exhausted attempt for the caller to record', async () => {
    const refused = harness([serverError, rejected(400, { status: 'failed', reason_code: 'INVALID_PARAMS' })]);
    const r = await refused.runner.claim('payout_create', payoutBody(m, 'fps', 'ref-1'));
    const refusal = await refused.runner.sendClaimed(r);
    expect(refusal.outcome).toMatchObject({ state: 'rejected', tries: 2, httpStatus: 400 });
    expect(new Set(refused.sent.map((s) => `${s.key}|${s.body}`)).size).toBe(1);
    await refusal.record();
    expect((await refused.store.get(r))?.state).toBe('rejected');

    const exhausted = harness([timeout, timeout, timeout, timeout]);
    const u = await exhausted.runner.claim('payout_create', payoutBody(m, 'crypto', 'ref-2'));
    const unknown = await exhausted.runner.sendClaimed(u);
    expect(unknown.outcome).toMatchObject({ state: 'unknown', tries: 4 });
    expect((await exhausted.store.get(u))?.state).toBe('sending');
    await unknown.record();
    expect(await exhausted.store.get(u)).toMatchObject({ state: 'unknown', unknownReason: expect.stringMatching(/after 4 tries/) });
    // Still in memory: a same-key resume sends the very same bytes.
    expect(await exhausted.runner.resume(u)).toMatchObject({ state: 'succeeded' });
    expect(new Set(exhausted.sent.map((s) => `${s.key}|${s.body}`)).size).toBe(1);
  });

  it('abandon() makes an answer that could not be recorded unknown, so a resume settles it under its key', async () => {
    const h = harness([ok({ payout_id: 'po-1', status_code: 'P100' }), ok({ payout_id: 'po-1', status_code: 'P100' })]);
    const key = await h.runner.claim('payout_create', payoutBody(m, 'fps', 'ref-1'));
    const sent = await h.runner.sendClaimed(key);
    await sent.abandon('the ledger refused the write');
    expect(await h.store.get(key)).toMatchObject({ state: 'unknown', unknownReason: 'the ledger refused the write' });
    expect(await h.runner.resume(key)).toMatchObject({ state: 'succeeded' });
    expect((await h.store.get(key))?.state).toBe('succeeded');
    expect(new Set(h.sent.map((s) => s.key))).toEqual(new Set([key]));
  });

  it('sends a claim once: a second sendClaimed, or one for a key it never claimed, is refused without a request', async () => {
    const h = harness([ok({ payout_id: 'po-1', status_code: 'P100' })]);
    const key = await h.runner.claim('payout_create', payoutBody(m, 'fps', 'ref-1'));
    const prepared = await h.runner.prepare('payout_create', payoutBody(m, 'fps', 'ref-2'));
    await (await h.runner.sendClaimed(key)).record();
    await expect(h.runner.sendClaimed(key)).rejects.toThrow(/not claimed by this runner, or was sent already/);
    await expect(h.runner.sendClaimed(prepared)).rejects.toThrow(/not claimed/);
    expect(h.sent).toHaveLength(1);
  });

  it('forget(), after the transaction of a claim rolled back, drops its card bytes and the claim: it is never sent', async () => {
    const h = harness([ok({ payout_id: 'po-1', status_code: 'P100' })]);
    const key = await h.runner.claim('payout_create', payoutBody(m, 'credit_card', 'ref-1'));
    expect(h.runner.holds(key)).toBe(true);
    h.runner.forget(key);
    expect(h.runner.holds(key)).toBe(false);
    await expect(h.runner.sendClaimed(key)).rejects.toThrow(/not claimed by this runner/);
    expect(h.sent).toEqual([]);
  });

  it('forget() leaves alone a claim already handed to sendClaimed, and an attempt that is not a claim', async () => {
    const h = harness([timeout, ok({ payout_id: 'po-1', status_code: 'P100' })]);
    const key = await h.runner.claim('payout_create', payoutBody(m, 'credit_card', 'ref-1'));
    const sending = h.runner.sendClaimed(key);
    h.runner.forget(key);
    // The retry after the timeout still has the exact bytes.
    expect((await sending).outcome).toMatchObject({ state: 'succeeded', tries: 2 });
    expect(h.sent.map((s) => s.key)).toEqual([key, key]);
    expect(new Set(h.sent.map((s) => s.body)).size).toBe(1);
    expect(h.sent[0]?.body).toContain(TEST_CARD.number);

    const prepared = await h.runner.prepare('payout_create', payoutBody(m, 'credit_card', 'ref-2'));
    h.runner.forget(prepared);
    expect(h.runner.holds(prepared)).toBe(true);
  });

  it('a claim that fails before its request leaves is recorded unknown as never sent, sends nothing and keeps nothing in memory', async () => {
    const h = harness([ok({ payout_id: 'po-1', status_code: 'P100' })]);
    const key = await h.runner.claim('payout_create', payoutBody(m, 'credit_card', 'ref-1'));
    vi.spyOn(h.store, 'get').mockRejectedValueOnce(new Error('disk I/O error'));
    const unsent = vi.spyOn(h.store, 'markUnsent');
    await expect(h.runner.sendClaimed(key)).rejects.toThrow('disk I/O error');
    expect(h.sent).toEqual([]);
    expect(unsent).toHaveBeenCalledWith(key, 'not sent: disk I/O error');
    expect(await h.store.get(key)).toMatchObject({ state: 'unknown', unknownReason: 'not sent: disk I/O error' });
    expect(h.runner.holds(key)).toBe(false);
    // Not busy until a restart: a resume settles it under its key (the card number, never stored, is asked for again).
    expect(await h.runner.resume(key)).toMatchObject({ state: 'needs_body', why: 'missing' });
    expect(await h.runner.resume(key, { body: payoutBody(m, 'credit_card', 'ref-1') })).toMatchObject({ state: 'succeeded', tries: 1 });
    expect(h.sent.map((s) => s.key)).toEqual([key]);
  });

  it('at start-up, a claim left "sending" by a crash becomes unknown like any interrupted send', async () => {
    const before = harness([]);
    const key = await before.runner.claim('payout_create', payoutBody(m, 'fps', 'ref-1'));
    // The app dies before sending: a new runner over the same store is the app after a restart.
    const restarted = new AttemptRunner({ transport: { sendCreate: () => Promise.reject(new Error('unused')), payinStatus: () => Promise.reject(new Error('unused')), payoutStatus: () => Promise.reject(new Error('unused')) }, store: before.store, clock: { now: () => 0 }, sleep: async () => undefined, ids: { uuid: () => 'x' } });
    expect(await restarted.recoverInterrupted()).toEqual([key]);
    expect((await before.store.get(key))?.state).toBe('unknown');
  });
});

describe('AttemptRunner.resolveByStatus', () => {
  it('a status read that finds the pay-in settles the attempt as succeeded', async () => {
    const h = harness([timeout, timeout, timeout, timeout]);
    await h.runner.start('payin_create', payinBody(m, 'blik', 'r1'));
    const outcome = await h.runner.resolveByStatus('key-1');
    expect(h.statusReads).toEqual([{ merchant_id: 'mer_1', request_id: 'r1' }]);
    expect(outcome).toMatchObject({ state: 'succeeded', source: 'status_read', body: { payin_id: 'p-1' } });
    expect(await h.store.get('key-1')).toMatchObject({ state: 'succeeded', response: { source: 'status_read' } });
    expect(await h.runner.resume('key-1')).toMatchObject({ state: 'succeeded', tries: 0 });
    expect(h.sent).toHaveLength(4);
  });

  it('not found keeps it unknown (a same-key resume is then safe); a failed read too', async () => {
    const h = harness([timeout, timeout, timeout, timeout], [rejected(400, { reason_code: 'INVALID_PARAMS' }), { kind: 'rate_limited', status: 429, retryAfterSeconds: 1, body: {}, raw: '' }]);
    await h.runner.start('payin_create', payinBody(m, 'blik', 'r1'));
    expect(await h.runner.resolveByStatus('key-1')).toMatchObject({ state: 'unknown', lookup: 'not_found' });
    expect(await h.runner.resolveByStatus('key-1')).toMatchObject({ state: 'unknown', lookup: 'failed' });
    expect((await h.store.get('key-1'))?.state).toBe('unknown');
  });

  it('looks a payout up by its merchantReference: found settles it, sending nothing', async () => {
    const h = harness([timeout, timeout, timeout, timeout], [ok({ payout_id: 'po-7', merchantReference: 'p1', status_code: 'P101' })]);
    await h.runner.start('payout_create', payoutBody(m, 'fps', 'p1'));
    expect(await h.runner.resolveByStatus('key-1')).toMatchObject({ state: 'succeeded', source: 'status_read', body: { payout_id: 'po-7' } });
    expect(h.statusReads).toEqual([{ merchant_id: 'mer_1', merchantReference: 'p1' }]);
    expect(h.sent).toHaveLength(4);
  });

  it('a payout the gateway does not know by that merchantReference is not found; a gateway that cannot read by it, or another payout, leaves it unknown', async () => {
    const noSuch = rejected(400, { status_code: 'C402', reason_code: 'INVALID_PARAMS', details: { merchantReference: 'no such payout' } });
    const noLookup = rejected(400, { status_code: 'C402', reason_code: 'MISSING_PARAMS', details: { payout_id: 'is required' } });
    const another = ok({ payout_id: 'po-8', merchantReference: 'p2', status_code: 'P101' });
    const h = harness([timeout, timeout, timeout, timeout], [noSuch, noLookup, another]);
    await h.runner.start('payout_create', payoutBody(m, 'fps', 'p1'));
    expect(await h.runner.resolveByStatus('key-1')).toMatchObject({ state: 'unknown', lookup: 'not_found' });
    expect(await h.runner.resolveByStatus('key-1')).toMatchObject({ state: 'unknown', lookup: 'failed' });
    expect(await h.runner.resolveByStatus('key-1')).toMatchObject({ state: 'unknown', lookup: 'failed' });
    expect((await h.store.get('key-1'))?.state).toBe('unknown');
    expect(h.sent).toHaveLength(4);
  });

  it('does nothing for a prepared attempt that never left', async () => {
    const h = harness([]);
    const key = await h.runner.prepare('payin_create', payinBody(m, 'blik', 'r1'));
    expect(await h.runner.resolveByStatus(key)).toMatchObject({ state: 'prepared' });
    expect(h.statusReads).toEqual([]);
  });
});

describe('AttemptRunner.settleByRead (a status read the app made through its rate limiter)', () => {
  it('settles an unknown pay-in with the read it is given, and sends nothing itself', async () => {
    const h = harness([timeout, timeout, timeout, timeout]);
    await h.runner.start('payin_create', payinBody(m, 'blik', 'r1'));
    const read = ok({ payin_id: 'p-9', request_id: 'r1', status_code: 100 });
    expect(await h.runner.settleByRead('key-1', read as never)).toMatchObject({ state: 'succeeded', source: 'status_read', body: { payin_id: 'p-9' } });
    expect(await h.store.get('key-1')).toMatchObject({ state: 'succeeded', response: { source: 'status_read' } });
    expect(h.statusReads).toEqual([]);
    expect(h.sent).toHaveLength(4);
  });

  it('keeps it unknown for a read of another request, a not-found, a failed read or one that was never sent', async () => {
    const h = harness([timeout, timeout, timeout, timeout]);
    await h.runner.start('payin_create', payinBody(m, 'blik', 'r1'));
    expect(await h.runner.settleByRead('key-1', ok({ payin_id: 'p-2', request_id: 'r2', status_code: 100 }) as never)).toMatchObject({ state: 'unknown', lookup: 'failed' });
    expect(await h.runner.settleByRead('key-1', rejected(400, { reason_code: 'INVALID_PARAMS' }) as never)).toMatchObject({ state: 'unknown', lookup: 'not_found' });
    expect(await h.runner.settleByRead('key-1', { kind: 'rate_limited', status: 429, retryAfterSeconds: 3, body: {}, raw: '' })).toMatchObject({ state: 'unknown', lookup: 'failed' });
    const held = await h.runner.settleByRead('key-1', { kind: 'not_sent', reason: 'status reads are rate limited; retry in 7 s' });
    expect(held).toMatchObject({ state: 'unknown', lookup: 'failed' });
    expect(held.state === 'unknown' && held.reason).toMatch(/status read not sent: status reads are rate limited; retry in 7 s$/);
    expect((await h.store.get('key-1'))?.state).toBe('unknown');
    expect(h.statusReads).toEqual([]);
  });
});

describe('nextStep (catalogue retry advice)', () => {
  const run = async (step: Step, endpoint: CreateEndpoint = 'payin_create') => {
    const h = harness([step]);
    return nextStep(await h.runner.start(endpoint, endpoint === 'payout_create' ? payoutBody(m, 'fps', 'p') : payinBody(m, 'blik', 'r')));
  };

  it('100 waits for the notification; 200 needs nothing', async () => {
    expect(await run(ok({ status_code: 100 }))).toMatchObject({ action: 'wait_for_notification' });
    expect(await run(ok({ status_code: 200 }))).toMatchObject({ action: 'none' });
    expect(await run(ok({ status_code: 'P100' }), 'payout_create')).toMatchObject({ action: 'wait_for_notification' });
  });

  it('515 "retry shortly" in an answer means a new attempt decided by the user, not a same-key retry', async () => {
    expect(await run(ok({ status: 'failed', status_code: 515 }))).toMatchObject({ action: 'new_attempt' });
    expect(await run(ok({ status: 'failed', status_code: 301 }))).toMatchObject({ action: 'new_attempt', afterSeconds: 60 });
  });

  it('a refusal follows its reason code; an unknown code is never treated as final', async () => {
    expect(await run(rejected(400, { reason_code: 'MISSING_PARAMS', status_code: 510 }))).toMatchObject({ action: 'new_attempt', code: { known: true } });
    expect(await run(rejected(400, { reason_code: 'RISK_BLOCKED' }))).toMatchObject({ action: 'none' });
    expect(await run(ok({ status_code: 999 }))).toMatchObject({ action: 'resolve_unknown', code: { known: false } });
  });
});
