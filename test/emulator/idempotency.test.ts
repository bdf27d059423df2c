// Idempotency (spec 4 rule 1, PRODUCT.md): same key + same body replays the first answer and
// creates nothing; same key + another body is refused; concurrent duplicates create one.
import { randomUUID } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import type { EmulatorHandle } from '../../src/emulator/index';
import { admin, api, payinBody, payoutBody, Receiver, useEmulator } from './helpers';

let emu: EmulatorHandle;
let rc: Receiver;
useEmulator((e, r) => ([emu, rc] = [e, r]));

const countPayins = async (): Promise<number> => (await admin(emu)('GET', '/payins')).json.count as number;

describe('create calls with an Idempotency-Key', () => {
  test('the same key and body replays the first response byte for byte and creates nothing', async () => {
    const key = randomUUID();
    const body = payinBody(emu, 'blik', rc.url());
    const before = await countPayins();
    const first = await api(emu)('/payment/create', body, { 'idempotency-key': key });
    const second = await api(emu)('/payment/create', body, { 'idempotency-key': key });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.text).toBe(first.text);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await countPayins()).toBe(before + 1);
  });

  test('key order and whitespace do not make a different body', async () => {
    const key = randomUUID();
    const body = payinBody(emu, 'blik', rc.url());
    const first = await api(emu)('/payment/create', JSON.stringify(body), { 'idempotency-key': key });
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const second = await api(emu)('/payment/create', JSON.stringify(reordered, null, 2), { 'idempotency-key': key });
    expect(second.json.payin_id).toBe(first.json.payin_id);
  });

  test('the same key with a different body is refused with 400 INVALID_REQUEST', async () => {
    const key = randomUUID();
    const body = payinBody(emu, 'blik', rc.url());
    await api(emu)('/payment/create', body, { 'idempotency-key': key });
    const r = await api(emu)('/payment/create', { ...body, amount: 99 }, { 'idempotency-key': key });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ status: 'error', reason_code: 'INVALID_REQUEST', error_code: '20006', request_id: body.request_id });
  });

  test('the same key on another create endpoint is refused', async () => {
    const key = randomUUID();
    expect((await api(emu)('/payouts/create', payoutBody(emu, 'fps', rc.url()), { 'idempotency-key': key })).status).toBe(200);
    const r = await api(emu)('/payment/create', payinBody(emu, 'blik', rc.url()), { 'idempotency-key': key });
    expect(r.status).toBe(400);
    expect(r.json.error_code).toBe('20006');
  });

  test('20 concurrent duplicates create exactly one pay-in and all get its answer', async () => {
    const key = randomUUID();
    const body = payinBody(emu, 'blik', rc.url());
    const before = await countPayins();
    const results = await Promise.all(Array.from({ length: 20 }, () => api(emu)('/payment/create', body, { 'idempotency-key': key })));
    expect(new Set(results.map((r) => r.status))).toEqual(new Set([200]));
    expect(new Set(results.map((r) => r.json.payin_id)).size).toBe(1);
    expect(await countPayins()).toBe(before + 1);
  });

  test('concurrent duplicates of a payout create one payout', async () => {
    const key = randomUUID();
    const body = payoutBody(emu, 'crypto', rc.url());
    const results = await Promise.all(Array.from({ length: 10 }, () => api(emu)('/payouts/create', body, { 'idempotency-key': key })));
    expect(new Set(results.map((r) => r.json.payout_id)).size).toBe(1);
  });

  test('a server error does not bind the key: the retry with the same key and body succeeds', async () => {
    await admin(emu)('PUT', '/faults', { api: { create_errors: 1 } });
    const key = randomUUID();
    const body = payinBody(emu, 'blik', rc.url());
    const failed = await api(emu)('/payment/create', body, { 'idempotency-key': key });
    expect(failed.status).toBe(500);
    expect(failed.json).toMatchObject({ status: 'error', status_code: 501, reason_code: 'SYSTEM_ERROR' });
    const retried = await api(emu)('/payment/create', body, { 'idempotency-key': key });
    expect(retried.status).toBe(200);
    expect(retried.json.status_code).toBe(100);
  });

  test('a validation refusal does not bind the key: the corrected body may use it', async () => {
    const key = randomUUID();
    const body = payinBody(emu, 'blik', rc.url());
    expect((await api(emu)('/payment/create', { ...body, currency: 'EURO' }, { 'idempotency-key': key })).status).toBe(400);
    expect((await api(emu)('/payment/create', body, { 'idempotency-key': key })).status).toBe(200);
  });
});
