// Every error a payout endpoint answers has the payout error shape PRODUCT.md
// pins (the shape of 2.3 with a C-code in status_code), whatever the HTTP status: 401 (merchant-token
// missing or wrong, a foreign merchant_id), 400, 404 and 405 under /payouts, 408, 413, 429, 431
// and 500 (injected, and an unexpected failure). docs/emulator.md names the C-code of each case.
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { EmulatorHandle } from '../../src/emulator/index';
import { REASON_CODES } from '../../src/shared/spec/codes';
import { admin, api, payinBody, payoutBody, Receiver, send, startTestEmulator, type ApiResponse, type Loose } from './helpers';

let emu: EmulatorHandle;
let rc: Receiver;
/** While true, the emulator's id source throws: the next creation fails unexpectedly (HTTP 500). */
let idsFail = false;

beforeAll(async () => {
  emu = await startTestEmulator({
    http: { headersTimeoutMs: 500, requestTimeoutMs: 800 },
    ids: {
      uuid: () => {
        if (idsFail) throw new Error('id source failed on purpose');
        return randomUUID();
      },
      secret: (prefix) => `${prefix}${randomUUID()}`,
    },
  });
  rc = await new Receiver().start();
});
afterAll(async () => {
  await rc.close();
  await emu.close();
});

/** The payout error shape: 2.3's fields, a C-code of 3.2's form, never a payin_id. */
function expectPayoutError(r: { status: number; json: Loose }, http: number, statusCode: string, reason: string): void {
  expect(r.status).toBe(http);
  expect(r.json).toMatchObject({ status: 'error', status_code: statusCode, reason_code: reason });
  expect(r.json.status_code).toMatch(/^C\d{3}$/);
  expect(REASON_CODES).toContain(r.json.reason_code);
  expect(r.json.error_code).toMatch(/^\d{5}$/);
  expect(typeof r.json.message).toBe('string');
  expect(r.json.request_id === null || typeof r.json.request_id === 'string').toBe(true);
  expect(r.json).not.toHaveProperty('payin_id');
}

const createBody = (over: Record<string, unknown> = {}) => payoutBody(emu, 'fps', rc.url('/payouts'), over);
const readBody = (over: Record<string, unknown> = {}) => ({ merchant_id: emu.merchant.merchant_id, payout_id: randomUUID(), ...over });

