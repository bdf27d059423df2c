// Spec section 4 headers and the transport rules: merchant-token (401), Content-Type (400),
// Idempotency-Key on the four create calls (400), malformed bodies, 404, 405, 413, slow clients.
import http from 'node:http';
import net from 'node:net';
import { describe, expect, test } from 'vitest';
import type { EmulatorHandle } from '../../src/emulator/index';
import { api, payinBody, payoutBody, Receiver, send, useEmulator } from './helpers';

let emu: EmulatorHandle;
let rc: Receiver;
useEmulator((e, r) => ([emu, rc] = [e, r]), { http: { headersTimeoutMs: 500, requestTimeoutMs: 800 } });

const ENDPOINTS = ['/payment/create', '/payment/get-status', '/payment/create/tokenization', '/payment/create/token', '/payouts/create', '/payouts/get-status'];
const CREATES = ENDPOINTS.filter((p) => p.includes('create'));

describe('merchant-token', () => {
  test.each(ENDPOINTS)('%s without merchant-token is 401 with the error shape of 2.3', async (path) => {
    const r = await api(emu)(path, { merchant_id: emu.merchant.merchant_id }, { 'merchant-token': undefined });
    expect(r.status).toBe(401);
    expect(r.json).toMatchObject({ status: 'error', reason_code: 'INVALID_REQUEST' });
    expect(r.json.error_code).toMatch(/^\d{5}$/);
    expect(typeof r.json.message).toBe('string');
  });

  test.each(ENDPOINTS)('%s with a wrong merchant-token is 401', async (path) => {
    const r = await api(emu)(path, {}, { 'merchant-token': `${emu.merchant.merchant_token}x` });
    expect(r.status).toBe(401);
    expect(r.json.status).toBe('error');
  });

  test('a pay-in 401 carries status_code 502 (Unauthorized) and echoes request_id', async () => {
    const body = payinBody(emu, 'blik', rc.url(), { merchant_id: 'someone-else' });
    const r = await api(emu)('/payment/create', body);
    expect(r.status).toBe(401);
    expect(r.json).toMatchObject({ status_code: 502, request_id: body.request_id, payin_id: null });
  });

  test('a body merchant_id of another merchant is 401 on payouts too', async () => {
    const r = await api(emu)('/payouts/create', payoutBody(emu, 'fps', rc.url(), { merchant_id: 'other' }));
    expect(r.status).toBe(401);
  });
});

describe('Content-Type', () => {
  test.each(ENDPOINTS)('%s with a non-JSON Content-Type is 400', async (path) => {
    const r = await api(emu)(path, {}, { 'content-type': 'text/plain' });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ status: 'error', reason_code: 'INVALID_REQUEST', error_code: '20001' });
  });

  test('without any Content-Type header the call is 400', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(`${emu.baseUrl}/payment/get-status`, { method: 'POST', headers: { 'merchant-token': emu.merchant.merchant_token } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end('{}');
    });
    expect(status).toBe(400);
  });

  test('application/json with a charset parameter is accepted', async () => {
    const r = await api(emu)('/payment/create', payinBody(emu, 'blik', rc.url()), { 'content-type': 'application/json; charset=utf-8' });
    expect(r.status).toBe(200);
  });
});

describe('Idempotency-Key', () => {
  test.each(CREATES)('%s without Idempotency-Key is 400 MISSING_PARAMS naming the header', async (path) => {
    const r = await api(emu)(path, {}, { 'idempotency-key': undefined });
    expect(r.status).toBe(400);
    expect(r.json.reason_code).toBe('MISSING_PARAMS');
    expect(r.json.details).toHaveProperty('Idempotency-Key');
  });

  test('the two status reads need no Idempotency-Key', async () => {
    const r = await api(emu)('/payment/get-status', { merchant_id: emu.merchant.merchant_id, request_id: 'nope' });
    expect(r.json.error_code).not.toBe('20004');
  });
});

describe('malformed requests never crash the emulator', () => {
  test.each([
    ['truncated JSON', '{"merchant_id": '],
    ['duplicate keys', '{"a":1,"a":2}'],
    ['not JSON', 'hello'],
    ['empty body', ''],
  ])('%s is 400 INVALID_REQUEST', async (_name, body) => {
    const r = await api(emu)('/payment/create', body);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ status: 'error', reason_code: 'INVALID_REQUEST' });
  });

  test.each([['[]'], ['"text"'], ['42'], ['null']])('a JSON %s body is 400 (must be an object)', async (body) => {
    const r = await api(emu)('/payouts/create', body);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ status_code: 'C402', reason_code: 'INVALID_REQUEST', error_code: '20003' });
  });

  test('unknown paths are 404 JSON, wrong verbs 405 with Allow', async () => {
    const nf = await send(`${emu.baseUrl}/payment/refund`, { body: '{}', headers: { 'content-type': 'application/json' } });
    expect(nf.status).toBe(404);
    expect(nf.json.error_code).toBe('20008');
    const root = await send(`${emu.baseUrl.replace('/api/v2', '')}/`, { method: 'GET' });
    expect(root.status).toBe(404);
    const wrongVerb = await send(`${emu.baseUrl}/payment/create`, { method: 'GET' });
    expect(wrongVerb.status).toBe(405);
    expect(wrongVerb.headers.get('allow')).toBe('POST');
  });

  test('a body over 1 MiB is 413; exactly 1 MiB is read', async () => {
    const big = JSON.stringify({ pad: 'x'.repeat(1024 * 1024) });
    const r = await api(emu)('/payment/create', big);
    expect(r.status).toBe(413);
    expect(r.json.error_code).toBe('20007');
    const body = JSON.stringify(payinBody(emu, 'blik', rc.url()));
    const padded = body.slice(0, -1) + ' '.repeat(1024 * 1024 - Buffer.byteLength(body)) + '}';
    expect(Buffer.byteLength(padded)).toBe(1024 * 1024);
    const ok = await api(emu)('/payment/create', padded);
    expect(ok.status).toBe(200);
  });

  test('a slow client is cut off by the request timeout while others are served', async () => {
    const socket = net.connect(Number(new URL(emu.baseUrl).port), '127.0.0.1');
    const chunks: string[] = [];
    const closed = new Promise<void>((resolve) => {
      socket.on('data', (d) => chunks.push(d.toString()));
      socket.on('close', () => resolve());
      socket.on('error', () => resolve());
    });
    socket.write('POST /api/v2/payment/create HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":');
    const started = Date.now();
    const meanwhile = await api(emu)('/payment/create', payinBody(emu, 'blik', rc.url()));
    expect(meanwhile.status).toBe(200);
    await Promise.race([closed, new Promise((r) => setTimeout(r, 5_000))]);
    expect(socket.destroyed || socket.readableEnded).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(chunks.join('')).toMatch(/^HTTP\/1\.1 408/);
    socket.destroy();
  });

  test('after all of the above the emulator still serves and its state is intact', async () => {
    const created = await api(emu)('/payment/create', payinBody(emu, 'blik', rc.url()));
    const read = await api(emu)('/payment/get-status', { merchant_id: emu.merchant.merchant_id, payin_id: created.json.payin_id });
    expect(read.status).toBe(200);
    expect(read.json.status_code).toBe(100);
  });
});
