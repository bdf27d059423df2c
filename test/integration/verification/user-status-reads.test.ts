// A person's "read the status" (payins:read-status, payouts:read-status) is the verifier's status
// read: the same client-side rate limit and Retry-After, the same claim resolution, the same
// conflict kinds, the same re-marking of contradicted notifications. Real core, real emulator.
import { afterEach, describe, expect, it } from 'vitest';
import type { PayinView } from '../../../src/shared/contract';
import { FAST_VERIFICATION, payinClaim, payinForm, payoutForm, startHarness, unique, waitFor, type Harness } from './harness';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The verifier never reads (no slot), so every read in the test is the person's. */
const VERIFIER_HELD = { timings: { ...FAST_VERIFICATION.timings, concurrency: 0 } };
/** The gateway's own notifications never arrive (each delivery attempt is dropped and rescheduled). */
const NO_DELIVERIES = { notifications: { fail_next: 100, fail_mode: 'drop' } };

async function open(overrides: Parameters<typeof startHarness>[0] = {}): Promise<Harness> {
  h = await startHarness(overrides);
  return h;
}

async function createPayin(harness: Harness, requestId: string): Promise<PayinView & { payinId: string }> {
  const result = await harness.call('payins:create', payinForm({ requestId })); // no scenario tag: the gateway holds it at 100
  if (!result.payin?.payinId) throw new Error(`no pay-in: ${result.message}`);
  return result.payin as PayinView & { payinId: string };
}