/** Raw bytes on a socket, for what fetch will not send (huge headers, a body that never ends). */
function rawExchange(request: string, waitMs: number): Promise<{ status: number; json: Loose }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(new URL(emu.baseUrl).port), '127.0.0.1');
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${waitMs} ms: ${text}`));
    }, waitMs);
    socket.on('data', (d) => (text += d.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? NaN);
      const body = text.slice(text.indexOf('\r\n\r\n') + 4);
      try {
        resolve({ status, json: JSON.parse(body) as Loose });
      } catch {
        reject(new Error(`not a JSON answer: ${text}`));
      }
    });
    socket.write(request);
  });
}

describe.each(['/payouts/create', '/payouts/get-status'])('%s: 401 carries C501', (path) => {
  const body = (): Loose => (path === '/payouts/create' ? createBody() : readBody());

  test('without merchant-token', async () => {
    expectPayoutError(await api(emu)(path, body(), { 'merchant-token': undefined }), 401, 'C501', 'INVALID_REQUEST');
  });

  test('with a wrong merchant-token', async () => {
    expectPayoutError(await api(emu)(path, body(), { 'merchant-token': `${emu.merchant.merchant_token}x` }), 401, 'C501', 'INVALID_REQUEST');
  });

  test("with a body merchant_id of another merchant, echoing the payout's merchantReference", async () => {
    const sent: Loose = { ...body(), merchant_id: 'someone-else' };
    const r = await api(emu)(path, sent);
    expectPayoutError(r, 401, 'C501', 'INVALID_REQUEST');
    expect(r.json.error_code).toBe('10003');
    expect(r.json.request_id).toBe(path === '/payouts/create' ? sent.merchantReference : null);
  });
});

describe('400 carries C402', () => {
  test('a missing field', async () => {
    const r = await api(emu)('/payouts/create', createBody({ currency: undefined }));
    expectPayoutError(r, 400, 'C402', 'MISSING_PARAMS');
    expect(r.json.details).toHaveProperty('currency');
  });

  test.each([
    ['a non-JSON Content-Type', { 'content-type': 'text/plain' }, '20001'],
    ['no Idempotency-Key', { 'idempotency-key': undefined }, '20004'],
  ] as const)('%s', async (_, headers, errorCode) => {
    const r = await api(emu)('/payouts/create', createBody(), headers);
    expect(r.status).toBe(400);
    expectPayoutError(r, 400, 'C402', r.json.reason_code as string);
    expect(r.json.error_code).toBe(errorCode);
  });

  test('a body that is not JSON', async () => {
    const r = await api(emu)('/payouts/get-status', '{"merchant_id":');
    expectPayoutError(r, 400, 'C402', 'INVALID_REQUEST');
    expect(r.json.error_code).toBe('20002');
  });

  test("an Idempotency-Key reused with another body echoes that payout's merchantReference", async () => {
    const key = randomUUID();
    expect((await api(emu)('/payouts/create', createBody(), { 'idempotency-key': key })).status).toBe(200);
    const other = createBody();
    const r = await api(emu)('/payouts/create', other, { 'idempotency-key': key });
    expectPayoutError(r, 400, 'C402', 'INVALID_REQUEST');
    expect(r.json).toMatchObject({ error_code: '20006', request_id: other.merchantReference });
  });
});

describe('errors outside the endpoints, under /payouts', () => {
  test('404 for an unknown path carries C402', async () => {
    const r = await send(`${emu.baseUrl}/payouts/refund`, { body: '{}', headers: { 'content-type': 'application/json' } });
    expectPayoutError(r, 404, 'C402', 'INVALID_REQUEST');
    expect(r.json.error_code).toBe('20008');
  });

  test('405 for another verb carries C402, with Allow', async () => {
    const r = await send(`${emu.baseUrl}/payouts/create`, { method: 'GET' });
    expectPayoutError(r, 405, 'C402', 'INVALID_REQUEST');
    expect(r.headers.get('allow')).toBe('POST');
  });

  test('413 for a body over 1 MiB carries C402 (a pay-in path keeps its own shape)', async () => {
    const big = JSON.stringify({ pad: 'x'.repeat(1024 * 1024) });
    const r = await api(emu)('/payouts/create', big);
    expectPayoutError(r, 413, 'C402', 'INVALID_REQUEST');
    expect(r.json.error_code).toBe('20007');
    const payin = await api(emu)('/payment/create', big);
    expect(payin.status).toBe(413);
    expect(payin.json).toMatchObject({ payin_id: null, error_code: '20007' });
    expect(payin.json).not.toHaveProperty('status_code');
  });

  test('408 for a body that never ends carries C402', async () => {
    const port = new URL(emu.baseUrl).port;
    const r = await rawExchange(`POST /api/v2/payouts/create HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":`, 5_000);
    expectPayoutError(r, 408, 'C402', 'INVALID_REQUEST');
    expect(r.json.error_code).toBe('20011');
  });

  test('431 for headers over 16 KiB carries C402', async () => {
    const port = new URL(emu.baseUrl).port;
    const r = await rawExchange(`POST /api/v2/payouts/get-status HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Pad: ${'x'.repeat(20 * 1024)}\r\n\r\n`, 5_000);
    expectPayoutError(r, 431, 'C402', 'INVALID_REQUEST');
    expect(r.json.error_code).toBe('20012');
  });
});

describe('429 and 500 carry C501', () => {
  test('429 on a payout status read, with Retry-After and TRANSIENT_ERROR', async () => {
    expect((await admin(emu)('PUT', '/faults', { api: { force_rate_limit: 1 } })).status).toBe(200);
    const r = await api(emu)('/payouts/get-status', readBody());
    expectPayoutError(r, 429, 'C501', 'TRANSIENT_ERROR');
    expect(r.json.error_code).toBe('60001');
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  test('500 for an injected system error', async () => {
    expect((await admin(emu)('PUT', '/faults', { api: { create_errors: 1 } })).status).toBe(200);
    const r = await api(emu)('/payouts/create', createBody());
    expectPayoutError(r, 500, 'C501', 'SYSTEM_ERROR');
    expect(r.json.error_code).toBe('50002');
  });

  test('500 for an unexpected failure (a pay-in path keeps status_code 501)', async () => {
    idsFail = true;
    let payout: ApiResponse;
    let payin: ApiResponse;
    try {
      payout = await api(emu)('/payouts/create', createBody());
      payin = await api(emu)('/payment/create', payinBody(emu, 'blik', rc.url()));
    } finally {
      idsFail = false;
    }
    expectPayoutError(payout, 500, 'C501', 'SYSTEM_ERROR');
    expect(payout.json.error_code).toBe('50001');
    expect(payin.status).toBe(500);
    expect(payin.json).toMatchObject({ status: 'error', status_code: 501, reason_code: 'SYSTEM_ERROR', error_code: '50001', payin_id: null });
    // The emulator keeps serving.
    expect((await api(emu)('/payouts/create', createBody())).status).toBe(200);
  });
});
