// Pay-in lifecycle (spec 1, 3.1, 6): 100 + redirect_url, the hosted page (approve, decline with
// any code, abandon), automatic completion by "+s<code>", status reads by payin_id and
// request_id at every stage, and v2_payin_notification with the final result.
import { describe, expect, test } from 'vitest';
import type { EmulatorHandle } from '../../src/emulator/index';
import { PAYIN_STATUS_CATALOGUE } from '../../src/shared/spec/codes';
import { admin, api, payinBody, Receiver, send, useEmulator, waitFor } from './helpers';

let emu: EmulatorHandle;
let rc: Receiver;
useEmulator((e, r) => ([emu, rc] = [e, r]));

const status = (q: Record<string, string | undefined>) => api(emu)('/payment/get-status', { merchant_id: emu.merchant.merchant_id, ...q });
const notified = (payinId: string) => waitFor(() => rc.delivered('payin_id', payinId, 'v2_payin_notification')[0], 4_000, `notification of ${payinId}`);

async function createPayin(over: Record<string, unknown> = {}, method = 'credit_card') {
  const r = await api(emu)('/payment/create', payinBody(emu, method, rc.url(), over));
  expect(r.status).toBe(200);
  return r.json as { payin_id: string; request_id: string; redirect_url: string };
}

describe('hosted redirect page', () => {
  test('shows the pay-in without the card number and offers approve, every decline code and abandon', async () => {
    const p = await createPayin();
    const page = await send(p.redirect_url, { method: 'GET' });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.text).toContain(p.request_id);
    expect(page.text).not.toContain('4111111111111111');
    expect(page.text).not.toMatch(/<script|https?:\/\/(?!shop)/i);
    for (const c of PAYIN_STATUS_CATALOGUE.filter((x) => x.code !== 100 && x.code !== 200)) expect(page.text).toContain(`value="${c.code}"`);
    expect(page.text).toMatch(/value="abandon"/);
  });

  test('approve: 200 notification, redirect to success_url, status reads at every stage', async () => {
    const p = await createPayin();
    for (const q of [{ payin_id: p.payin_id }, { request_id: p.request_id }]) {
      const s = await status(q);
      expect(s.json).toMatchObject({ status: 'success', status_code: 100, payin_id: p.payin_id, request_id: p.request_id, currency: 'EUR', payment_method: 'credit_card' });
      expect(s.text).toContain('"amount":25.50');
    }
    const go = await send(p.redirect_url, { body: 'action=approve', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(go.status).toBe(303);
    expect(go.headers.get('location')).toBe('https://shop.example/success');
    const n = await notified(p.payin_id);
    expect(n.body).toMatchObject({ event: 'v2_payin_notification', status: 'success', status_code: 200, payin_id: p.payin_id, request_id: p.request_id, currency: 'EUR', payment_method: 'credit_card' });
    expect(n.raw).toContain('"amount":25.50');
    expect((await status({ request_id: p.request_id })).json).toMatchObject({ status: 'success', status_code: 200, reason_code: null });
  });

  test('decline with a chosen code: that code, its reason, redirect to fail_url', async () => {
    const p = await createPayin();
    const go = await send(p.redirect_url, { body: 'action=decline&status_code=320', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(go.headers.get('location')).toBe('https://shop.example/fail');
    const n = await notified(p.payin_id);
    expect(n.body).toMatchObject({ status: 'failed', status_code: 320, reason_code: 'BIN_BLACKLISTED' });
  });

  test('decline with 101 leaves the pay-in pending (pending_url) without a notification', async () => {
    const p = await createPayin();
    const go = await send(p.redirect_url, { body: 'action=decline&status_code=101', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(go.headers.get('location')).toBe('https://shop.example/pending');
    expect((await status({ payin_id: p.payin_id })).json.status_code).toBe(101);
    expect(rc.delivered('payin_id', p.payin_id)).toHaveLength(0);
  });

  test('abandon: 305 USER_ABANDONED and back to back_url', async () => {
    const p = await createPayin();
    const go = await send(p.redirect_url, { body: 'action=abandon', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(go.headers.get('location')).toBe('https://shop.example/back');
    expect((await notified(p.payin_id)).body).toMatchObject({ status_code: 305, reason_code: 'USER_ABANDONED' });
  });

  test('a final pay-in cannot be changed again (page, admin)', async () => {
    const p = await createPayin();
    await admin(emu)('POST', `/payins/${p.payin_id}/complete`, { status_code: 200 });
    const again = await send(p.redirect_url, { body: 'action=decline&status_code=500', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(again.status).toBe(200);
    expect(again.text).toContain('finished');
    expect((await admin(emu)('POST', `/payins/${p.payin_id}/complete`, { status_code: 500 })).status).toBe(409);
    expect((await status({ payin_id: p.payin_id })).json.status_code).toBe(200);
  });

  test('an unknown pay-in page is 404', async () => {
    expect((await send(`${emu.hostedUrl}/00000000-0000-0000-0000-000000000000`, { method: 'GET' })).status).toBe(404);
  });
});

describe('automatic scenarios by e-mail tag: every code of 3.1', () => {
  const finals = PAYIN_STATUS_CATALOGUE.filter((c) => c.final);
  test(`each of the ${finals.length} final codes is reached with its reason code, within 2 s`, async () => {
    const created = await Promise.all(finals.map(async (c) => ({ c, p: await createPayin({ email: `ana+s${c.code}@example.com` }), at: Date.now() })));
    for (const { c, p, at } of created) {
      const n = await notified(p.payin_id);
      expect(n.body.status_code).toBe(c.code);
      expect(n.body.reason_code).toBe(c.defaultReason);
      expect(n.body.status).toBe(c.code === 200 ? 'success' : 'failed');
      expect(n.at - at).toBeLessThan(2_000);
    }
  });

  test('+s101 moves to 101 and waits; +s100 stays at 100; the admin API completes them', async () => {
    const p101 = await createPayin({ email: 'bo+s101@example.com' }, 'open_banking');
    const p100 = await createPayin({ email: 'bo+s100@example.com' }, 'open_banking');
    await waitFor(async () => ((await status({ payin_id: p101.payin_id })).json.status_code === 101 ? true : undefined), 2_000, '101');
    expect((await status({ payin_id: p100.payin_id })).json.status_code).toBe(100);
    const done = await admin(emu)('POST', `/payins/${p101.payin_id}/complete`, { status_code: 200 });
    expect(done.json.payin.status_code).toBe(200);
    expect((await notified(p101.payin_id)).body.status_code).toBe(200);
  });

  test('an unknown code (+s777) is produced as-is, so clients can be tested on codes they do not know', async () => {
    const p = await createPayin({ email: 'x+s777@example.com' });
    expect((await notified(p.payin_id)).body).toMatchObject({ status_code: 777, reason_code: null, status: 'failed' });
  });

  test('without a tag the pay-in waits for the consumer', async () => {
    const p = await createPayin({ email: 'plain@example.com' });
    await new Promise((r) => setTimeout(r, 300));
    expect((await status({ payin_id: p.payin_id })).json.status_code).toBe(100);
  });
});

describe('admin completion and status read edge cases', () => {
  test('POST /payins/{id}/complete takes any reason_code override; bad codes are 400; unknown ids 404', async () => {
    const p = await createPayin();
    const done = await admin(emu)('POST', `/payins/${p.payin_id}/complete`, { status_code: 500, reason_code: 'DO_NOT_HONOR' });
    expect(done.json.payin).toMatchObject({ status_code: 500, reason_code: 'DO_NOT_HONOR' });
    expect((await notified(p.payin_id)).body.reason_code).toBe('DO_NOT_HONOR');
    expect((await admin(emu)('POST', `/payins/${p.payin_id}/complete`, { status_code: 'abc' })).status).toBe(400);
    expect((await admin(emu)('POST', '/payins/nope/complete', { status_code: 200 })).status).toBe(404);
  });

  test('status read: neither payin_id nor request_id is 510; unknown is 400; request_id mismatch is 400', async () => {
    const none = await status({});
    expect(none.status).toBe(400);
    expect(none.json).toMatchObject({ status_code: 510, reason_code: 'MISSING_PARAMS' });
    expect(Object.keys(none.json.details).sort()).toEqual(['payin_id', 'request_id']);
    const unknown = await status({ payin_id: '00000000-0000-4000-8000-000000000000' });
    expect(unknown.json).toMatchObject({ status_code: 512, reason_code: 'INVALID_PARAMS', payin_id: null });
    const notUuid = await status({ payin_id: 'abc' });
    expect(notUuid.json.details).toHaveProperty('payin_id');
    const p = await createPayin();
    expect((await status({ payin_id: p.payin_id, request_id: 'other' })).status).toBe(400);
  });
});