describe("a person's status read", () => {
  it('files an amount the gateway contradicts as an amount mismatch (facts), for pay-ins and payouts alike', async () => {
    const harness = await open({ verification: VERIFIER_HELD });
    await harness.admin('/faults', NO_DELIVERIES, 'PUT');
    const payin = await createPayin(harness, unique('amount-in'));
    const created = await harness.call('payouts:create', payoutForm({ reference: unique('amount-out') }));
    const payout = created.payout as NonNullable<typeof created.payout>;
    // The ledger's amounts no longer match what the gateway holds.
    await harness.core.ledger.run("UPDATE payins SET amount = '99.00' WHERE id = ?", [payin.id]);
    await harness.core.ledger.run("UPDATE payouts SET amount = '99.00' WHERE id = ?", [payout.id]);

    const readIn = await harness.call('payins:read-status', { payinId: payin.payinId });
    const readOut = await harness.call('payouts:read-status', { payoutId: payout.payoutId as string });
    expect(readIn.read).toMatchObject({ result: 'ok', statusCode: '100' });
    expect(readOut.read).toMatchObject({ result: 'ok' });
    expect(readIn.payin?.factsConflict).toMatch(/^status read: amount 10\.50 instead of 99\.00 at /);
    expect(readOut.payout?.factsConflict).toMatch(/^status read: amount 25\.00 instead of 99\.00 at /);
    for (const row of [readIn.payin, readOut.payout]) expect(row).toMatchObject({ mismatch: true, verification: 'mismatch', statusConflict: null });

    const amounts = await harness.call('reconciliation:exceptions', { kind: 'amount_mismatch' });
    expect(amounts.items.map((r) => [r.subject, r.rowId])).toEqual(expect.arrayContaining([['payin', payin.id], ['payout', payout.id]]));
    expect((await harness.call('reconciliation:exceptions', { kind: 'status_mismatch' })).items).toEqual([]);
  });

  it('re-marks the notification whose claim it contradicts as a mismatch, and pushes the change', async () => {
    const harness = await open({ verification: VERIFIER_HELD });
    await harness.admin('/faults', NO_DELIVERIES, 'PUT');
    const payin = await createPayin(harness, unique('claim'));
    expect((await harness.notify(payinClaim(payin.payinId, payin.requestId, 200))).status).toBe(200);
    await waitFor(() => harness.call('payins:get', { id: payin.id }), (d) => d.payin.claimState === 'unverified', 'the forged claim');
    // The gateway declines it: the claimed 200 is contradicted by a final 302.
    expect((await harness.admin(`/payins/${payin.payinId}/complete`, { status_code: 302 })).status).toBe(200);

    const { read, payin: row } = await harness.call('payins:read-status', { payinId: payin.payinId });
    expect(read).toMatchObject({ result: 'ok', statusCode: '302' });
    expect(row).toMatchObject({ statusCode: '302', final: true, claimState: 'contradicted', mismatch: true, verification: 'mismatch', factsConflict: null });
    expect(row?.statusConflict).toMatch(/notified status 200 contradicted by the gateway's status read status 302/);

    const [forged] = (await harness.call('notifications:list', { payinRowId: payin.id })).items;
    expect(forged).toMatchObject({ outcome: 'mismatch', statusCode: '200', detail: expect.stringMatching(/the gateway's status read says status 302/) });
    expect(harness.pushesOf('notifications:notification-changed')).toContainEqual(expect.objectContaining({ id: forged?.id, outcome: 'mismatch' }));
    expect(harness.pushesOf('payins:payin-changed').at(-1)).toMatchObject({ id: payin.id, claimState: 'contradicted', statusConflict: row?.statusConflict });
  });

  it('answers "rate limited, retry in N s" at once when the gateway asks to wait, and sends nothing more until then', async () => {
    const harness = await open({ verification: VERIFIER_HELD });
    await harness.admin('/faults', { rate_limit: { burst: 1, refill_per_second: 0.1 } }, 'PUT'); // one read, then Retry-After: 10
    const payin = await createPayin(harness, unique('limited'));
    expect((await harness.call('payins:read-status', { payinId: payin.payinId })).read).toMatchObject({ result: 'ok', statusCode: '100', retryAfterSeconds: null });

    let started = Date.now();
    const limited = await harness.call('payins:read-status', { payinId: payin.payinId });
    expect(Date.now() - started).toBeLessThan(1_500); // not blocked for the 10 s
    expect(limited.read).toMatchObject({ result: 'rate_limited', httpStatus: 429, retryAfterSeconds: 10, error: expect.stringMatching(/retry in 10 s/) });
    expect(limited.payin).toMatchObject({ id: payin.id, statusCode: '100' });

    started = Date.now();
    const held = await harness.call('payins:read-status', { requestId: payin.requestId });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(held.read).toMatchObject({ result: 'rate_limited', httpStatus: null, respondedAt: null, error: expect.stringMatching(/^not sent: .* retry in (9|10) s$/) });
    expect(held.read.retryAfterSeconds).toBeGreaterThanOrEqual(9);
    expect(held.read.retryAfterSeconds).toBeLessThanOrEqual(10);
    // The timeline keeps all three; the third never reached the gateway.
    const { statusReads } = await harness.call('payins:get', { id: payin.id });
    expect(statusReads.map((r) => [r.result, r.httpStatus])).toEqual([['ok', 200], ['rate_limited', 429], ['rate_limited', null]]);
  });

  it("holds the verifier's reads for the Retry-After it met: one rate limit for every read", async () => {
    const harness = await open();
    await harness.admin('/faults', { rate_limit: { burst: 1, refill_per_second: 0.25 } }, 'PUT'); // one read, then Retry-After: 4
    const payin = await createPayin(harness, unique('shared'));
    await harness.call('payins:read-status', { payinId: payin.payinId });
    const limited = await harness.call('payins:read-status', { payinId: payin.payinId });
    expect(limited.read).toMatchObject({ result: 'rate_limited', httpStatus: 429, retryAfterSeconds: 4 });

    // A claim queues the verifier's read at once; it goes out only when the Retry-After has passed.
    expect((await harness.notify(payinClaim(payin.payinId, payin.requestId, 200))).status).toBe(200);
    const reads = await waitFor(
      async () => (await harness.call('payins:get', { id: payin.id })).statusReads,
      (list) => list.length >= 3,
      "the verifier's read",
      10_000,
    );
    const verifierRead = reads[2];
    expect(verifierRead).toMatchObject({ result: 'ok', httpStatus: 200, statusCode: '100' });
    expect(Date.parse(verifierRead?.requestedAt ?? '') - Date.parse(limited.read.requestedAt)).toBeGreaterThanOrEqual(3_900);
  });
});
