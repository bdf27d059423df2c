/// <reference lib="dom" />
// The screen must not contradict itself, in Chromium against web mode and
// the embedded emulator: a filtered list follows its filter live (a row that stops matching
// leaves, one that starts matching joins at its place, the count moves); the verification state
// reads the same in the badge, the panel, the list and the exception lists, and the contradicting
// notification is named; a payout that ends C405 shows its failure, not "accepted". Setup goes
// through the contract (rpc) and the emulator's admin API; every check is on what the page shows.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payinForm, payoutForm } from '../helpers/fixtures';
import { waitFor } from '../helpers/poll';
import { tempDir } from '../helpers/temp-dir';
import { launchBrowser, rpc, screenshot, startWebApp, type WebApp } from './harness';

let app: WebApp;
let browser: Browser;
let cleanup: () => void;
let admin: string;
let notificationUrl: string;

interface Payin {
  id: number;
  requestId: string;
  payinId: string;
  statusCode: string | null;
  verification: string;
}

const tag = Math.random().toString(36).slice(2, 8);
const ref = (name: string) => `${name}-${tag}`;

/** The contract's pay-in form: a valid open banking pay-in. */
function form(requestId: string, email: string) {
  return payinForm('open_banking', { requestId, email });
}

async function createPayin(requestId: string, email = `ana-${tag}@example.com`): Promise<Payin> {
  const result = await rpc<{ outcome: string; payin: Payin }>(app, 'payins:create', form(requestId, email));
  expect(result.outcome).toBe('succeeded');
  return result.payin;
}

/** The consumer finishes the pay-in on the hosted page: the gateway notifies, the verifier reads. */
async function complete(p: Payin, statusCode: number): Promise<void> {
  const answer = await fetch(`${admin}/payins/${p.payinId}/complete`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ status_code: statusCode }) });
  expect(answer.status).toBe(200);
}

const payin = async (id: number) => (await rpc<{ payin: Payin }>(app, 'payins:get', { id })).payin;
const settled = (p: Payin, status: string, verification = 'verified') =>
  waitFor(() => payin(p.id), (now) => now.statusCode === status && now.verification === verification, `pay-in ${p.id} ${verification} at ${status}`, 10_000);

const poll = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 15_000, interval: 100 });

/** A page on a route, once its event stream is open (a push before that would never reach it). */
async function openAt(hash: string): Promise<Page> {
  const page = await browser.newPage();
  page.setDefaultTimeout(10_000);
  const live = page.waitForResponse((response) => new URL(response.url()).pathname === '/events');
  await page.goto(`${app.url}${hash}`);
  await live;
  return page;
}

const rowKeys = (page: Page, table: string) => page.getByRole('table', { name: table }).locator('[role="row"][data-row-key]').evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-row-key'))));
const totalOf = async (page: Page, screen: 'payins' | 'payouts') => Number(/^([\d,]+)/.exec((await page.getByTestId(`${screen}-total`).textContent()) ?? '')?.[1]?.replace(/,/g, '') ?? NaN);
const count = async (filters: Record<string, unknown>) => (await rpc<{ total: number }>(app, 'payins:count', filters)).total;

beforeAll(async () => {
  const temp = tempDir('paydesk-e2e-agree-');
  cleanup = temp.cleanup;
  app = await startWebApp(temp.dir);
  browser = await launchBrowser();
  const local = (await rpc<{ environment: string; baseUrl: string; notificationUrl: string }[]>(app, 'profiles:list')).find((p) => p.environment === 'local');
  admin = (local?.baseUrl ?? '').replace(/\/api\/v2$/, '/_emulator');
  notificationUrl = local?.notificationUrl ?? '';
});

afterAll(async () => {
  await browser?.close();
  const code = await app?.stop();
  cleanup?.();
  expect(code).toBe(0);
});

