/// <reference lib="dom" />
// The support agent's and the pay-ins list's journeys, as a user does them: Ctrl+K with a
// request_id or an e-mail lands on the pay-in (status meaning, what to tell the customer, raw
// notification JSON, a status re-read, the evidence pack); the list filters, saves views, exports
// CSV, opens rows from the keyboard, updates live and stays virtualised over hundreds of rows.
// Setup goes through the contract (rpc); every check is on what the page shows or saves.
import type { Browser, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { until } from '../helpers/poll';
import { downloaded, openApp, pick, rpc, screenshot, useWebApp, type WebApp } from './harness';
import { payinForm } from '../helpers/fixtures';

let app: WebApp;
let browser: Browser;

interface Payin {
  id: number;
  requestId: string;
  payinId: string | null;
  statusCode: string | null;
  verification: string;
  method: string;
}

const tag = Math.random().toString(36).slice(2, 8);
const ref = (name: string) => `${name}-${tag}`;

type Method = 'open_banking' | 'crypto' | 'credit_card';

async function createPayin(requestId: string, method: Method, email: string, amount = method === 'crypto' ? '0.0123456789' : '10.50'): Promise<Payin> {
  const form = { ...payinForm(method, { requestId, amount, email }), ...(method === 'crypto' ? { currency: 'USD' } : {}) };
  const result = await rpc<{ outcome: string; payin: Payin }>(app, 'payins:create', form);
  expect(result.outcome).toBe('succeeded');
  return result.payin;
}

/** What the page shows, polled (vitest's default of 1 s is short for a gateway round trip). */
const poll = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 10_000, interval: 100 });

async function payin(id: number): Promise<Payin> {
  return (await rpc<{ payin: Payin }>(app, 'payins:get', { id })).payin;
}

async function verified(id: number, status: string): Promise<void> {
  await until(async () => {
    const p = await payin(id);
    return p.statusCode === status && p.verification === 'verified';
  }, `pay-in ${id} verified at ${status}`, 10_000);
}

async function openSearch(page: Page, query: string) {
  await page.keyboard.press('Control+K');
  const box = page.getByRole('combobox', { name: 'Reference or e-mail' });
  await box.waitFor();
  await poll(() => box.evaluate((el) => el === document.activeElement)).toBe(true);
  await box.fill(query);
  return box;
}

const table = (page: Page) => page.getByRole('table', { name: 'Pay-ins' });
const rowOf = (page: Page, id: number) => table(page).locator(`[role="row"][data-row-key="${id}"]`);
const dataRows = (page: Page) => table(page).locator('[role="row"][data-row-key]');

let declined: Payin;
let twinA: Payin;
let twinB: Payin;
const twinEmail = `bob-${tag}+s200@example.com`;

useWebApp('support', (web) => ({ app, browser } = web));

beforeAll(async () => {
  declined = await createPayin(ref('declined'), 'credit_card', `ana-${tag}+s302@example.com`);
  twinA = await createPayin(ref('twin-a'), 'open_banking', twinEmail);
  twinB = await createPayin(ref('twin-b'), 'crypto', twinEmail);
  await Promise.all([verified(declined.id, '302'), verified(twinA.id, '200'), verified(twinB.id, '200')]);
});

