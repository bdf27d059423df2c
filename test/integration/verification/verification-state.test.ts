// One verification state, derived once in main (ledger/verification-state.ts) and carried the same
// by every way a transaction leaves main: its view (list, detail, push), the global search, the
// pay-ins CSV and the reconciliation exception lists. The detail also names the notifications
// whose claim was contradicted: which one claimed what, when. Real core, real emulator, real
// listener.
import { afterEach, describe, expect, it } from 'vitest';
import type { PayinView } from '../../../src/shared/contract';
import { FAST_VERIFICATION, payinClaim, payinForm, startHarness, unique, waitFor, type Harness } from './harness';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

type Created = PayinView & { payinId: string };

async function createPayin(harness: Harness, requestId: string, email?: string): Promise<Created> {
  const result = await harness.call('payins:create', payinForm({ requestId, ...(email ? { email } : {}) }));
  if (!result.payin?.payinId) throw new Error(`no pay-in: ${result.message}`);
  return result.payin as Created;
}

/** The pay-in's verification as each way out of main carries it. */
async function everywhere(harness: Harness, p: Created, list: 'status_mismatch' | 'notified_not_verified' | null) {
  const { payin, contradictions } = await harness.call('payins:timeline', { id: p.id });
  const listed = (await harness.call('payins:list', { search: p.requestId })).items.find((r) => r.id === p.id);
  const found = (await harness.call('search:lookup', { query: p.requestId })).matches.find((m) => m.id === p.id);
  const csv = await harness.call('payins:export-csv', { search: p.requestId });
  const [header, line] = csv.csv.trimEnd().split('\r\n');
  // The verification column is third from the end (only mismatch and profile_id follow it): counted from there, a quoted comma earlier cannot shift it.
  expect((header ?? '').split(',').at(-3)).toBe('verification');
  const exception = list === null ? undefined : (await harness.call('reconciliation:exceptions', { kind: list })).items.find((r) => r.rowId === p.id);
  return {
    view: payin.verification,
    list: listed?.verification,
    search: found?.verification,
    csv: (line ?? '').split(',').at(-3),
    exception: exception?.verification,
    payin,
    contradictions,
  };
}

describe('the verification state', () => {
  it('is mismatch everywhere after a notification claims 200 on a verified final 302, and names that notification', async () => {
    const harness = (h = await startHarness());
    const declined = await createPayin(harness, unique('declined'), 'ana+s302@example.com');
    await waitFor(() => harness.call('payins:get', { id: declined.id }), (d) => d.payin.statusCode === '302' && d.payin.verification === 'verified', 'the verified decline');

    expect((await harness.notify(payinClaim(declined.payinId, declined.requestId, 200))).status).toBe(200);
    await waitFor(() => harness.call('payins:get', { id: declined.id }), (d) => d.payin.mismatch, 'the contradiction recorded');

    const seen = await everywhere(harness, declined, 'status_mismatch');
    expect(seen).toMatchObject({ view: 'mismatch', list: 'mismatch', search: 'mismatch', csv: 'mismatch', exception: 'mismatch' });
    // The claim that agreed before is still the latest accepted one; the contradicting one is named beside it.
    expect(seen.payin).toMatchObject({ statusCode: '302', lastNotifiedStatus: '302', lastVerifiedStatus: '302' });
    const [notification] = (await harness.call('notifications:list', { payinRowId: declined.id, outcomes: ['mismatch'] })).items;
    expect(seen.contradictions).toEqual([{ notificationId: notification?.id, statusCode: '200', receivedAt: notification?.receivedAt, detail: expect.stringContaining('contradicted by notification status 200') }]);
  });

  it('is verified everywhere when the gateway confirms a status code the catalogue does not know', async () => {
    const harness = (h = await startHarness());
    const odd = await createPayin(harness, unique('odd'));
    // The gateway completes it with 777 and notifies it; the verifier's read says 777 too.
    expect((await harness.admin(`/payins/${odd.payinId}/complete`, { status_code: 777 })).status).toBe(200);
    await waitFor(() => harness.call('payins:get', { id: odd.id }), (d) => d.payin.statusCode === '777' && d.payin.claimState === 'verified', 'the unknown code confirmed');

    const seen = await everywhere(harness, odd, null);
    expect(seen).toMatchObject({ view: 'verified', list: 'verified', search: 'verified', csv: 'verified' });
    expect(seen.payin).toMatchObject({ statusKnown: false, final: false, lastNotifiedStatus: '777', lastVerifiedStatus: '777' });
    expect(seen.contradictions).toEqual([]);
  });

  it('is claimed everywhere while a notification claims news no status read has confirmed', async () => {
    const harness = (h = await startHarness({ verification: { timings: { ...FAST_VERIFICATION.timings, concurrency: 0 } } }));
    const pending = await createPayin(harness, unique('claimed'));
    expect((await harness.notify(payinClaim(pending.payinId, pending.requestId, 200))).status).toBe(200);
    await waitFor(() => harness.call('payins:get', { id: pending.id }), (d) => d.payin.claimState === 'unverified', 'the claim');

    const seen = await everywhere(harness, pending, 'notified_not_verified');
    expect(seen).toMatchObject({ view: 'claimed', list: 'claimed', search: 'claimed', csv: 'claimed', exception: 'claimed' });
  });
});