describe('a filtered list, live', () => {
  it('lets a pay-in that stops matching its status filter leave, and the count moves with it', async () => {
    await createPayin(ref('pending-a'));
    const page = await openAt('#/payins?status=100');
    await poll(() => page.getByTestId('payins-total').textContent()).toMatch(/^[\d,]+ (pay-in matches|pay-ins match)$/);
    const before = await totalOf(page, 'payins');
    expect(before).toBe(await count({ statusCodes: ['100'] }));

    // A new pending pay-in joins at the top; the consumer then pays it: 200 leaves the 100 list.
    const fresh = await createPayin(ref('leaves'));
    await poll(() => rowKeys(page, 'Pay-ins')).toContain(fresh.id);
    expect((await rowKeys(page, 'Pay-ins'))[0]).toBe(fresh.id);
    await poll(() => totalOf(page, 'payins')).toBe(before + 1);
    await complete(fresh, 200);
    await poll(() => rowKeys(page, 'Pay-ins')).not.toContain(fresh.id);
    await poll(() => totalOf(page, 'payins')).toBe(before);
    expect(before).toBe(await count({ statusCodes: ['100'] }));
    await page.close();
  });

  it('lets a pay-in that starts matching join at its place in the order, and the count moves with it', async () => {
    const older = await createPayin(ref('joins'));
    const newer = await createPayin(ref('paid'), `bob-${tag}+s200@example.com`);
    await settled(newer, '200');
    const page = await openAt('#/payins?status=200');
    await poll(() => rowKeys(page, 'Pay-ins')).toContain(newer.id);
    const before = await totalOf(page, 'payins');
    expect(await rowKeys(page, 'Pay-ins')).not.toContain(older.id);

    await complete(older, 200);
    await poll(() => rowKeys(page, 'Pay-ins')).toContain(older.id);
    const keys = await rowKeys(page, 'Pay-ins');
    // Newest first: the older pay-in sits after the newer one, not on top.
    expect(keys.indexOf(older.id)).toBeGreaterThan(keys.indexOf(newer.id));
    await poll(() => totalOf(page, 'payins')).toBe(before + 1);
    expect(await totalOf(page, 'payins')).toBe(await count({ statusCodes: ['200'] }));
    await screenshot(page, 'payins-filter-live');
    await page.close();
  });

  it('does the same for payouts: a payout in a pending-only list leaves it when it succeeds', async () => {
    const page = await openAt('#/payouts?status=P100,P101');
    await poll(() => page.getByTestId('payouts-total').textContent()).toMatch(/^(1 payout matches|\d+ payouts match)$/);
    const before = await totalOf(page, 'payouts');
    const sent = await rpc<{ payout: { id: number; statusCode: string } }>(app, 'payouts:create', payoutForm('fps', { amount: '25.00', reference: ref('po'), email: `ana-${tag}@example.com` }));
    expect(sent.payout.statusCode).toBe('P100');
    await poll(() => rowKeys(page, 'Payouts')).toContain(sent.payout.id);
    await poll(() => totalOf(page, 'payouts')).toBe(before + 1);
    // Without a scenario tag the emulator pays it out (P200, notified, then read): it leaves.
    await poll(() => rowKeys(page, 'Payouts')).not.toContain(sent.payout.id);
    await poll(() => totalOf(page, 'payouts')).toBe(before);
    expect((await rpc<{ total: number }>(app, 'payouts:count', { statusCodes: ['P100', 'P101'] })).total).toBe(before);
    await page.close();
  });
});

