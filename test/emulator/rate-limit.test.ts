// get-status rate limit (PRODUCT.md): per merchant a bucket of 20 reads refilled at 10/s,
// pay-ins and payouts counted apart; over it HTTP 429, Retry-After in whole seconds,
// reason TRANSIENT_ERROR. Adjustable and forceable through the admin API.
import { afterAll, beforeEach, describe, expect, test } from 'vitest';
import type { EmulatorHandle } from '../../src/emulator/index';
import type { Clock } from '../../src/emulator/index';
import { admin, api, startTestEmulator } from './helpers';

let now = Date.parse('2030-01-01T00:00:00Z');
const clock: Clock = { now: () => now };
let emu: EmulatorHandle;
beforeEach(async () => {
  await emu?.close();
  emu = await startTestEmulator({ clock });
});
afterAll(async () => emu.close());

const payinRead = () => api(emu)('/payment/get-status', { merchant_id: emu.merchant.merchant_id, request_id: 'none' });
const payoutRead = () => api(emu)('/payouts/get-status', { merchant_id: emu.merchant.merchant_id, payout_id: '00000000-0000-4000-8000-000000000000' });

describe('get-status rate limit', () => {
  test('20 reads pass, the 21st is 429 with Retry-After and TRANSIENT_ERROR; 100 ms later one more passes', async () => {
    for (let i = 0; i < 20; i++) expect((await payinRead()).status).toBe(400); // unknown pay-in, but served
    const limited = await payinRead();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect(limited.json).toMatchObject({ status: 'error', reason_code: 'TRANSIENT_ERROR', status_code: 515, error_code: '60001' });
    now += 100;
    expect((await payinRead()).status).toBe(400);
    expect((await payinRead()).status).toBe(429);
  });

  test('pay-in and payout reads have separate buckets', async () => {
    for (let i = 0; i < 20; i++) await payinRead();
    expect((await payinRead()).status).toBe(429);
    expect((await payoutRead()).status).toBe(400);
    for (let i = 0; i < 19; i++) await payoutRead();
    const limited = await payoutRead();
    expect(limited.status).toBe(429);
    expect(limited.json.reason_code).toBe('TRANSIENT_ERROR');
  });

  test('create calls are not rate limited', async () => {
    for (let i = 0; i < 25; i++) expect((await api(emu)('/payment/create', {})).status).toBe(400);
  });

  test('the admin API can tighten the limit (Retry-After grows) and force 429s', async () => {
    await admin(emu)('PUT', '/faults', { rate_limit: { burst: 1, refill_per_second: 0.25 } });
    expect((await payinRead()).status).toBe(400);
    const limited = await payinRead();
    expect(limited.headers.get('retry-after')).toBe('4');
    await admin(emu)('DELETE', '/faults');
    await admin(emu)('PUT', '/faults', { api: { force_rate_limit: 2 } });
    expect((await payinRead()).status).toBe(429);
    expect((await payoutRead()).status).toBe(429);
    expect((await payinRead()).status).toBe(400);
  });
});
