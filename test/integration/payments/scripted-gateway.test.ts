// Pay-in creates against a gateway the test scripts (test/helpers/service-harness.ts): the
// services on a real ledger, no emulator, no socket. What the gateway was sent, what it answered
// and what the ledger keeps of it, each in a few lines.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { payinForm } from '../../helpers/fixtures';
import { serviceHarness, type ServiceHarness } from '../../helpers/service-harness';

let h: ServiceHarness;
beforeEach(async () => {
  h = await serviceHarness();
});
afterEach(async () => {
  await h.close();
});

const form = (requestId: string) => ({ ...payinForm('open_banking', { requestId }), profileId: h.profile.id });

describe('a pay-in create against a scripted gateway', () => {
  it('sends one request with the merchant and the notification link, and keeps the gateway id and status it answered', async () => {
    h.gateway.answer('/payment/create', { status: 'success', status_code: 100, payin_id: 'pid-scripted-1', request_id: 'r-1', redirect_url: 'https://pay.example/1' });
    const result = await h.call('payins:create', form('r-1'));
    expect(result).toMatchObject({ outcome: 'succeeded', tries: 1, payin: { payinId: 'pid-scripted-1', statusCode: '100', redirectUrl: 'https://pay.example/1' } });
    expect(h.gateway.requests).toEqual([{ path: '/payment/create', body: expect.objectContaining({ request_id: 'r-1', merchant_id: 'm-1', notification_link: expect.stringMatching(/^http:\/\/127\.0\.0\.1:9\/n\//) }) }]);
    expect(h.pushesOf('payins:payin-changed').at(-1)).toMatchObject({ payinId: 'pid-scripted-1' });
  });

  it('leaves the outcome unknown, never failed, when the gateway cannot be reached', async () => {
    const result = await h.call('payins:create', form('r-2'));
    expect(result).toMatchObject({ outcome: 'unknown', attempt: { state: 'unknown', sendCount: 1 }, payin: { payinId: null } });
    expect(await h.repos.attempts.byKey(result.attempt?.idempotencyKey as string)).toMatchObject({ state: 'unknown' });
  });
});
