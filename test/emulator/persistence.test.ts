// State persists in SQLite with a data file (merchant credentials, pay-ins, keys, idempotency,
// pending scenarios); without one it lives in memory only.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { admin, api, payinBody, Receiver, startTestEmulator, waitFor } from './helpers';

const dir = mkdtempSync(join(tmpdir(), 'paydesk-emu-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('--data FILE', () => {
  test('credentials, pay-ins and idempotency keys survive a restart', async () => {
    const file = join(dir, 'state.db');
    const rc = await new Receiver().start();
    const first = await startTestEmulator({ dataFile: file });
    const key = randomUUID();
    const body = payinBody(first, 'blik', rc.url());
    const created = await api(first)('/payment/create', body, { 'idempotency-key': key });
    await first.close();

    const second = await startTestEmulator({ dataFile: file });
    try {
      expect(second.merchant).toEqual(first.merchant);
      const read = await api(second)('/payment/get-status', { merchant_id: second.merchant.merchant_id, payin_id: created.json.payin_id });
      expect(read.json).toMatchObject({ status_code: 100, request_id: body.request_id });
      const replay = await api(second)('/payment/create', body, { 'idempotency-key': key });
      expect(replay.text).toBe(created.text);
    } finally {
      await second.close();
      await rc.close();
    }
  });

  test('a scenario pending at shutdown completes after the restart', async () => {
    const file = join(dir, 'resume.db');
    const rc = await new Receiver().start();
    const first = await startTestEmulator({ dataFile: file, scenarioTiming: { payinCompleteMs: 60_000, payoutProcessingMs: 60_000, payoutFinalMs: 60_000 } });
    const created = await api(first)('/payment/create', payinBody(first, 'blik', rc.url(), { email: 'r+s302@example.com' }));
    await first.close();
    const second = await startTestEmulator({ dataFile: file });
    try {
      const n = await waitFor(() => rc.delivered('payin_id', created.json.payin_id)[0], 3_000);
      expect(n.body.status_code).toBe(302);
    } finally {
      await second.close();
      await rc.close();
    }
  });

  test('fixed credentials override the stored ones', async () => {
    const file = join(dir, 'fixed.db');
    const a = await startTestEmulator({ dataFile: file });
    await a.close();
    const b = await startTestEmulator({ dataFile: file, merchant: { merchant_id: 'm-1', merchant_site_id: 's-1', merchant_token: 't-1' } });
    expect(b.merchant).toEqual({ merchant_id: 'm-1', merchant_site_id: 's-1', merchant_token: 't-1' });
    await b.close();
  });

  test('without a data file every start is a fresh state', async () => {
    const a = await startTestEmulator();
    await api(a)('/payment/create', payinBody(a, 'blik', 'http://127.0.0.1:9/'));
    expect((await admin(a)('GET', '/payins')).json.count).toBe(1);
    await a.close();
    const b = await startTestEmulator({ merchant: a.merchant });
    expect((await admin(b)('GET', '/payins')).json.count).toBe(0);
    await b.close();
  });
});
