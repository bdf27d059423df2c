/// <reference lib="dom" />
// Live payouts (review, unknown outcomes, unreachable notifications), in Chromium against web mode with a LIVE profile that points at an
// independent https test gateway on 127.0.0.1 (its certificate trusted through NODE_EXTRA_CA_CERTS).
// Every path to a live payout — New payout, the playground's payout tab, a CSV batch, the resume of
// a payout whose answer was lost — goes through main's review and an explicit confirmation, and
// main refuses the send without it; the lost payout is settled from its page and from the Unknown
// outcomes list under its one key (the gateway reads payouts by payout_id only: asked once by
// merchantReference, the page and the list say so once); the gateway cannot post
// notifications to this machine, so the screens say so and the status is read instead.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSpecGateway, type SpecGateway } from '../helpers/spec-gateway';
import { tempDir } from '../helpers/temp-dir';
import { makeTestCertificate, type TestCertificate } from '../helpers/test-tls';
import { launchBrowser, openApp, rpc, screenshot as save, startWebApp, type WebApp } from './harness';
import { payinForm } from '../helpers/fixtures';

let cert: TestCertificate;
let gateway: SpecGateway;
let app: WebApp;
let browser: Browser;
let page: Page;
let temp: { dir: string; cleanup: () => void };
let liveId: string;
const IBAN = 'DE89370400440532013000';

const creates = () => gateway.calls.filter((c) => c.idempotencyKey !== null);

beforeAll(async () => {
  cert = makeTestCertificate();
  gateway = await startSpecGateway({ tls: cert, payoutFinalAfterReads: 1 });
  temp = tempDir('paydesk-e2e-live-');
  app = await startWebApp(path.join(temp.dir, 'data'), [], { NODE_EXTRA_CA_CERTS: cert.certFile });
  const live = await rpc<{ id: string }>(app, 'profiles:create', { name: 'Shop live', environment: 'live', baseUrl: gateway.baseUrl, merchantId: gateway.merchant.merchant_id, merchantSiteId: gateway.merchant.merchant_site_id });
  liveId = live.id;
  await rpc(app, 'credentials:set-merchant-token', { profileId: liveId, token: gateway.merchant.merchant_token });
  await rpc(app, 'profiles:activate', { id: liveId, confirmed: true });
  browser = await launchBrowser();
  page = await openApp(browser, app, { live: true });
});

afterAll(async () => {
  await browser?.close();
  const code = await app?.stop();
  await gateway?.close();
  cert?.cleanup();
  temp?.cleanup();
  expect(code).toBe(0);
});

async function screenshot(name: string): Promise<void> {
  await page.evaluate(() => window.scrollTo(0, 0));
  await save(page, name);
}

const nav = (name: string) => page.getByRole('navigation').getByRole('link', { name }).click();
const field = (label: string) => page.getByRole('textbox', { name: label, exact: true });
async function fill(values: Record<string, string>): Promise<void> {
  for (const [label, value] of Object.entries(values)) await field(label).fill(value);
}