describe('support agent: global search and the pay-in detail', () => {
  it('Ctrl+K with a request_id lands on the pay-in: meaning, what to tell the customer, raw JSON, re-read, evidence', async () => {
    const page = await openApp(browser, app);
    await openSearch(page, declined.requestId);
    await page.getByRole('grid', { name: 'Matches' }).getByRole('row').filter({ hasText: declined.requestId }).waitFor();
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(`#/payins/${declined.id}$`));
    const detail = page.getByTestId('transaction-detail');
    await detail.waitFor();
    await page.getByRole('dialog').waitFor({ state: 'detached' });

    await poll(() => page.getByTestId('status-meaning').textContent()).toBe('Declined due to risk decision');
    expect(await page.getByTestId('status-final').textContent()).toBe('final');
    expect(await page.getByTestId('tell-customer').textContent()).toContain('declined for security reasons. Please use another payment method.');
    expect(await page.getByTestId('reason').textContent()).toContain('RISK_BLOCKED');
    expect(await page.getByTestId('amount').textContent()).toContain('10.50 EUR');
    expect(await page.getByTestId('masked-card').textContent()).toContain('411111******1111');
    expect(await page.content()).not.toContain('4111111111111111');
    await poll(() => page.getByTestId('verification-panel').getByText('verified', { exact: true }).isVisible()).toBe(true);
    expect(await page.getByTestId('notified').textContent()).toContain('302');
    expect(await page.getByTestId('verified').textContent()).toContain('302');
    for (const label of ['request_id', 'payin_id', 'Idempotency-Key', 'e-mail']) {
      expect(await page.getByRole('button', { name: `Copy ${label}`, exact: true }).count(), label).toBe(1);
    }
    expect(await page.getByTestId('ref-request_id').textContent()).toContain(declined.requestId);

    // A notification's raw JSON, one click away.
    const notification = page.locator('[data-testid="timeline-entry"][data-kind="notification"]').first();
    await notification.getByRole('button', { name: 'Show raw JSON' }).click();
    const body = notification.getByLabel('Notification body', { exact: true });
    await poll(() => body.textContent()).toContain('"event": "v2_payin_notification"');
    expect(await body.textContent()).toContain('"status_code": 302');
    expect(await notification.getByRole('button', { name: 'Copy notification body' }).count()).toBe(1);
    await screenshot(page, 'payin-detail');

    // Re-read: one more status read in the timeline, without a reload.
    const reads = page.locator('[data-testid="timeline-entry"][data-kind="status_read"]');
    const before = await reads.count();
    await page.getByRole('button', { name: 'Re-read status' }).click();
    await poll(() => reads.count()).toBe(before + 1);
    await poll(() => page.getByText('The gateway says: status 302.').isVisible()).toBe(true);

    const { download, text } = await downloaded(page, () => page.getByRole('button', { name: 'Export evidence pack' }).click());
    expect(download.suggestedFilename()).toMatch(/^paydesk-evidence-payin-.*\.json$/);
    expect(text).toContain(declined.requestId);
    expect(text).not.toContain('4111111111111111');
    await page.close();
  });

  it('search finds a notification about a pay-in the ledger does not hold, and opens it in the webhook inspector', async () => {
    const ghost = ref('ghost');
    const [local] = (await rpc<{ environment: string; notificationUrl: string }[]>(app, 'profiles:list')).filter((p) => p.environment === 'local');
    const body = JSON.stringify({ event: 'v2_payin_notification', status: 'success', status_code: 200, request_id: ghost, payin_id: `pid-${ghost}`, amount: '12.00', currency: 'EUR' });
    const posted = await fetch(local?.notificationUrl ?? '', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(posted.status).toBe(200);

    const page = await openApp(browser, app);
    const results = page.getByRole('grid', { name: 'Matches' }).getByRole('row');
    await openSearch(page, ghost);
    await poll(() => results.count()).toBe(1);
    expect(await results.first().textContent()).toMatch(/Orphan notification.*matched on request_id.*no pay-in with it in the ledger/);
    await page.keyboard.press('Enter');
    await page.waitForURL(/#\/webhooks\/\d+$/);
    const detail = page.getByTestId('notification-detail');
    await poll(() => detail.getByTestId('notification-body').textContent()).toContain(ghost);
    expect(await detail.locator('[data-outcome]').first().getAttribute('data-outcome')).toBe('orphan');
    await page.close();
  });

  it('search by e-mail lists every pay-in of the customer; arrows and Enter open one; Escape closes', async () => {
    const page = await openApp(browser, app);
    await page.getByRole('button', { name: /Search transactions/ }).click();
    const box = page.getByRole('combobox', { name: 'Reference or e-mail' });
    await box.fill(twinEmail.toUpperCase());
    const results = page.getByRole('grid', { name: 'Matches' }).getByRole('row');
    await poll(() => results.count()).toBe(2);
    expect(await results.first().textContent()).toContain(twinB.requestId); // newest first
    await screenshot(page, 'search');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });

    await openSearch(page, twinEmail);
    await poll(() => results.count()).toBe(2);
    await page.keyboard.press('ArrowDown');
    await poll(() => results.nth(1).getByRole('gridcell').getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(`#/payins/${twinA.id}$`));
    await poll(() => page.getByTestId('status-meaning').textContent()).toBe('Success');

    await openSearch(page, `nobody-${tag}@example.com`);
    await poll(() => page.getByRole('status').filter({ hasText: 'Nothing matches' }).isVisible()).toBe(true);
    await page.keyboard.press('Escape');

    // A link to a pay-in that is not in the ledger says so.
    await page.goto(`${app.origin}/?token=${app.token}#/payins/999999`);
    await poll(() => page.getByText('No such pay-in').isVisible()).toBe(true);
    expect(await page.getByText('No pay-in with id 999999 in the ledger.').isVisible()).toBe(true);
    await page.close();
  });
});

