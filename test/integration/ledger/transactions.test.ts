import { afterEach, describe, expect, it } from 'vitest';
import { PAYIN_STATUS_CATALOGUE, PAYOUT_STATUS_CATALOGUE } from '../../../src/shared/spec/codes';
import type { PayinRecord } from '../../../src/main/ledger/repositories/payins';
import { testLedger, type TestLedger } from '../../helpers/ledger';

let ledger: TestLedger;
afterEach(() => ledger?.close());

function newPayin(l: TestLedger, requestId = 'req-1', method = 'credit_card', amount = '10.5'): PayinRecord {
  return l.repos.payins.recordRequest({ profileId: l.profile.id, kind: 'payin', requestId, method, amount, currency: 'EUR', email: 'Ana@Example.com' });
}

const finalPayinCodes = PAYIN_STATUS_CATALOGUE.filter((e) => e.final).map((e) => e.code);
const pendingPayinCodes = PAYIN_STATUS_CATALOGUE.filter((e) => !e.final).map((e) => e.code);

describe('pay-ins and payouts: exact money, forward-only status, mismatches', () => {
  it('stores the amount as canonical exact text for the method and refuses an amount it would have to round', () => {
    ledger = testLedger();
    expect(newPayin(ledger, 'a', 'credit_card', '10.5').amount).toBe('10.50');
    expect(newPayin(ledger, 'b', 'crypto', '0.1000000001').amount).toBe('0.1000000001');
    expect(newPayin(ledger, 'c', 'blik', '123456789012345.99').amount).toBe('123456789012345.99');
    expect(() => newPayin(ledger, 'd', 'credit_card', '10.555')).toThrow(/at most 2 decimals/);
    const stored = ledger.db.prepare("SELECT typeof(amount) AS t, amount FROM payins WHERE request_id = 'b'").get();
    expect(stored).toEqual({ t: 'text', amount: '0.1000000001' });
  });

  it('records the create answer: gateway id, redirect, status with its category', () => {
    ledger = testLedger();
    const { payins, profile } = { payins: ledger.repos.payins, profile: ledger.profile };
    const row = payins.upsertFromCreate(
      { profileId: profile.id, kind: 'payin', requestId: 'req-1', method: 'credit_card', amount: '10.50', currency: 'EUR', email: 'a@b.c' },
      { payinId: 'p-1', statusCode: 100, redirectUrl: 'http://gw/pay/p-1', createdAt: '2026-03-01T10:00:00Z' },
    );
    expect(row).toMatchObject({ payinId: 'p-1', statusCode: '100', statusCategory: 'pending', final: false, redirectUrl: 'http://gw/pay/p-1', verification: 'unverified' });
    expect(payins.byPayinId('p-1')?.id).toBe(row.id);
    expect(payins.byRequestId(profile.id, 'req-1')?.id).toBe(row.id);
  });

  it('never moves a final status back to pending, whatever the order of arrival', () => {
    ledger = testLedger();
    const { payins } = ledger.repos;
    for (const finalCode of finalPayinCodes) {
      const row = newPayin(ledger, `req-${finalCode}`);
      payins.applyStatus(row.id, { statusCode: 100, source: 'create' });
      expect(payins.applyStatus(row.id, { statusCode: finalCode, source: 'status_read' }).outcome).toBe('advanced');
      for (const pending of pendingPayinCodes) {
        const late = payins.applyStatus(row.id, { statusCode: pending, source: 'notification' });
        expect(late.outcome).toBe('stale');
        expect(late.record).toMatchObject({ statusCode: String(finalCode), final: true });
      }
    }
  });

  it('moves pending codes forward only (101 after 100; not 100 after 101)', () => {
    ledger = testLedger();
    const { payouts } = ledger.repos;
    const row = payouts.recordRequest({ profileId: ledger.profile.id, merchantReference: 'po-1', method: 'fps', amount: '25', currency: 'GBP', email: 'b@c.d' });
    const [first, second] = PAYOUT_STATUS_CATALOGUE.filter((e) => !e.final).map((e) => e.code);
    expect(payouts.applyStatus(row.id, { statusCode: first as string, source: 'create' }).outcome).toBe('advanced');
    expect(payouts.applyStatus(row.id, { statusCode: second as string, source: 'status_read' }).outcome).toBe('advanced');
    expect(payouts.applyStatus(row.id, { statusCode: first as string, source: 'notification' }).outcome).toBe('stale');
    expect(payouts.byId(row.id)?.statusCode).toBe(second);
  });

  it('keeps an unknown code exactly as sent, flags it unknown and lets a known final code replace it', () => {
    ledger = testLedger();
    const { payins } = ledger.repos;
    const row = newPayin(ledger);
    payins.applyStatus(row.id, { statusCode: 100, source: 'create' });
    const unknown = payins.applyStatus(row.id, { statusCode: 777, reasonCode: 'BRAND_NEW_REASON', source: 'status_read' });
    expect(unknown.outcome).toBe('advanced');
    expect(unknown.record).toMatchObject({ statusCode: '777', statusKnown: false, statusCategory: 'unknown', final: false, reasonCode: 'BRAND_NEW_REASON', reasonKnown: false });
    expect(payins.applyStatus(row.id, { statusCode: 101, source: 'status_read' }).outcome).toBe('stale');
    expect(payins.applyStatus(row.id, { statusCode: 200, source: 'status_read' }).record).toMatchObject({ statusCode: '200', final: true, statusKnown: true });
  });

  it('refuses at the database level to change a final status, even through raw SQL', () => {
    ledger = testLedger();
    const row = newPayin(ledger);
    ledger.repos.payins.applyStatus(row.id, { statusCode: 302, source: 'create' });
    expect(() => ledger.db.prepare("UPDATE payins SET status_code = '100', final = 0 WHERE id = ?").run(row.id)).toThrow(/a final status never changes/);
    expect(() => ledger.db.prepare("UPDATE payins SET status_code = '200' WHERE id = ?").run(row.id)).toThrow(/a final status never changes/);
  });

  it('marks a notified final status verified once a later status read agrees', () => {
    ledger = testLedger();
    const { payins } = ledger.repos;
    const row = newPayin(ledger);
    payins.applyStatus(row.id, { statusCode: 100, source: 'create' });
    payins.applyStatus(row.id, { statusCode: 100, source: 'status_read' }); // an early read proves nothing about the later result
    const notified = payins.applyStatus(row.id, { statusCode: 200, source: 'notification' }).record;
    expect(notified).toMatchObject({ lastNotifiedStatus: '200', lastVerifiedStatus: '100', verification: 'unverified', mismatch: false });
    const read = payins.applyStatus(row.id, { statusCode: 200, source: 'status_read' }).record;
    expect(read).toMatchObject({ verification: 'verified', mismatch: false });
  });

  it('flags a mismatch when the gateway now says something else than the final status we hold', () => {
    ledger = testLedger();
    const { payins } = ledger.repos;
    const row = newPayin(ledger);
    payins.applyStatus(row.id, { statusCode: 200, source: 'create' });
    const read = payins.applyStatus(row.id, { statusCode: 101, source: 'status_read' });
    expect(read.outcome).toBe('stale');
    expect(read.record).toMatchObject({ statusCode: '200', lastVerifiedStatus: '101', mismatch: true, verification: 'mismatch' });
    // The gateway agreeing again clears a read-based mismatch: it is about what the gateway says now.
    expect(payins.applyStatus(row.id, { statusCode: 200, source: 'status_read' }).record).toMatchObject({ mismatch: false, verification: 'verified' });
  });

  it('keeps the first final status and a permanent conflict when a notification claims another final result', () => {
    ledger = testLedger();
    const { payins } = ledger.repos;
    const row = newPayin(ledger);
    payins.applyStatus(row.id, { statusCode: 302, reasonCode: 'RISK_BLOCKED', source: 'create' });
    const claim = payins.applyStatus(row.id, { statusCode: 200, source: 'notification' });
    expect(claim.outcome).toBe('conflict');
    expect(claim.record).toMatchObject({ statusCode: '302', reasonCode: 'RISK_BLOCKED', lastNotifiedStatus: '200', mismatch: true });
    expect(claim.record.conflict).toMatch(/final status 302 contradicted by notification status 200/);
    expect(payins.applyStatus(row.id, { statusCode: 302, source: 'status_read' }).record.mismatch).toBe(true);
    expect(payins.page({ mismatch: true }).items.map((p) => p.id)).toEqual([row.id]);
  });

  it('records a different gateway id than the one held as a conflict instead of overwriting it', () => {
    ledger = testLedger();
    const { payouts } = ledger.repos;
    const request = { profileId: ledger.profile.id, merchantReference: 'po-1', method: 'crypto', amount: '0.5', currency: 'USD', email: 'x@y.z' };
    const row = payouts.upsertFromCreate(request, { payoutId: 'po-A', statusCode: 'P100' });
    const again = payouts.attachGatewayId(row.id, 'po-B');
    expect(again).toMatchObject({ payoutId: 'po-A', mismatch: true });
    expect(payouts.byPayoutId('po-B')).toBeUndefined();
  });

  it('refuses to record the same reference twice with other money facts, and is idempotent otherwise', () => {
    ledger = testLedger();
    const first = newPayin(ledger, 'req-1', 'credit_card', '10.50');
    expect(newPayin(ledger, 'req-1', 'credit_card', '10.5').id).toBe(first.id);
    expect(() => newPayin(ledger, 'req-1', 'credit_card', '10.51')).toThrow(/already recorded/);
  });

  it('finds pay-ins by e-mail case-insensitively and by any reference in global search', () => {
    ledger = testLedger();
    const { payins } = ledger.repos;
    const a = newPayin(ledger, 'req-a');
    payins.applyCreateAnswer(a.id, { payinId: 'pid-a', statusCode: 100 });
    ledger.clock.advance(10);
    const b = newPayin(ledger, 'req-b');
    expect(payins.byEmail('ana@example.COM').map((p) => p.id)).toEqual([b.id, a.id]);
    expect(payins.search('pid-a').map((p) => p.id)).toEqual([a.id]);
    expect(payins.search('req-b').map((p) => p.id)).toEqual([b.id]);
    expect(payins.search('ANA@example.com')).toHaveLength(2);
    expect(payins.countByStatus().get('100')).toBe(1);
  });
});
