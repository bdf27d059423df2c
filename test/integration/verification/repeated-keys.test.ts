// A notification that repeats a key with another value is ambiguous (which
// value counts is the parser's choice; the emulator refuses such a body). The listener stores it
// raw, answers 400, lists it as malformed and never applies it, not even at the next start.
// Real core, real listener over HTTP, real ledger file.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, waitFor, type Harness } from './harness';
import { upsertFromCreate } from '../../../src/main/services/payments/apply';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

describe('a notification with a repeated key', () => {
  it('is kept raw as malformed and never applied to the pay-in it names', async () => {
    const profileId = await h.profileId();
    const payinId = crypto.randomUUID();
    const row = await upsertFromCreate(h.repos().payins, 
      { profileId, kind: 'payin', requestId: `rk-${payinId}`, method: 'open_banking', amount: '10.50', currency: 'EUR', email: 'ana@example.com' },
      { gatewayId: payinId, statusCode: 100 },
    );
    const body = `{"event":"v2_payin_notification","payin_id":"${payinId}","status_code":302,"status_code":200,"amount":10.50,"currency":"EUR"}`;
    const reply = await h.notify(body);
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.body)).toMatchObject({ status: 'rejected', reason: expect.stringContaining('Duplicate key "status_code"') });

    const [pushed] = await waitFor(() => h.pushesOf('notifications:notification-changed'), (list) => list.length === 1, 'the malformed push');
    expect(pushed).toMatchObject({ outcome: 'malformed', answerStatus: 400, event: null, transactionRef: null, statusCode: null, processedAt: null });
    expect((await h.call('notifications:list', { outcomes: ['malformed'] })).items.map((n) => n.id)).toEqual([pushed?.id]);
    expect((await h.call('notifications:get', { id: pushed?.id as number })).body).toBe(body);

    // Restarted: start-up applies what is pending and retries orphans; a malformed one is neither.
    await h.restart();
    const after = await h.call('notifications:get', { id: pushed?.id as number });
    expect(after).toMatchObject({ outcome: 'malformed', payinRowId: null, processedAt: null });
    expect(await h.repos().payins.byId(row.id)).toMatchObject({ statusCode: '100', lastNotifiedStatus: null });
  });
});
