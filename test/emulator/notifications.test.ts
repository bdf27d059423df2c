// Notification delivery to a real local receiver: first attempt promptly, retries with
// exponential backoff until a 2xx, a bounded number of attempts, and the admin faults (delay,
// duplicate, reorder, fail) plus redelivery. Deliveries never keep the process alive.
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { EmulatorHandle } from '../../src/emulator/index';
import { DEFAULT_DELIVERY_SCHEDULE, delayBeforeAttempt } from '../../src/emulator/index';
import { admin, api, FAST_DELIVERY, payinBody, Receiver, sleep, startTestEmulator, waitFor, type Loose } from './helpers';

let emu: EmulatorHandle;
let rc: Receiver;
beforeAll(async () => {
  emu = await startTestEmulator();
  rc = await new Receiver().start();
});
afterEach(async () => {
  await admin(emu)('DELETE', '/faults');
  rc.answers = [];
});
afterAll(async () => {
  await rc.close();
  await emu.close();
});

async function finalPayin(url = rc.url(), code = 200): Promise<string> {
  const r = await api(emu)('/payment/create', payinBody(emu, 'blik', url, { email: `n+s${code}@example.com` }));
  return r.json.payin_id as string;
}

const deliveriesOf = async (id: string) => (await admin(emu)('GET', `/deliveries?subject_id=${id}`)).json.deliveries as [Loose, ...Loose[]];

describe('schedule', () => {
  test('the default schedule: first attempt within 1 s, first retry within 5 s, then doubling to a 10 min cap, 12 attempts', () => {
    const s = DEFAULT_DELIVERY_SCHEDULE;
    expect(delayBeforeAttempt(1, s)).toBeLessThanOrEqual(1_000);
    expect(delayBeforeAttempt(2, s)).toBeLessThanOrEqual(5_000);
    expect(delayBeforeAttempt(3, s)).toBe(2 * (delayBeforeAttempt(2, s) as number));
    expect(delayBeforeAttempt(12, s)).toBe(600_000);
    expect(delayBeforeAttempt(13, s)).toBeUndefined();
  });

  test('retries after non-2xx answers with growing gaps until a 2xx, then stops', async () => {
    rc.answers = [500, 404, 503];
    const id = await finalPayin();
    const got = await waitFor(() => (rc.received.filter((r) => r.body.payin_id === id).length >= 4 ? rc.received.filter((r) => r.body.payin_id === id) : undefined), 5_000, '4 attempts');
    expect(got.map((r) => r.answered)).toEqual([500, 404, 503, 200]);
    const gaps = got.slice(1).map((r, i) => r.at - (got[i] as { at: number }).at);
    expect(gaps[0]).toBeGreaterThanOrEqual(FAST_DELIVERY.firstRetryDelayMs - 20);
    expect(gaps[1]).toBeGreaterThan((gaps[0] as number) * 1.5);
    expect(got.map((r) => r.headers['x-emulator-attempt'])).toEqual(['1', '2', '3', '4']);
    await sleep(300);
    expect(rc.received.filter((r) => r.body.payin_id === id)).toHaveLength(4);
    const [d] = await deliveriesOf(id);
    expect(d).toMatchObject({ state: 'delivered', attempts: 4, last_status: 200 });
    expect(d.attempt_log.map((a: { http_status: number }) => a.http_status)).toEqual([500, 404, 503, 200]);
  });

  test('retries after connection failures (receiver down) and delivers once it is up', async () => {
    const later = new Receiver();
    await later.start();
    const url = later.url('/late');
    await later.close();
    const id = await finalPayin(url);
    await waitFor(async () => ((await deliveriesOf(id))[0]?.attempts >= 1 ? true : undefined), 3_000, 'first failed attempt');
    const [failed] = await deliveriesOf(id);
    expect(failed.state).toBe('pending');
    expect(failed.last_error).toMatch(/ECONNREFUSED|connect/i);
    const back = await new Receiver().start(Number(new URL(url).port));
    try {
      const n = await waitFor(() => back.delivered('payin_id', id)[0], 4_000, 'delivery after restart');
      expect(n.path).toBe('/late');
      expect(Number(n.headers['x-emulator-attempt'])).toBeGreaterThan(1);
    } finally {
      await back.close();
    }
  });

  test('gives up after maxAttempts and records the delivery as failed', async () => {
    rc.answers = Array(FAST_DELIVERY.maxAttempts).fill(500);
    const id = await finalPayin();
    const d = await waitFor(async () => ((await deliveriesOf(id))[0]?.state === 'failed' ? (await deliveriesOf(id))[0] : undefined), 6_000, 'abandon');
    expect(d.attempts).toBe(FAST_DELIVERY.maxAttempts);
    await sleep(500);
    expect(rc.received.filter((r) => r.body.payin_id === id)).toHaveLength(FAST_DELIVERY.maxAttempts);
  });
});