describe('a live payout is sent only after main’s review', () => {
  it('New payout: the review shows what main will send and that notifications cannot arrive; send stays off until confirmed; main refuses a send that skips it', async () => {
    await nav('Payouts');
    await page.getByRole('tab', { name: 'New payout' }).click();
    await page.locator('.mantine-SegmentedControl-root').getByText('Open banking', { exact: true }).click();
    await fill({ Amount: '75.00', Currency: 'EUR', Country: 'DEU', 'First name': 'Ana', 'Last name': 'Lima', 'E-mail': 'ana@example.com', IBAN, BIC: 'COBADEFFXXX', 'Account holder': 'Ana Lima' });
    await page.getByRole('button', { name: 'Review payout' }).click();
    const review = page.getByTestId('payout-review');
    await review.waitFor();
    expect(await review.getAttribute('data-required')).toBe('true');
    expect(await review.getByTestId('review-reference').textContent()).toMatch(/^po-[0-9a-f-]{36}$/);
    expect(await review.getByTestId('notifications-unreachable').textContent()).toContain('cannot reach this machine');
    const send = review.getByRole('button', { name: 'Send LIVE payout' });
    expect(await send.isDisabled()).toBe(true);
    expect(creates()).toHaveLength(0);
    await screenshot('live-payout-review');

    // The renderer is not the guard: main refuses a live payout that skipped the review.
    await expect(rpc(app, 'payouts:create', { method: 'open_banking', amount: '75.00', currency: 'EUR', country: 'DEU', customer: { firstName: 'Ana', lastName: 'Lima', email: 'ana@example.com' }, paymentDetails: { iban: IBAN, bic: 'COBADEFFXXX', accountHolder: 'Ana Lima' } })).rejects.toThrow(/only after its review/);
    expect(creates()).toHaveLength(0);

    await review.getByTestId('review-confirm').click();
    await send.click();
    const result = page.getByTestId('payout-result');
    await result.waitFor();
    expect(await result.getAttribute('data-outcome')).toBe('succeeded');
    expect(creates()).toHaveLength(1);

    // Its page: notifications cannot arrive, so its status is read until final (P200 here).
    await result.getByTestId('result-detail-link').click();
    const polled = page.getByTestId('polled-status');
    await polled.waitFor();
    expect(await polled.textContent()).toMatch(/loopback address the gateway cannot reach/);
    await expect.poll(() => page.getByTestId('status-panel').textContent(), { timeout: 20_000 }).toContain('Payout succeeded');
    await screenshot('live-payout-polled');
  });

  it('the playground’s payout tab: “Review LIVE payout” shows the same review; nothing leaves before the confirmation', async () => {
    const before = creates().length;
    await nav('Sandbox playground');
    await page.getByRole('tab', { name: 'Payout' }).click();
    expect(await page.getByTestId('notifications-unreachable').first().textContent()).toContain('cannot reach this machine');
    await page.getByRole('button', { name: 'Review LIVE payout' }).click();
    const review = page.getByTestId('payout-review');
    await review.waitFor();
    expect(creates()).toHaveLength(before);
    const send = review.getByRole('button', { name: 'Send LIVE payout' });
    expect(await send.isDisabled()).toBe(true);
    await screenshot('live-playground-review');
    await review.getByTestId('review-confirm').click();
    await send.click();
    await page.getByText('The gateway accepted the request').first().waitFor();
    expect(creates()).toHaveLength(before + 1);
  });

  it('a CSV batch: stored, then main’s review of its count and totals, started only once confirmed', async () => {
    const before = creates().length;
    const file = path.join(temp.dir, 'live.csv');
    writeFileSync(file, ['method,amount,currency,country,firstName,lastName,email,iban,bic,accountHolder', `open_banking,10.00,EUR,DEU,Ana,Lima,ana@example.com,${IBAN},COBADEFFXXX,Ana Lima`, `open_banking,20.50,EUR,DEU,Bo,Berg,bo@example.com,${IBAN},COBADEFFXXX,Bo Berg`, ''].join('\n'));
    await nav('Payouts');
    await page.getByRole('tab', { name: 'Batch (CSV)' }).click();
    await page.locator('input[type="file"]').setInputFiles(file);
    await page.getByRole('button', { name: 'Check the rows' }).click();
    await page.getByRole('button', { name: 'Review LIVE batch of 2' }).click();
    const review = page.getByTestId('batch-review');
    await review.waitFor();
    expect(await review.getByTestId('batch-review-totals').textContent()).toContain('30.50 EUR (2)');
    const start = review.getByRole('button', { name: 'Start LIVE batch of 2' });
    expect(await start.isDisabled()).toBe(true);
    expect(creates()).toHaveLength(before);
    await screenshot('live-batch-review');
    await review.getByTestId('batch-review-confirm').click();
    await start.click();
    const progress = page.getByTestId('batch-progress');
    await expect.poll(() => progress.getAttribute('data-batch-state'), { timeout: 15_000 }).toBe('done');
    expect(creates()).toHaveLength(before + 2);
  });
});

