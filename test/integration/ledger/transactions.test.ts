import { afterEach, describe, expect, it } from 'vitest';
import { PAYIN_STATUS_CATALOGUE, PAYOUT_STATUS_CATALOGUE } from '../../../src/shared/spec/codes';
import type { PayinRecord } from '../../../src/main/ledger/repositories/payins';
import { testEngine, testLedger, type TestLedger } from '../../helpers/ledger';
import { applyCreateAnswer, applyStatus, upsertFromCreate } from '../../../src/main/services/payments/apply';

let ledger: TestLedger | undefined;
afterEach(async () => {
  await ledger?.close();
  ledger = undefined;
});

function newPayin(l: TestLedger, requestId = 'req-1', method = 'credit_card', amount = '10.5'): Promise<PayinRecord> {
  return l.repos.payins.recordRequest({ profileId: l.profile.id, kind: 'payin', requestId, method, amount, currency: 'EUR', email: 'Ana@Example.com' });
}

const finalPayinCodes = PAYIN_STATUS_CATALOGUE.filter((e) => e.final).map((e) => e.code);
const pendingPayinCodes = PAYIN_STATUS_CATALOGUE.filter((e) => !e.final).map((e) => e.code);

describe('pay-ins and payouts: exact money, forward-only status, mismatches', () => {
  it('stores the amount as canonical exact text for the method and refuses an amount it would have to round', async () => {
    ledger = await testLedger();
    expect((await newPayin(ledger, 'a', 'credit_card', '10.5')).amount).toBe('10.50');
    expect((await newPayin(ledger, 'b', 'crypto', '0.1000000001')).amount).toBe('0.1000000001');
    expect((await newPayin(ledger, 'c', 'blik', '123456789012345.99')).amount).toBe('123456789012345.99');
    await expect(newPayin(ledger, 'd', 'credit_card', '10.555')).rejects.toThrow(/at most 2 decimals/);
    const type = testEngine === 'sqlite' ? 'typeof(amount)' : 'pg_typeof(amount)::text';
    expect(await ledger.db.get(`SELECT ${type} AS t, amount FROM payins WHERE request_id = 'b'`)).toEqual({ t: 'text', amount: '0.1000000001' });
  });

  it('records the create answer: gateway id, redirect, status with its category', async () => {
    ledger = await testLedger();
    const { payins, profile } = { payins: ledger.repos.payins, profile: ledger.profile };
    const row = await upsertFromCreate(payins, 
      { profileId: profile.id, kind: 'payin', requestId: 'req-1', method: 'credit_card', amount: '10.50', currency: 'EUR', email: 'a@b.c' },
      { gatewayId: 'p-1', statusCode: 100, redirectUrl: 'http://gw/pay/p-1', createdAt: '2026-03-01T10:00:00Z' },
    );
    expect(row).toMatchObject({ payinId: 'p-1', statusCode: '100', statusCategory: 'pending', final: false, redirectUrl: 'http://gw/pay/p-1', verification: 'pending' });
    expect((await payins.byPayinId('p-1'))?.id).toBe(row.id);
    expect((await payins.byRequestId(profile.id, 'req-1'))?.id).toBe(row.id);
  });

  it('never moves a final status back to pending, whatever the order of arrival', async () => {
    ledger = await testLedger();
    const { payins } = ledger.repos;
    for (const finalCode of finalPayinCodes) {
      const row = await newPayin(ledger, `req-${finalCode}`);
      await applyStatus(payins, row.id, { statusCode: 100, source: 'create' });
      expect((await applyStatus(payins, row.id, { statusCode: finalCode, source: 'status_read' })).outcome).toBe('advanced');
      for (const pending of pendingPayinCodes) {
        const late = await applyStatus(payins, row.id, { statusCode: pending, source: 'notification' });
        expect(late.outcome).toBe('stale');
        expect(late.record).toMatchObject({ statusCode: String(finalCode), final: true });
      }
    }
  });

  it('moves pending codes forward only (101 after 100; not 100 after 101)', async () => {
    ledger = await testLedger();
    const { payouts } = ledger.repos;
    const row = await payouts.recordRequest({ profileId: ledger.profile.id, merchantReference: 'po-1', method: 'fps', amount: '25', currency: 'GBP', email: 'b@c.d' });
    const [first, second] = PAYOUT_STATUS_CATALOGUE.filter((e) => !e.final).map((e) => e.code);
    expect((await applyStatus(payouts, row.id, { statusCode: first as string, source: 'create' })).outcome).toBe('advanced');
    expect((await applyStatus(payouts, row.id, { statusCode: second as string, source: 'status_read' })).outcome).toBe('advanced');
    expect((await applyStatus(payouts, row.id, { statusCode: first as string, source: 'notification' })).outcome).toBe('stale');
    expect((await payouts.byId(row.id))?.statusCode).toBe(second);
  });

  it('keeps an unknown code exactly as sent, flags it unknown and lets a known final code replace it', async () => {
    ledger = await testLedger();
    const { payins } = ledger.repos;
    const row = await newPayin(ledger);
    await applyStatus(payins, row.id, { statusCode: 100, source: 'create' });
    const unknown = await applyStatus(payins, row.id, { statusCode: 777, reasonCode: 'BRAND_NEW_REASON', source: 'status_read' });
    expect(unknown.outcome).toBe('advanced');
    expect(unknown.record).toMatchObject({ statusCode: '777', statusKnown: false, statusCategory: 'unknown', final: false, reasonCode: 'BRAND_NEW_REASON', reasonKnown: false });
    expect((await applyStatus(payins, row.id, { statusCode: 101, source: 'status_read' })).outcome).toBe('stale');
    expect((await applyStatus(payins, row.id, { statusCode: 200, source: 'status_read' })).record).toMatchObject({ statusCode: '200', final: true, statusKnown: true });
  });

  it('refuses at the database level to change a final status, even through raw SQL', async () => {
    ledger = await testLedger();
    const row = await newPayin(ledger);
    await applyStatus(ledger.repos.payins, row.id, { statusCode: 302, source: 'create' });
    await expect(ledger.db.run("UPDATE payins SET status_code = '100', final = 0 WHERE id = ?", [row.id])).rejects.toThrow(/a final status never changes/);
    await expect(ledger.db.run("UPDATE payins SET status_code = '200' WHERE id = ?", [row.id])).rejects.toThrow(/a final status never changes/);
    expect(await ledger.repos.payins.byId(row.id)).toMatchObject({ statusCode: '302', final: true });
  });

  it('marks a notified final status verified once a later status read agrees', async () => {
    ledger = await testLedger();
    const { payins } = ledger.repos;
    const row = await newPayin(ledger);
    await applyStatus(payins, row.id, { statusCode: 100, source: 'create' });
    await applyStatus(payins, row.id, { statusCode: 100, source: 'status_read' }); // an early read proves nothing about the later result
    const notified = (await applyStatus(payins, row.id, { statusCode: 200, source: 'notification' })).record;
    expect(notified).toMatchObject({ lastNotifiedStatus: '200', lastVerifiedStatus: '100', verification: 'claimed', mismatch: false });
    const read = (await applyStatus(payins, row.id, { statusCode: 200, source: 'status_read' })).record;
    expect(read).toMatchObject({ verification: 'verified', mismatch: false });
  });

  it('flags a mismatch when the gateway now says something else than the final status we hold', async () => {
    ledger = await testLedger();
    const { payins } = ledger.repos;
    const row = await newPayin(ledger);
    await applyStatus(payins, row.id, { statusCode: 200, source: 'create' });
    const read = await applyStatus(payins, row.id, { statusCode: 101, source: 'status_read' });
    expect(read.outcome).toBe('stale');
    expect(read.record).toMatchObject({ statusCode: '200', lastVerifiedStatus: '101', mismatch: true, verification: 'mismatch' });
    // The gateway agreeing again clears a read-based mismatch: it is about what the gateway says now.
    expect((await applyStatus(payins, row.id, { statusCode: 200, source: 'status_read' })).record).toMatchObject({ mismatch: false, verification: 'verified' });
  });

  it('keeps the first final status and a permanent conflict when a notification claims another final result', async () => {
    ledger = await testLedger();
    const { payins } = ledger.repos;
    const row = await newPayin(ledger);
    await applyStatus(payins, row.id, { statusCode: 302, reasonCode: 'RISK_BLOCKED', source: 'create' });
    const claim = await applyStatus(payins, row.id, { statusCode: 200, source: 'notification' });
    expect(claim.outcome).toBe('conflict');
    expect(claim.record).toMatchObject({ statusCode: '302', reasonCode: 'RISK_BLOCKED', lastNotifiedStatus: '200', mismatch: true });
    expect(claim.record.conflict).toMatch(/final status 302 contradicted by notification status 200/);
    expect((await applyStatus(payins, row.id, { statusCode: 302, source: 'status_read' })).record.mismatch).toBe(true);
    expect((await payins.page({ mismatch: true })).items.map((p) => p.id)).toEqual([row.id]);
  });

  it('records a different gateway id than the one held as a conflict instead of overwriting it', async () => {
    ledger = await testLedger();
    const { payouts } = ledger.repos;
    const request = { profileId: ledger.profile.id, merchantReference: 'po-1', method: 'crypto', amount: '0.5', currency: 'USD', email: 'x@y.z' };
    const row = await upsertFromCreate(payouts, request, { gatewayId: 'po-A', statusCode: 'P100' });
    const again = await payouts.attachGatewayId(row.id, 'po-B');
    expect(again).toMatchObject({ payoutId: 'po-A', mismatch: true });
    expect(await payouts.byPayoutId('po-B')).toBeUndefined();
  });

  it('refuses to record the same reference twice with other money facts, and is idempotent otherwise', async () => {
    ledger = await testLedger();
    const first = await newPayin(ledger, 'req-1', 'credit_card', '10.50');
    expect((await newPayin(ledger, 'req-1', 'credit_card', '10.5')).id).toBe(first.id);
    await expect(newPayin(ledger, 'req-1', 'credit_card', '10.51')).rejects.toThrow(/already recorded/);
  });

  it('finds pay-ins by e-mail case-insensitively and by any reference in global search', async () => {
    ledger = await testLedger();
    const { payins } = ledger.repos;
    const a = await newPayin(ledger, 'req-a');
    await applyCreateAnswer(payins, a.id, { gatewayId: 'pid-a', statusCode: 100 });
    ledger.clock.advance(10);
    const b = await newPayin(ledger, 'req-b');
    expect((await payins.byEmail('ana@example.COM')).map((p) => p.id)).toEqual([b.id, a.id]);
    expect((await payins.search('pid-a')).map((p) => p.id)).toEqual([a.id]);
    expect((await payins.search('req-b')).map((p) => p.id)).toEqual([b.id]);
    expect(await payins.search('ANA@example.com')).toHaveLength(2);
    expect((await payins.countByStatus()).get('100')).toBe(1);
  });
});
