// Reconciliation through the contract: exact totals, every exception list produced by a real
// scenario, the sweep (progress, cancel, rate limit), CSV exports and the evidence pack.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import keytar from 'keytar';
import type { ExceptionKind, PayinView, SweepState } from '../../../src/shared/contract';
import { payinClaim, payinForm, payoutForm, startHarness, unique, waitFor, type Harness } from '../verification/harness';
import { upsertFromCreate } from '../../../src/main/services/payments/apply';

let h: Harness;
let profileId: string;

beforeAll(async () => {
  // Long rechecks: a forged claim on a pending pay-in stays "notified, not verified" during the suite.
  h = await startHarness({ verification: { timings: { recheckDelaysMs: [60_000], retryDelaysMs: [100], concurrency: 4 } } });
  profileId = await h.profileId();
});
afterAll(async () => {
  await h?.close();
});

async function createPayin(opts: Parameters<typeof payinForm>[0] = {}): Promise<PayinView> {
  const result = await h.call('payins:create', payinForm(opts));
  if (!result.payin) throw new Error(`no pay-in: ${result.message}`);
  return result.payin;
}

const listed = async (kind: ExceptionKind, extra: { pendingOlderThanMinutes?: number } = {}) =>
  (await h.call('reconciliation:exceptions', { kind, limit: 500, ...extra })).items;

/** A clock for rows recorded straight into the ledger on a chosen day. */
const at = (iso: string) => () => new Date(iso);

