// A working day's data for the tests that look at every screen (accessibility, keyboard, layout):
// pay-ins that succeeded, were declined or still wait, a crypto one with ten decimals, payouts that
// succeeded and failed, a forged notification the status read contradicts (a status mismatch) and
// one for a pay-in the ledger never held (an orphan). All through the contract and the listener.
import { writeFileSync } from 'node:fs';
import { expect } from 'vitest';
import { payinForm, payoutForm } from '../helpers/fixtures';
import type { SpecGateway } from '../helpers/spec-gateway';
import { until } from '../helpers/poll';
import { rpc, type WebApp } from './harness';

export interface SeededPayin {
  id: number;
  requestId: string;
  payinId: string | null;
  statusCode: string | null;
}

export interface Seeded {
  tag: string;
  /** The e-mail of two pay-ins: global search lists both. */
  sharedEmail: string;
  /** Declined, then claimed a success by a forged notification: on the status mismatch list. */
  mismatch: SeededPayin;
  /** Waits on the hosted page (100): on the emulator it can be completed by its admin API. */
  pending: SeededPayin;
  /** The longest reference of the day, on a crypto pay-in whose amount has ten decimals. */
  long: SeededPayin;
  payout: { id: number; merchantReference: string };
  orphanNotificationId: number;
}

interface Profile {
  environment: string;
  notificationUrl: string;
}

