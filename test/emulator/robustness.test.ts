// Random and hostile input never crashes the emulator or corrupts its state: every answer is a
// JSON error of the documented shape, and a pay-in created before the barrage reads the same after.
import fc from 'fast-check';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { EmulatorHandle } from '../../src/emulator/index';
import { admin, api, payinBody, payoutBody, send, startTestEmulator } from './helpers';

let emu: EmulatorHandle;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(async () => emu.close());

const PATHS = ['/payment/create', '/payment/get-status', '/payment/create/tokenization', '/payment/create/token', '/payouts/create', '/payouts/get-status'];

test('random bodies on every endpoint get 4xx JSON errors of the 2.3 shape, never a 5xx or a hang', async () => {
  const anchor = await api(emu)('/payment/create', payinBody(emu, 'crypto', 'http://127.0.0.1:9/'));
  const before = await api(emu)('/payment/get-status', { merchant_id: emu.merchant.merchant_id, payin_id: anchor.json.payin_id });
  const valid = { ...payinBody(emu, 'credit_card', 'http://127.0.0.1:9/'), ...payoutBody(emu, 'fps', 'http://127.0.0.1:9/') };
  const mutated = fc.record(
    Object.fromEntries(Object.keys(valid).map((k) => [k, fc.oneof(fc.constant(valid[k]), fc.anything(), fc.string(), fc.double(), fc.constant(null))])),
    { requiredKeys: [] },
  );
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...PATHS), fc.oneof(mutated, fc.jsonValue(), fc.string()), async (path, body) => {
      const text = typeof body === 'string' ? body : JSON.stringify(body);
      const r = await api(emu)(path, text ?? 'null');
      expect(r.status).toBeGreaterThanOrEqual(200);
      expect(r.status).toBeLessThan(500);
      if (r.status !== 200) {
        expect(r.json.status).toBe('error');
        expect(r.json.error_code).toMatch(/^\d{5}$/);
      }
    }),
    { numRuns: 150, interruptAfterTimeLimit: 15_000 },
  );
  const after = await api(emu)('/payment/get-status', { merchant_id: emu.merchant.merchant_id, payin_id: anchor.json.payin_id });
  expect(after.text).toBe(before.text);
}, 30_000);

test('random admin bodies and paths answer JSON, never 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(fc.constantFrom('/keys', '/faults', '/merchant', '/payins/x/complete', '/payouts/x/complete', '/deliveries/1/redeliver'), fc.jsonValue(), async (path, body) => {
      const r = await admin(emu)(path === '/faults' || path === '/merchant' ? 'PUT' : 'POST', path, body);
      expect(r.status).toBeLessThan(500);
    }),
    { numRuns: 80, interruptAfterTimeLimit: 10_000 },
  );
  await admin(emu)('DELETE', '/faults');
  await admin(emu)('PUT', '/merchant', { active: true, disabled_methods: [] });
});

test('headers with odd values and prototype keys in bodies are handled', async () => {
  const r1 = await api(emu)('/payment/create', '{"__proto__":{"admin":true},"constructor":{"prototype":{}}}');
  expect(r1.status).toBe(400);
  expect(({} as Record<string, unknown>).admin).toBeUndefined();
  const r2 = await api(emu)('/payment/create', payinBody(emu, 'blik', 'http://127.0.0.1:9/'), { 'idempotency-key': 'x'.repeat(300) });
  expect(r2.status).toBe(400);
  const r3 = await send(`${emu.baseUrl}/payment/%E0%A4%A`, { body: '{}', headers: { 'content-type': 'application/json' } });
  expect(r3.status).toBe(404);
});

test('merchant switches: an inactive merchant is 514, a disabled method 509', async () => {
  await admin(emu)('PUT', '/merchant', { disabled_methods: ['blik'] });
  const disabled = await api(emu)('/payment/create', payinBody(emu, 'blik', 'http://127.0.0.1:9/'));
  expect(disabled.json).toMatchObject({ status_code: 509, reason_code: 'PAYMENT_METHOD_NOT_ENABLED' });
  expect(disabled.json.details).toHaveProperty('payment_method');
  await admin(emu)('PUT', '/merchant', { active: false, disabled_methods: [] });
  const inactive = await api(emu)('/payment/create', payinBody(emu, 'blik', 'http://127.0.0.1:9/'));
  expect(inactive.json).toMatchObject({ status_code: 514, reason_code: 'MERCHANT_INACTIVE' });
  await admin(emu)('PUT', '/merchant', { active: true });
  expect((await api(emu)('/payment/create', payinBody(emu, 'blik', 'http://127.0.0.1:9/'))).status).toBe(200);
});