describe('a live payout whose answer was lost', () => {
  it('is listed in Unknown outcomes as waiting for its review, and settled from its page through the review under its one key', async () => {
    // Created at the gateway, every answer lost (the default policy's five tries under one key).
    for (let i = 0; i < 5; i++) gateway.createFaults.push({ type: 'lose_answer', how: 'drop' });
    const form = { profileId: liveId, method: 'open_banking', amount: '42.00', currency: 'EUR', country: 'DEU', customer: { firstName: 'Lia', lastName: 'Kent', email: 'lia@example.com' }, paymentDetails: { iban: IBAN, bic: 'COBADEFFXXX', accountHolder: 'Lia Kent' } };
    const review = await rpc<{ reviewId: string; payout: { merchantReference: string } }>(app, 'payouts:review', form);
    const lost = await rpc<{ outcome: string; payout: { id: number }; attempt: { idempotencyKey: string } }>(app, 'payouts:create', { ...form, merchantReference: review.payout.merchantReference, reviewId: review.reviewId, confirmed: true });
    expect(lost.outcome).toBe('unknown');
    const key = lost.attempt.idempotencyKey;
    const reference = review.payout.merchantReference;
    const sends = gateway.calls.filter((c) => c.idempotencyKey === key).length;

    await nav('Reconciliation');
    await page.getByRole('tab', { name: /Unknown outcomes/ }).click();
    await page.getByTestId('settle-unknown').click();
    const row = page.locator('[data-row-key]').filter({ hasText: reference });
    await expect.poll(() => row.textContent(), { timeout: 10_000 }).toContain('only after its review');
    // Without a payout_id it was looked up by its merchantReference, which this gateway (payouts by
    // payout_id only) refused: the row says so, once.
    expect((await row.textContent())?.match(/reads payouts by payout_id only/g)).toHaveLength(1);
    expect(gateway.calls.filter((c) => c.idempotencyKey === key)).toHaveLength(sends);
    await screenshot('unknown-outcomes');
    await row.click();

    const panel = page.getByTestId('settle-panel');
    await panel.waitFor();
    // The page says it once, offers no re-read it cannot make, and points to the resume; the one
    // rejected read is in the timeline, and the gateway is not asked that way again.
    const note = panel.getByTestId('reference-read-refused');
    await note.waitFor();
    expect(await note.textContent()).toMatch(/HTTP 400 MISSING_PARAMS.*Resume under the same key settles it/);
    expect(await page.getByTestId('transaction-detail').getByText(/reads payouts by payout_id only/).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Re-read status' }).count()).toBe(0);
    const byReference = () => gateway.calls.filter((c) => c.path === '/payouts/get-status' && c.reference === reference);
    expect(byReference()).toHaveLength(1);
    await expect.poll(() => page.locator('[data-testid="timeline-entry"][data-kind="status_read"]').count()).toBe(1);
    expect(await page.locator('[data-testid="timeline-entry"][data-kind="status_read"]').textContent()).toMatch(/rejected/);
    expect(gateway.calls.filter((c) => c.idempotencyKey === key)).toHaveLength(sends);
    await screenshot('reference-read-refused');
    expect(await panel.getByTestId('settle-key').textContent()).toBe(key);
    await panel.getByTestId('settle-resume').click();
    const resumeReview = page.getByRole('dialog').getByTestId('payout-review');
    await resumeReview.waitFor();
    expect(await resumeReview.getByTestId('review-amount').textContent()).toBe('42.00 EUR');
    expect(await resumeReview.getByTestId('review-iban').textContent()).toBe('DE•• •••• •••• •••• •• 3000');
    expect(await resumeReview.getByTestId('review-attempt').textContent()).toContain(key);
    const resume = resumeReview.getByRole('button', { name: 'Resume LIVE payout' });
    expect(await resume.isDisabled()).toBe(true);
    await screenshot('live-resume-review');
    // Closing the review sends nothing.
    await resumeReview.getByRole('button', { name: 'Cancel' }).click();
    expect(gateway.calls.filter((c) => c.idempotencyKey === key)).toHaveLength(sends);

    await panel.getByTestId('settle-resume').click();
    await resumeReview.getByTestId('review-confirm').click();
    await resume.click();
    await expect.poll(() => page.getByTestId('status-panel').textContent(), { timeout: 15_000 }).toMatch(/Payout (initiated|processing|succeeded)/);
    await page.getByTestId('settle-panel').waitFor({ state: 'detached' });
    expect(gateway.keysFor(reference)).toEqual([key]);
    expect(gateway.created(reference)).toBe(1);
    // Settled, it has its payout_id: read by it from now on, never again by merchantReference.
    expect(byReference()).toHaveLength(1);
  });
});

describe('a pay-in whose answer was lost', () => {
  it('is settled from its page by a status read by request_id, with no new attempt', async () => {
    const sandbox = await rpc<{ id: string }>(app, 'profiles:create', { name: 'Provider sandbox', environment: 'sandbox', baseUrl: gateway.baseUrl.replace(/v2$/, ''), merchantId: gateway.merchant.merchant_id, merchantSiteId: gateway.merchant.merchant_site_id });
    await rpc(app, 'credentials:set-merchant-token', { profileId: sandbox.id, token: gateway.merchant.merchant_token });
    for (let i = 0; i < 5; i++) gateway.createFaults.push({ type: 'lose_answer', how: 'drop' });
    const form = { ...payinForm('open_banking', { profileId: sandbox.id, amount: '18.00', email: 'kim@example.com' }), first_name: 'Kim', last_name: 'Lo' };
    const lost = await rpc<{ outcome: string; payin: { id: number; requestId: string }; attempt: { idempotencyKey: string } }>(app, 'payins:create', form);
    expect(lost.outcome).toBe('unknown');

    await page.goto(`${app.origin}/#/payins/${lost.payin.id}`);
    const panel = page.getByTestId('settle-panel');
    await panel.waitFor();
    expect(await panel.getByTestId('settle-key').textContent()).toBe(lost.attempt.idempotencyKey);
    await screenshot('unknown-payin-settle');
    await panel.getByRole('button', { name: 'Read status by request_id' }).click();
    await panel.waitFor({ state: 'detached' });
    await expect.poll(() => page.getByTestId('status-panel').textContent()).toMatch(/Pending redirect|Success/);
    expect(gateway.keysFor(lost.payin.requestId)).toEqual([lost.attempt.idempotencyKey]);
    expect(gateway.created(lost.payin.requestId)).toBe(1);
  });
});

describe('notifications that cannot reach this machine', () => {
  it('the profile form says so and offers the public URL; with one set, the warning goes', async () => {
    await nav('Settings');
    const row = page.locator('tr[data-profile="Shop live"]');
    await row.getByTestId('profile-unreachable').waitFor();
    await row.getByRole('button', { name: 'Edit' }).click();
    const dialog = page.getByRole('dialog');
    const warning = dialog.getByTestId('profile-form-unreachable');
    await warning.waitFor();
    expect(await warning.textContent()).toContain('public URL');
    await screenshot('profile-form-unreachable');
    await dialog.getByRole('textbox', { name: 'Notification public URL (optional)' }).fill('https://hooks.shop.example/paydesk/');
    await warning.waitFor({ state: 'detached' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  });
});