export async function seedWorkday(app: WebApp): Promise<Seeded> {
  const tag = Math.random().toString(36).slice(2, 8);
  const sharedEmail = `ana-${tag}@example.com`;
  const payin = async (requestId: string, method: 'open_banking' | 'crypto', email: string, amount?: string, currency?: string): Promise<SeededPayin> => {
    const form = { ...payinForm(method, { requestId, email, ...(amount ? { amount } : {}) }), ...(currency ? { currency } : {}) };
    const result = await rpc<{ outcome: string; payin: SeededPayin }>(app, 'payins:create', form);
    expect(result.outcome).toBe('succeeded');
    return result.payin;
  };
  const [, , declined, pending, long, payout] = await Promise.all([
    payin(`ok-1-${tag}`, 'open_banking', `ana-${tag}+s200@example.com`, '1234567.89'),
    payin(`ok-2-${tag}`, 'open_banking', sharedEmail, '20.20'),
    payin(`declined-${tag}`, 'open_banking', `bea-${tag}+s302@example.com`, '5.00'),
    payin(`pending-${tag}`, 'open_banking', sharedEmail, '1.00', 'USD'),
    payin(`7f3c9a2e-41d8-4b6a-9c1e-2f5b8d0a6e47-${tag}`, 'crypto', `cy-${tag}+s200@example.com`, '12345.0123456789', 'USD'),
    rpc<{ payout: { id: number; merchantReference: string } }>(app, 'payouts:create', payoutForm('fps', { amount: '25.00', email: `dan-${tag}+sP200@example.com` })),
    rpc(app, 'payouts:create', payoutForm('open_banking', { amount: '99.90', email: `eve-${tag}+sC405@example.com` })),
  ]);
  const final = async (id: number) => (await rpc<{ payin: SeededPayin }>(app, 'payins:get', { id })).payin.statusCode === '302';
  await until(() => final(declined.id), 'the +s302 pay-in to be declined', 15_000);

  const local = (await rpc<Profile[]>(app, 'profiles:list')).find((p) => p.environment === 'local') as Profile;
  const notify = async (payinId: string, requestId: string) => {
    const body = { event: 'v2_payin_notification', status: 'success', status_code: 200, reason_code: null, request_id: requestId, payin_id: payinId, amount: 5.0, currency: 'EUR', payment_method: 'open_banking', updated_at: new Date().toISOString() };
    const response = await fetch(local.notificationUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(response.status).toBe(200);
  };
  await notify(declined.payinId as string, declined.requestId);
  await notify(`ghost-${tag}`, `ghost-req-${tag}`);
  const orphans = async () => (await rpc<{ items: { id: number }[] }>(app, 'notifications:list', { outcomes: ['orphan'] })).items;
  await until(async () => (await orphans()).length === 1, 'the orphan notification', 15_000);
  const mismatches = async () => (await rpc<{ counts: { kind: string; count: number }[] }>(app, 'reconciliation:summary', {})).counts.find((c) => c.kind === 'status_mismatch')?.count;
  await until(async () => (await mismatches()) === 1, 'the forged claim to be contradicted by a status read', 15_000);
  return { tag, sharedEmail, mismatch: declined, pending, long, payout: payout.payout, orphanNotificationId: (await orphans())[0]?.id ?? 0 };
}

export interface SeededLive {
  profileId: string;
  /** A live payout created at the gateway whose every answer was lost: its page offers a reviewed resume. */
  lostPayoutId: number;
  /** A live batch that ended with its one payout's outcome unknown: "Settle open payouts" asks for a review. */
  openBatchId: number;
}

/**
 * A live profile (not activated) on `gateway`, an https test gateway the app trusts, holding what
 * only a live profile shows: a lost payout waiting for its reviewed resume (its gateway, reading
 * payouts by payout_id only, has refused to look it up by merchantReference) and a finished batch
 * with an open payout. Every answer to a create is lost from here on, so nothing these leave open settles
 * by itself while a test looks at it.
 */
export async function seedLive(app: WebApp, gateway: SpecGateway): Promise<SeededLive> {
  const profile = await rpc<{ id: string }>(app, 'profiles:create', { name: 'Shop live', environment: 'live', baseUrl: gateway.baseUrl, merchantId: gateway.merchant.merchant_id, merchantSiteId: gateway.merchant.merchant_site_id });
  await rpc(app, 'credentials:set-merchant-token', { profileId: profile.id, token: gateway.merchant.merchant_token });
  gateway.createFaults.push(...Array.from({ length: 50 }, () => ({ type: 'lose_answer' as const, how: 'drop' as const })));

  const form = { ...payoutForm('open_banking', { amount: '42.00', email: 'lia@example.com' }), profileId: profile.id };
  const review = await rpc<{ reviewId: string; payout: { merchantReference: string } }>(app, 'payouts:review', form);
  const lost = await rpc<{ outcome: string; payout: { id: number } }>(app, 'payouts:create', { ...form, merchantReference: review.payout.merchantReference, reviewId: review.reviewId, confirmed: true });
  expect(lost.outcome).toBe('unknown');
  // Looked up by its merchantReference, which this gateway (payouts by payout_id only) refuses: its page says so.
  await rpc(app, 'attempts:settle-unknown', { profileId: profile.id });

  const { profileId: _, ...row } = form;
  const batch = await rpc<{ id: number }>(app, 'batches:create', { profileId: profile.id, fileName: 'live-payouts.csv', rows: 1 });
  await rpc(app, 'batches:add-items', { id: batch.id, items: [{ line: 1, form: { ...row, amount: '10.00' } }] });
  const startReview = await rpc<{ reviewId: string }>(app, 'batches:review', { id: batch.id });
  await rpc(app, 'batches:start', { id: batch.id, reviewId: startReview.reviewId, confirmed: true });
  const ended = async () => (await rpc<{ state: string }>(app, 'batches:get', { id: batch.id })).state === 'done';
  await until(ended, 'the live batch to end', 30_000);
  expect((await rpc<{ counts: { unknown: number } }>(app, 'batches:get', { id: batch.id })).counts.unknown).toBe(1);
  return { profileId: profile.id, lostPayoutId: lost.payout.id, openBatchId: batch.id };
}

export interface SeededStatements {
  /** The EUR settlement: on the bank statement with a credit 1.50 short of its net. */
  settlementId: string;
  reportFile: string;
}

/** Uploads a text through the contract in its chunks, inspects it and imports it with what main proposes. */
async function importThroughContract(app: WebApp, kind: 'settlement' | 'bank', fileName: string, text: string, source: string): Promise<void> {
  const data = Buffer.from(text, 'utf8');
  const { uploadId, chunkBytes } = await rpc<{ uploadId: string; chunkBytes: number }>(app, 'statements:upload-begin', { kind, fileName, size: data.length });
  for (let seq = 0, at = 0; at < data.length; seq++, at += chunkBytes) await rpc(app, 'statements:upload-chunk', { uploadId, seq, data: data.subarray(at, at + chunkBytes).toString('base64') });
  const inspection = await rpc<{ layout: unknown }>(app, 'statements:inspect', { uploadId, source });
  const result = await rpc<{ outcome: string }>(app, 'statements:import', { uploadId, source, ...(inspection.layout ? { layout: inspection.layout } : {}) });
  expect(result.outcome).toBe('imported');
}

/**
 * Statements on the seeded day (after seedWorkday): the emulator settles it with every knob on,
 * its settlement report and the EUR account's camt.053 are imported, and a bank CSV brings a
 * credit naming no settlement, of the USD settlement's net: a proposal to decide.
 */
export async function seedStatements(app: WebApp, reportFile: string): Promise<SeededStatements> {
  const local = (await rpc<{ environment: string; baseUrl: string }[]>(app, 'profiles:list')).find((p) => p.environment === 'local')!;
  const adminUrl = local.baseUrl.replace(/\/api\/v2$/, '/_emulator');
  const admin = async (pathname: string, init: RequestInit = {}) => {
    const response = await fetch(`${adminUrl}${pathname}`, { headers: { 'content-type': 'application/json' }, ...init });
    expect(response.ok).toBe(true);
    return response;
  };
  await admin('/settlement-faults', {
    method: 'PUT',
    body: JSON.stringify({ alter_amount: { next: 1 }, unknown_payin: { next: 1 }, settle_twice: { next: 1 }, credit_differs: { next: 1 }, orphan_bank_line: { next: 1 } }),
  });
  const settled = (await (await admin('/settlements/run', { method: 'POST', body: '{}' })).json()) as { settlements: { settlement_id: string; currency: string; net: string }[] };
  const report = await (await admin('/reports/settlement.csv')).text();
  const camt = await (await admin('/reports/bank-statement.xml?currency=EUR')).text();
  writeFileSync(reportFile, report);
  await importThroughContract(app, 'settlement', 'settlement.csv', report, 'Emulator');
  await importThroughContract(app, 'bank', 'statement-eur.xml', camt, 'Emulator Demo Bank');
  const usd = settled.settlements.find((s) => s.currency === 'USD');
  if (usd) {
    const today = new Date().toISOString().slice(0, 10);
    await importThroughContract(app, 'bank', 'hausbank.csv', `Booking date,Amount,Currency,Description\r\n${today},${usd.net},USD,COLLECTIVE CREDIT\r\n`, 'Hausbank');
  }
  return { settlementId: settled.settlements.find((s) => s.currency === 'EUR')!.settlement_id, reportFile };
}