describe('one verification state', () => {
  it('shows a contradicting notification as a mismatch in the badge, the panel, the list and the exception list, and names it', async () => {
    const declined = await createPayin(ref('declined'), `cy-${tag}+s302@example.com`);
    await settled(declined, '302');
    const claim = { event: 'v2_payin_notification', status: 'success', status_code: 200, reason_code: null, request_id: declined.requestId, payin_id: declined.payinId, amount: 10.5, currency: 'EUR', payment_method: 'open_banking' };
    const posted = await fetch(notificationUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(claim) });
    expect(posted.status).toBe(200);
    await settled(declined, '302', 'mismatch');

    const page = await openAt(`#/payins/${declined.id}`);
    const panel = page.getByTestId('verification-panel');
    await poll(() => panel.locator('[data-verification]').getAttribute('data-verification')).toBe('mismatch');
    expect(await page.getByTestId('transaction-detail').locator('[data-verification]').first().getAttribute('data-verification')).toBe('mismatch');
    const sentence = (await panel.getByTestId('verification-sentence').textContent()) ?? '';
    expect(sentence).toContain('mismatch');
    expect(sentence).not.toContain('agrees');
    // The contradicting claim itself: which notification, what it claimed, when.
    const contradiction = panel.getByTestId('contradicting-claim');
    await poll(() => contradiction.count()).toBe(1);
    expect(await contradiction.getAttribute('data-status')).toBe('200');
    const said = (await contradiction.textContent()) ?? '';
    expect(said).toMatch(/^Notification #\d+claimed/);
    expect(said).toContain('200 · Success');
    expect(said).toMatch(/received [^—]*\d:\d{2}:\d{2}[^—]* — final status 302 contradicted by notification status 200/);
    await screenshot(page, 'verification-mismatch');

    await contradiction.getByRole('link', { name: /Notification #\d+/ }).click();
    await page.waitForURL(/#\/webhooks\/\d+$/);
    await poll(() => page.getByTestId('notification-detail').locator('[data-outcome]').first().getAttribute('data-outcome')).toBe('mismatch');

    // The list and the status mismatch list show the same state.
    await page.goto(`${app.url}#/payins?q=${declined.requestId}`);
    await poll(() => page.getByRole('table', { name: 'Pay-ins' }).locator(`[data-row-key="${declined.id}"] [data-verification]`).getAttribute('data-verification')).toBe('mismatch');
    await page.goto(`${app.url}#/reconciliation`);
    await page.getByRole('tab', { name: /Status mismatch/ }).click();
    const row = page.getByRole('table', { name: 'Status mismatch' }).locator('[role="row"]', { hasText: declined.requestId });
    await poll(() => row.locator('[data-verification]').getAttribute('data-verification')).toBe('mismatch');
    await page.close();
  });

  it('shows an unknown status code the gateway confirms as verified in the badge and the panel alike', async () => {
    const odd = await createPayin(ref('odd'));
    await complete(odd, 777);
    await settled(odd, '777');
    const page = await openAt(`#/payins/${odd.id}`);
    const panel = page.getByTestId('verification-panel');
    await poll(() => panel.locator('[data-verification]').getAttribute('data-verification')).toBe('verified');
    expect(await page.getByTestId('transaction-detail').locator('[data-verification]').first().textContent()).toBe('verified');
    expect(await panel.getByTestId('verification-sentence').textContent()).toBe('A status read from the gateway agrees with the latest notification: 777.');
    expect(await page.getByTestId('conflicts').count()).toBe(0);
    expect(await page.getByTestId('status-panel').locator('[data-status="777"]').textContent()).toBe('777 · unknown');
    await page.close();
  });
});

describe('a sent payout', () => {
  it('that ends C405 says it failed, in red, once the gateway says so, live', async () => {
    const page = await openAt('#/payouts?tab=new');
    const field = (label: string) => page.getByRole('textbox', { name: label, exact: true });
    await page.locator('.mantine-SegmentedControl-root').getByText('Faster Payments (UK)', { exact: true }).click();
    const values = { Amount: '10.12', Currency: 'GBP', Country: 'GBR', 'First name': 'Bob', 'Last name': 'Stone', 'E-mail': `bob-${tag}+sC405@example.com`, 'Sort code': '401276', 'Account number': '12345678', 'Account holder': 'Bob Stone' };
    for (const [label, value] of Object.entries(values)) await field(label).fill(value);
    await page.getByRole('button', { name: 'Review payout' }).click();
    const review = page.getByTestId('payout-review');
    await review.waitFor();
    await review.getByTestId('limit-check').waitFor();
    await review.getByRole('button', { name: 'Send payout' }).click();

    const heading = page.getByTestId('result-heading');
    await heading.waitFor();
    // Accepted for now, and not in the colour of success: the payout is still pending.
    const first = { stage: await heading.getAttribute('data-stage'), color: await heading.getAttribute('data-color') };
    expect(first.color).not.toBe('teal');
    await poll(() => heading.getAttribute('data-stage')).toBe('final');
    expect(await heading.textContent()).toBe('Payout failed: C405');
    expect(await heading.getAttribute('data-color')).toBe('red');
    expect(await heading.evaluate((el) => getComputedStyle(el).color)).toMatch(/^rgb\((\d+), (\d+), (\d+)\)$/);
    const [r, g, b] = (await heading.evaluate((el) => getComputedStyle(el).color)).match(/\d+/g)?.map(Number) ?? [];
    expect((r ?? 0) > (g ?? 0) && (r ?? 0) > (b ?? 0)).toBe(true); // red, seen as the user sees it
    expect(await page.getByTestId('payout-result').textContent()).toContain('Top up the payout wallet, then send a new payout.');
    expect(await page.getByTestId('payout-result').textContent()).not.toContain('accepted');
    await screenshot(page, 'payout-result-declined');
    await page.close();
  });
});