describe('pay-ins list', () => {
  it('filters by status and method, saves the view, applies it after a reload and exports its CSV', async () => {
    await createPayin(ref('ob-declined'), 'open_banking', `cy-${tag}+s302@example.com`).then((p) => verified(p.id, '302'));
    const page = await openApp(browser, app);
    await page.getByRole('navigation').getByRole('link', { name: 'Pay-ins' }).click();
    await poll(() => page.getByTestId('payins-total').textContent()).toMatch(/^\d+ pay-ins$/);

    await pick(page, 'Status', /^200 · Success$/);
    await page.waitForURL(/status=200/);
    await pick(page, 'Method', /^Open banking$/);
    await page.waitForURL(/method=open_banking/);
    const filters = { statusCodes: ['200'], methods: ['open_banking'] };
    const expected = { ...(await rpc<{ items: Payin[] }>(app, 'payins:list', filters)), ...(await rpc<{ total: number }>(app, 'payins:count', filters)) };
    expect(expected.total).toBeGreaterThan(0);
    await poll(() => page.getByTestId('payins-total').textContent()).toBe(`${expected.total} ${expected.total === 1 ? 'pay-in matches' : 'pay-ins match'}`);
    await poll(async () => (await dataRows(page).evaluateAll((rows) => rows.map((r) => r.getAttribute('data-row-key')))).sort()).toEqual(expected.items.map((p) => String(p.id)).sort());
    for (const text of await dataRows(page).allTextContents()) {
      expect(text).toContain('200 · Success');
      expect(text).toContain('Open banking');
    }

    await page.getByRole('button', { name: 'Save view…' }).click();
    await page.getByRole('dialog').getByLabel('View name').fill('Open banking successes');
    await page.getByRole('dialog').getByRole('button', { name: 'Save view' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });

    await page.goto(`${app.origin}/?token=${app.token}#/payins`);
    await poll(() => page.getByTestId('payins-total').textContent()).toMatch(/^\d+ pay-ins$/);
    await page.getByRole('combobox', { name: 'Saved view', exact: true }).click();
    await page.getByRole('option', { name: 'Open banking successes' }).click();
    await page.waitForURL(/status=200/);
    expect(page.url()).toContain('method=open_banking');
    await poll(() => page.getByTestId('payins-total').textContent()).toBe(`${expected.total} ${expected.total === 1 ? 'pay-in matches' : 'pay-ins match'}`);

    const { download, text } = await downloaded(page, () => page.getByRole('button', { name: 'Export CSV' }).click());
    expect(download.suggestedFilename()).toMatch(/^paydesk-payins-.*\.csv$/);
    const [header, ...lines] = text.trimEnd().split('\r\n');
    expect(header).toContain('request_id,payin_id');
    expect(lines.map((l) => l.split(',')[1]).sort()).toEqual(expected.items.map((p) => p.requestId).sort());
    for (const line of lines) expect(line).toMatch(/,open_banking,.*,200,Success,success,/);
    await page.close();
  });

  it('shows a new pay-in live and moves it from pending to 200 without a reload; arrows and Enter open a row', async () => {
    const page = await openApp(browser, app);
    await page.goto(`${app.origin}/?token=${app.token}#/payins`);
    await poll(() => page.getByTestId('payins-total').textContent()).toMatch(/^\d+ pay-ins$/);

    // No scenario tag: the pay-in waits on the hosted page (100) until the consumer acts.
    const fresh = await createPayin(ref('live'), 'open_banking', `live-${tag}@example.com`);
    await poll(() => rowOf(page, fresh.id).textContent()).toContain('100 · Pending');
    expect(await dataRows(page).first().getAttribute('data-row-key')).toBe(String(fresh.id));
    const local = (await rpc<{ environment: string; baseUrl: string }[]>(app, 'profiles:list')).find((p) => p.environment === 'local');
    const admin = (local?.baseUrl ?? '').replace(/\/api\/v2$/, '/_emulator');
    const completed = await fetch(`${admin}/payins/${fresh.payinId}/complete`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ status_code: 200 }) });
    expect(completed.status).toBe(200);
    await poll(() => rowOf(page, fresh.id).textContent()).toContain('200 · Success');
    await poll(() => rowOf(page, fresh.id).locator('[data-verification="verified"]').count()).toBe(1);
    await screenshot(page, 'payins');

    // The badges explain themselves on hover (each tooltip is set up on its first hover only).
    const tooltip = (text: string | RegExp) => page.locator('[role="tooltip"]').filter({ hasText: text });
    await rowOf(page, fresh.id).locator('[data-status="200"]').hover();
    // The category said once: 200's meaning is "Success" (not "Success: Success").
    await tooltip(/^Success$/).waitFor();
    await rowOf(page, fresh.id).locator('[data-verification="verified"]').hover();
    await poll(() => tooltip('Status read: 200 at ').textContent()).toMatch(/^Notified: 200 at .* Status read: 200 at /);
    await poll(() => tooltip(/^Success$/).count()).toBe(0);

    // Keyboard: into the rows, one down, Enter opens that row.
    const second = await dataRows(page).nth(1).getAttribute('data-row-key');
    await table(page).locator('[role="rowgroup"][tabindex="0"]').focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(`#/payins/${second}$`));
    await page.getByTestId('transaction-detail').waitFor();
    await page.getByRole('link', { name: /All pay-ins/ }).click();
    await page.waitForURL(/#\/payins$/);

    // The list's own search: a prefix of the reference, applied after a pause in typing.
    const prefix = fresh.requestId.slice(0, -2);
    await page.getByRole('textbox', { name: 'Search', exact: true }).fill(prefix);
    await page.waitForURL(new RegExp(`q=${prefix}$`));
    await poll(() => page.getByTestId('payins-total').textContent()).toBe('1 pay-in matches');
    expect(await dataRows(page).first().getAttribute('data-row-key')).toBe(String(fresh.id));
    await page.close();
  });

  it('asks for the first page before anything else and for its count only once the page is in', async () => {
    const page = await browser.newPage();
    const calls: { channel: string; event: 'sent' | 'answered' }[] = [];
    const channel = (url: string) => /\/rpc\/([\w:-]+)$/.exec(url)?.[1];
    page.on('request', (request) => {
      const name = channel(request.url());
      if (name) calls.push({ channel: name, event: 'sent' });
    });
    page.on('requestfinished', (request) => {
      const name = channel(request.url());
      if (name) calls.push({ channel: name, event: 'answered' });
    });
    await page.goto(`${app.origin}/?token=${app.token}#/payins`);
    await poll(() => page.getByTestId('payins-total').textContent()).toMatch(/^[\d,]+ pay-ins$/);
    expect(calls[0]).toEqual({ channel: 'payins:list', event: 'sent' });
    const listAnswered = calls.findIndex((c) => c.channel === 'payins:list' && c.event === 'answered');
    const countSent = calls.findIndex((c) => c.channel === 'payins:count' && c.event === 'sent');
    expect(listAnswered).toBeGreaterThan(0);
    expect(countSent).toBeGreaterThan(listAnswered);
    expect(calls.filter((c) => c.channel === 'payins:list' && c.event === 'sent')).toHaveLength(1);
    await page.close();
  });

  it('stays virtualised over hundreds of rows and loads the next page as the user scrolls', async () => {
    const seeded = Array.from({ length: 240 }, (_, i) => ref(`bulk-${i}`));
    for (let i = 0; i < seeded.length; i += 48) {
      await Promise.all(seeded.slice(i, i + 48).map((requestId) => createPayin(requestId, 'crypto', `bulk-${tag}@example.com`)));
    }
    const { total } = await rpc<{ total: number }>(app, 'payins:count', { methods: ['crypto'] });
    const oldest = (await rpc<{ items: Payin[] }>(app, 'payins:list', { methods: ['crypto'], sort: 'oldest', limit: 1 })).items[0];
    expect(total).toBeGreaterThan(200);
    const page = await openApp(browser, app);
    await page.goto(`${app.origin}/?token=${app.token}#/payins?method=crypto`);
    await poll(() => page.getByTestId('payins-total').textContent()).toBe(`${total} pay-ins match`);
    // The first page only (aria-rowcount counts the header row too), and far fewer row elements than rows.
    await poll(() => table(page).getAttribute('aria-rowcount')).toBe('101');
    expect(await dataRows(page).count()).toBeLessThan(60);

    // Scrolling to the end loads the next pages, one at a time, until the oldest row is in view.
    const scroller = table(page).locator('[role="rowgroup"][tabindex="0"]');
    await poll(async () => {
      await scroller.evaluate((el) => el.scrollTo(0, el.scrollHeight));
      return Number(await table(page).getAttribute('aria-rowcount')) - 1;
    }).toBe(total);
    await scroller.evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await poll(() => dataRows(page).last().getAttribute('data-row-key')).toBe(String(oldest?.id));
    expect(await dataRows(page).count()).toBeLessThan(60);
    await page.close();
  });
});