describe('faults on demand', () => {
  test('delay: the first attempt waits delay_ms longer', async () => {
    await admin(emu)('PUT', '/faults', { notifications: { delay_ms: 600 } });
    const t0 = Date.now();
    const id = await finalPayin();
    const n = await waitFor(() => rc.delivered('payin_id', id)[0], 4_000);
    expect(n.at - t0).toBeGreaterThanOrEqual(600);
  });

  test('duplicate: the same notification arrives 1 + N times with the same delivery id', async () => {
    await admin(emu)('PUT', '/faults', { notifications: { duplicate: 2 } });
    const id = await finalPayin();
    const copies = await waitFor(() => (rc.delivered('payin_id', id).length === 3 ? rc.delivered('payin_id', id) : undefined), 3_000);
    expect(new Set(copies.map((c) => c.raw)).size).toBe(1);
    expect(new Set(copies.map((c) => c.headers['x-emulator-delivery-id'])).size).toBe(1);
  });

  test('reorder: deliveries held together arrive newest first', async () => {
    await admin(emu)('PUT', '/faults', { notifications: { reorder: true, reorder_window_ms: 400 } });
    const first = await finalPayin(rc.url(), 200);
    await sleep(120);
    const second = await finalPayin(rc.url(), 302);
    const both = await waitFor(() => {
      const got = rc.received.filter((r) => r.body.payin_id === first || r.body.payin_id === second);
      return got.length === 2 ? got : undefined;
    }, 3_000);
    expect(both.map((r) => r.body.payin_id)).toEqual([second, first]);
  });

  test('fail (drop): the next attempts are failed on purpose and retried on schedule', async () => {
    await admin(emu)('PUT', '/faults', { notifications: { fail_next: 2, fail_mode: 'drop' } });
    const id = await finalPayin();
    const n = await waitFor(() => rc.delivered('payin_id', id)[0], 4_000);
    expect(n.headers['x-emulator-attempt']).toBe('3');
    const [d] = await deliveriesOf(id);
    expect(d.attempt_log.map((a: { error: string | null }) => a.error !== null)).toEqual([true, true, false]);
  });

  test('fail (abort): the receiver sees a request cut mid-body, then a complete retry', async () => {
    await admin(emu)('PUT', '/faults', { notifications: { fail_next: 1, fail_mode: 'abort' } });
    const abortedBefore = rc.aborted.length;
    const id = await finalPayin();
    const n = await waitFor(() => rc.delivered('payin_id', id)[0], 4_000);
    expect(n.headers['x-emulator-attempt']).toBe('2');
    await waitFor(() => (rc.aborted.length > abortedBefore ? true : undefined), 2_000, 'aborted request');
    expect(rc.aborted.at(-1)?.length).toBeLessThan(n.raw.length);
  });

  test('bad fault settings are refused with 400', async () => {
    expect((await admin(emu)('PUT', '/faults', { notifications: { duplicate: -1 } })).status).toBe(400);
    expect((await admin(emu)('PUT', '/faults', { notifications: { fail_mode: 'explode' } })).status).toBe(400);
    expect((await admin(emu)('PUT', '/faults', { chaos: true })).status).toBe(400);
  });

  test('redeliver sends a stored notification again as a new delivery', async () => {
    const id = await finalPayin();
    await waitFor(() => rc.delivered('payin_id', id)[0], 3_000);
    const [d] = await deliveriesOf(id);
    const r = await admin(emu)('POST', `/deliveries/${d.id}/redeliver`);
    expect(r.status).toBe(200);
    const two = await waitFor(() => (rc.delivered('payin_id', id).length === 2 ? rc.delivered('payin_id', id) : undefined), 3_000);
    expect(two[1]?.raw).toBe(two[0]?.raw);
  });
});

describe('shutdown', () => {
  test('close() returns promptly while retries are still scheduled', async () => {
    const own = await startTestEmulator({ delivery: { ...FAST_DELIVERY, firstRetryDelayMs: 60_000 } });
    const dead = new Receiver();
    await dead.start();
    const url = dead.url();
    await dead.close();
    await api(own)('/payment/create', payinBody(own, 'blik', url, { email: 'z+s200@example.com' }));
    await sleep(300);
    const t0 = Date.now();
    await own.close();
    expect(Date.now() - t0).toBeLessThan(1_000);
  });
});