describe('reconciliation totals', () => {
  it('sums exactly per day, currency, method and status (0.10 + 0.20 = 0.30; crypto to 10 decimals)', async () => {
    const day1 = h.repos(at('2025-01-10T08:00:00.000Z'));
    const day2 = h.repos(at('2025-01-11T23:59:59.999Z'));
    const payin = (repos: typeof day1, ref: string, method: string, amount: string, currency: string, status: number) =>
      upsertFromCreate(repos.payins, { profileId, kind: 'payin', requestId: unique(ref), method, amount, currency, email: 'sum@example.com' }, { gatewayId: unique('p'), statusCode: status });
    await payin(day1, 'a', 'blik', '0.10', 'PLN', 302);
    await payin(day1, 'b', 'blik', '0.20', 'PLN', 302);
    await payin(day1, 'c', 'crypto', '0.0000000001', 'USD', 302);
    await payin(day1, 'd', 'crypto', '0.0000000002', 'USD', 302);
    await payin(day1, 'e', 'blik', '999999999999999.99', 'CHF', 302);
    await payin(day1, 'f', 'blik', '999999999999999.99', 'CHF', 302);
    await payin(day2, 'g', 'blik', '0.01', 'PLN', 302);
    await upsertFromCreate(day1.payouts, { profileId, merchantReference: unique('po'), method: 'crypto', amount: '1.5', currency: 'USD', email: 'sum@example.com' }, { gatewayId: unique('po'), statusCode: 'P100' });

    const { rows, byCurrency } = await h.call('reconciliation:totals', { from: '2025-01-10', to: '2025-01-10' });
    const row = (subject: string, currency: string, method: string) => rows.find((r) => r.subject === subject && r.currency === currency && r.method === method);
    expect(row('payin', 'PLN', 'blik')).toMatchObject({ day: '2025-01-10', statusCode: '302', statusCategory: 'decline', final: true, count: 2, amount: '0.30' });
    expect(row('payin', 'USD', 'crypto')).toMatchObject({ count: 2, amount: '0.0000000003' });
    expect(row('payin', 'CHF', 'blik')).toMatchObject({ count: 2, amount: '1999999999999999.98' });
    expect(row('payout', 'USD', 'crypto')).toMatchObject({ statusCode: 'P100', final: false, count: 1, amount: '1.50' });
    expect(rows.some((r) => r.day === '2025-01-11')).toBe(false);
    expect(byCurrency).toContainEqual({ subject: 'payin', currency: 'PLN', statusCategory: 'decline', count: 2, amount: '0.30' });

    const both = await h.call('reconciliation:totals', { from: '2025-01-10', to: '2025-01-11', subjects: ['payin'] });
    expect(both.byCurrency.find((c) => c.currency === 'PLN')).toMatchObject({ count: 3, amount: '0.31' });
    expect(both.rows.every((r) => r.subject === 'payin')).toBe(true);
  });

  it('stays exact past 64-bit integer sums (falls back to decimal arithmetic)', async () => {
    // 9,300 amounts of 999999999999999.9999999999: their integer parts alone exceed 2^63.
    await h.core.ledger.run(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 9300)
         INSERT INTO payins (profile_id, kind, request_id, method, amount, currency, email, status_code, status_category, final, created_at, updated_at)
         SELECT ?, 'payin', 'big-' || i, 'crypto', '999999999999999.9999999999', 'BTC', 'big@example.com', '302', 'decline', 1, '2025-02-01T12:00:00.000Z', '2025-02-01T12:00:00.000Z' FROM n`,
      [profileId],
    );
    const { rows } = await h.call('reconciliation:totals', { from: '2025-02-01', to: '2025-02-01' });
    expect(rows).toEqual([expect.objectContaining({ currency: 'BTC', count: 9300, amount: '9299999999999999999.99999907' })]);
  });

  it('exports the totals as CSV', async () => {
    const file = await h.call('reconciliation:export-csv', { what: 'totals', from: '2025-01-10', to: '2025-01-10' });
    expect(file.filename).toMatch(/^paydesk-totals-.*\.csv$/);
    const lines = file.csv.trim().split('\r\n');
    expect(lines[0]).toBe('subject,day,currency,method,status_code,status_category,final,count,amount');
    expect(lines).toContain('payin,2025-01-10,PLN,blik,302,decline,true,2,0.30');
    expect(file).toMatchObject({ rows: lines.length - 1, truncated: false });
  });
});

describe('exception lists', () => {
  const scenario: Partial<Record<ExceptionKind, number | string>> = {};

  beforeAll(async () => {
    // pending_too_long: a pay-in waiting for its consumer.
    const pending = await createPayin({ requestId: unique('pending') });
    scenario.pending_too_long = pending.id;
    // notified_not_verified: a forged 200 on a pending pay-in (the gateway says 100; recheck in 60 s).
    const claimed = await createPayin({ requestId: unique('claimed') });
    await h.notify(payinClaim(claimed.payinId as string, claimed.requestId, 200));
    scenario.notified_not_verified = claimed.id;
    // status_mismatch: a forged 200 on a declined pay-in.
    const declined = await createPayin({ email: 'ana+s302@example.com', requestId: unique('declined') });
    await waitFor(() => h.call('payins:timeline', { id: declined.id }), (t) => t.payin.verification === 'verified', 'the decline');
    await h.notify(payinClaim(declined.payinId as string, declined.requestId, 200));
    scenario.status_mismatch = declined.id;
    // amount_mismatch: a notification claiming another amount and currency than the ledger holds.
    const paid = await createPayin({ requestId: unique('paid'), amount: '42.00' });
    await h.notify(payinClaim(paid.payinId as string, paid.requestId, 200, { amount: '4200.00', currency: 'USD' }));
    scenario.amount_mismatch = paid.id;
    // orphans and duplicates: a notification for a pay-in nobody knows, delivered twice.
    const ghost = unique('ghost');
    await h.notify(payinClaim(ghost, `req-${ghost}`, 200));
    await h.notify(payinClaim(ghost, `req-${ghost}`, 200));
    scenario.orphans = ghost;
    scenario.duplicates = ghost;
    // payouts_stuck: a payout the gateway keeps processing.
    const payout = await h.call('payouts:create', payoutForm({ email: 'ana+sP101@example.com', reference: unique('stuck') }));
    scenario.payouts_stuck = payout.payout?.id;
    // unknown_attempts: a create call whose answer never came (recorded as the runner would).
    const attempts = h.repos().attempts;
    const key = unique('key');
    await attempts.prepare({ profileId, kind: 'payin', idempotencyKey: key, reference: unique('lost'), body: { request_id: 'lost', cardNum: '4111111111111111', cardCvv: '123' } });
    await attempts.markSending(key);
    await attempts.markUnknown(key, { error: 'timeout after 30000 ms' });
    scenario.unknown_attempts = key;
    await waitFor(() => h.call('reconciliation:summary', { pendingOlderThanMinutes: 0 }), (s) => s.counts.every((c) => c.count > 0), 'every list populated');
  });

  it('finds each scenario in its own list', async () => {
    const rowIds = async (kind: ExceptionKind) => (await listed(kind, { pendingOlderThanMinutes: 0 })).map((r) => r.rowId);
    expect(await rowIds('pending_too_long')).toContain(scenario.pending_too_long);
    expect(await rowIds('notified_not_verified')).toContain(scenario.notified_not_verified);
    expect(await rowIds('status_mismatch')).toContain(scenario.status_mismatch);
    expect(await rowIds('status_mismatch')).not.toContain(scenario.amount_mismatch);
    const amount = (await listed('amount_mismatch')).find((r) => r.rowId === scenario.amount_mismatch);
    expect(amount?.detail).toMatch(/amount 4200\.00 instead of 42\.00, currency USD instead of EUR/);
    expect(await rowIds('payouts_stuck')).toContain(scenario.payouts_stuck);
    const orphans = await listed('orphans');
    expect(orphans.filter((r) => r.gatewayId === scenario.orphans)).toHaveLength(1);
    expect(orphans.find((r) => r.gatewayId === scenario.orphans)).toMatchObject({ amount: '10.50', currency: 'EUR', notifiedStatus: '200' });
    expect((await listed('duplicates')).filter((r) => r.gatewayId === scenario.duplicates)).toHaveLength(1);
    const unknown = (await listed('unknown_attempts')).find((r) => r.detail?.includes('· unknown: timeout'));
    expect(unknown).toMatchObject({ subject: 'payin', detail: 'settle: a status read by request_id, then a resend under its key if the gateway does not know it · unknown: timeout after 30000 ms (sent 1 time)' });
    // The threshold is the caller's: nothing is "too long" pending within a day.
    expect((await listed('pending_too_long', { pendingOlderThanMinutes: 24 * 60 })).map((r) => r.rowId)).not.toContain(scenario.pending_too_long);
    expect((await listed('payouts_stuck', { pendingOlderThanMinutes: 24 * 60 })).map((r) => r.rowId)).not.toContain(scenario.payouts_stuck);
  });

  it('shows on a mismatch the claim that contradicts, not the agreeing one notified before it, in the list and its CSV, for pay-ins and payouts', async () => {
    // The pay-in: final 302 (notified 302, read 302), then a forged notification of 200.
    const declined = (await listed('status_mismatch')).find((r) => r.rowId === scenario.status_mismatch);
    expect((await h.call('payins:timeline', { id: Number(scenario.status_mismatch) })).payin).toMatchObject({ statusCode: '302', lastNotifiedStatus: '302' });
    expect(declined).toMatchObject({ statusCode: '302', notifiedStatus: '200', verifiedStatus: '302', verification: 'mismatch' });
    // The payout: final C405 (notified and read), then a forged notification of P200.
    const failed = (await h.call('payouts:create', payoutForm({ email: 'ana+sC405@example.com', reference: unique('failed') }))).payout!;
    await waitFor(() => h.call('payouts:get', { id: failed.id }), (p) => p.payout.verification === 'verified', 'the payout to fail, confirmed');
    const forged = { event: 'v2_payout_notification', payout_id: failed.payoutId, merchantReference: failed.merchantReference, status_code: 'P200', reason_code: null, amount: failed.amount, currency: failed.currency, method: failed.method, updated_at: '2026-03-01T10:00:01.000Z' };
    await h.notify(JSON.stringify(forged).replace(`"amount":"${failed.amount}"`, `"amount":${failed.amount}`));
    const payoutRow = await waitFor(async () => (await listed('status_mismatch')).find((r) => r.subject === 'payout' && r.rowId === failed.id), (r) => r !== undefined, 'the payout on the status mismatch list');
    expect((await h.call('payouts:get', { id: failed.id })).payout).toMatchObject({ statusCode: 'C405', lastNotifiedStatus: 'C405' });
    expect(payoutRow).toMatchObject({ statusCode: 'C405', notifiedStatus: 'P200', verifiedStatus: 'C405', verification: 'mismatch' });
    // The CSV says the same: status_code, notified_status, verified_status, verification.
    const csv = (await h.call('reconciliation:export-csv', { what: 'exceptions', kind: 'status_mismatch' })).csv.split('\r\n');
    expect(csv.find((line) => line.startsWith(`status_mismatch,payin,${String(scenario.status_mismatch)},`))).toContain(',302,200,302,mismatch,');
    expect(csv.find((line) => line.startsWith(`status_mismatch,payout,${failed.id},`))).toContain(',C405,P200,C405,mismatch,');
  });

  it('pages every list by a cursor without repeats, and names a bad cursor', async () => {
    const all = await listed('pending_too_long', { pendingOlderThanMinutes: 0 });
    expect(all.length).toBeGreaterThanOrEqual(3);
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 50; page++) {
      const answer: { items: { key: string }[]; nextCursor: string | null } = await h.call('reconciliation:exceptions', { kind: 'pending_too_long', pendingOlderThanMinutes: 0, limit: 2, cursor });
      seen.push(...answer.items.map((r) => r.key));
      cursor = answer.nextCursor;
      if (!cursor) break;
    }
    expect(seen).toEqual(all.map((r) => r.key));
    const bad = await h.failure('reconciliation:exceptions', { kind: 'orphans', cursor: 'nope' });
    expect(bad).toMatchObject({ code: 'invalid_input', fields: { cursor: expect.any(String) } });
    const invalid = await h.failure('reconciliation:exceptions', { kind: 'everything' });
    expect(invalid.fields).toHaveProperty('kind');
  });

  it('exports a list as CSV with quoting and formula neutralised, and no card number', async () => {
    const repos = h.repos(at('2024-12-31T10:00:00.000Z'));
    const tricky = '=HYPERLINK("http://evil"),"a"\nb';
    await repos.payins.recordRequest({ profileId, kind: 'payin', requestId: tricky, method: 'blik', amount: '1.00', currency: 'PLN', email: '+cmd@example.com' });
    await repos.payins.recordRequest({ profileId, kind: 'payin', requestId: '@SUM(1)', method: 'blik', amount: '2.00', currency: 'PLN', email: '-x@example.com' });
    const file = await h.call('reconciliation:export-csv', { what: 'exceptions', kind: 'pending_too_long', pendingOlderThanMinutes: 0 });
    expect(file.filename).toMatch(/^paydesk-pending-too-long-.*\.csv$/);
    expect(file.csv.startsWith('list,subject,row_id,profile_id,reference,gateway_id,method,amount,currency,status_code,notified_status,verified_status,verification,at,notification_id,attempt_id,detail\r\n')).toBe(true);
    expect(file.csv).toContain(`"'=HYPERLINK(""http://evil""),""a""\nb"`);
    expect(file.csv).toContain(",'@SUM(1),");
    expect(file.csv).not.toMatch(/(^|,)[=+\-@]/m);
    const attempts = await h.call('reconciliation:export-csv', { what: 'exceptions', kind: 'unknown_attempts' });
    expect(attempts.csv).not.toContain('4111111111111111');
  });
});

describe('the sweep', () => {
  it('status-reads every non-final item with progress, within the rate limit, and applies what changed', async () => {
    // Three pending pay-ins; one is then completed at the gateway while its notification is lost.
    const pending = await Promise.all([1, 2, 3].map((i) => createPayin({ requestId: unique(`sweep${i}`) })));
    await h.admin('/faults', { notifications: { fail_next: 50, fail_mode: 'drop' } }, 'PUT');
    expect((await h.admin(`/payins/${pending[0]?.payinId}/complete`, { status_code: 200 })).status).toBe(200);
    await h.admin('/faults', { rate_limit: { burst: 2, refill_per_second: 4 } }, 'PUT');
    const before = h.pushesOf('reconciliation:sweep-changed').length;
    const started = await h.call('reconciliation:sweep-start', {});
    expect(started).toMatchObject({ state: 'running', done: 0 });
    const total = started.total;
    expect(total).toBeGreaterThanOrEqual(4);
    expect((await h.failure('reconciliation:sweep-start', {})).code).toBe('conflict');
    const end = await waitFor(() => h.call('reconciliation:sweep-status'), (s) => s.sweep?.state !== 'running', 'the end of the sweep', 20_000);
    expect(end.sweep).toMatchObject({ id: started.id, state: 'done', done: total, changed: expect.any(Number) });
    expect(end.sweep?.changed).toBeGreaterThanOrEqual(1);
    const progress = h.pushesOf('reconciliation:sweep-changed').slice(before) as SweepState[];
    expect(progress.at(-1)).toMatchObject({ id: started.id, state: 'done', done: total });
    const dones = progress.map((p) => p.done);
    expect(dones).toEqual([...dones].sort((a, b) => a - b));
    expect((await h.call('payins:timeline', { id: pending[0]?.id as number })).payin).toMatchObject({ statusCode: '200', final: true, lastNotifiedStatus: null });
    expect((await h.call('payins:timeline', { id: pending[1]?.id as number })).payin).toMatchObject({ statusCode: '100', lastVerifiedStatus: '100' });
    await h.admin('/faults', undefined, 'DELETE');
  });

  it('can be cancelled, and stops reading', async () => {
    await h.restart({ verification: { rateLimit: { burst: 1, refillPerSecond: 2 }, timings: { recheckDelaysMs: [60_000], retryDelaysMs: [100], concurrency: 4 } } });
    await Promise.all([1, 2, 3, 4].map((i) => createPayin({ requestId: unique(`cancel${i}`) })));
    const started = await h.call('reconciliation:sweep-start', {});
    await waitFor(() => h.call('reconciliation:sweep-status'), (s) => (s.sweep?.done ?? 0) >= 1, 'the first read');
    expect(await h.call('reconciliation:sweep-cancel', { id: started.id })).toMatchObject({ cancelled: true });
    const end = await waitFor(() => h.call('reconciliation:sweep-status'), (s) => s.sweep?.state !== 'running', 'the cancelled sweep');
    expect(end.sweep?.state).toBe('cancelled');
    expect(end.sweep?.done).toBeLessThan(started.total);
    const pushed = h.pushesOf('reconciliation:sweep-changed').length;
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect((await h.call('reconciliation:sweep-status')).sweep).toEqual(end.sweep);
    expect(h.pushesOf('reconciliation:sweep-changed')).toHaveLength(pushed);
    expect(h.pushesOf('reconciliation:sweep-changed').at(-1)).toMatchObject({ id: started.id, state: 'cancelled' });
    expect(await h.call('reconciliation:sweep-cancel', {})).toMatchObject({ cancelled: false });
  });
});

describe('evidence pack', () => {
  it('holds everything known about one pay-in and no secret', async () => {
    const pan = '4000056655665556';
    const cvv = '9182';
    const local = (await h.call('profiles:list')).find((p) => p.environment === 'local');
    const key = await h.call('credentials:generate-key', { profileId, kid: unique('kid') });
    const created = await createPayin({ method: 'credit_card', email: 'ana+s200@example.com', requestId: unique('evidence'), card: { cardNum: pan, cardCvv: cvv } });
    await waitFor(() => h.call('payins:timeline', { id: created.id }), (t) => t.payin.verification === 'verified', 'the verified card pay-in');
    // A second delivery with credentials in its headers and a card number in its body.
    await h.notify(payinClaim(created.payinId as string, created.requestId, 200).replace('"payment_method"', `"cardNum":"${pan}","payment_method"`), {
      authorization: 'Bearer SENTINEL-AUTH-1',
      'merchant-token': 'SENTINEL-TOKEN-2',
      cookie: 'session=SENTINEL-COOKIE-3',
    });
    await waitFor(() => h.call('notifications:list', { payinRowId: created.id }), (l) => l.items.length === 2, 'the second delivery');

    const pack = await h.call('evidence:export', { subject: 'payin', id: created.id });
    expect(pack.filename).toBe(`paydesk-evidence-payin-${created.requestId}.json`);
    const doc = JSON.parse(pack.json) as { attempts: unknown[]; notifications: unknown[]; statusReads: unknown[] };
    expect(doc).toMatchObject({ format: 'paydesk-evidence-pack/1', subject: 'payin', transaction: { id: created.id, statusCode: '200', verification: 'verified' } });
    expect(doc.attempts).toHaveLength(1);
    expect(doc.attempts[0]).toMatchObject({ state: 'succeeded', httpStatus: 200, request: { cardNum: '400005******5556', cardCvv: '[redacted]' } });
    expect(doc.notifications).toHaveLength(2);
    expect(doc.notifications[1]).toMatchObject({ outcome: 'duplicate', bodyRedacted: true, headers: expect.arrayContaining([['authorization', '[redacted]'], ['merchant-token', '[redacted]']]) });
    expect(doc.statusReads.length).toBeGreaterThanOrEqual(1);

    const privateKey = (await keytar.getPassword(h.service, `${profileId}/jwt-private-key`)) as string;
    const secrets = [pan, `"${cvv}"`, 'SENTINEL-AUTH-1', 'SENTINEL-TOKEN-2', 'SENTINEL-COOKIE-3', h.core.local.merchant.merchant_token, privateKey, local?.notificationUrl.split('/n/')[1] as string];
    for (const secret of secrets) expect(pack.json.includes(secret), secret.slice(0, 12)).toBe(false);
    expect(key.registeredWithEmulator).toBe(true);
    expect((await h.failure('evidence:export', { subject: 'payout', id: 999_999 })).code).toBe('not_found');
  });
});
