/// <reference lib="dom" />
// Finance reconciles as a user would: exact totals per day and currency, exception lists with
// their counts (a forged notification makes a mismatch, one for an unknown pay-in an orphan), an
// exception opened to its transaction, the sweep run to the end and cancelled, CSV exports saved.
// Setup goes through the contract (rpc); every check is on what the page shows or saves.
import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { until } from '../helpers/poll';
import { downloaded, openApp, rpc, screenshot as saveScreenshot, useWebApp, type WebApp } from './harness';
import { payinForm as samplePayin, payoutForm as samplePayout } from '../helpers/fixtures';

/** Full-page screenshot from the top, so the fixed header sits where the user sees it. */
async function screenshot(page: Page, name: string): Promise<void> {
  await page.evaluate(() => window.scrollTo(0, 0));
  await saveScreenshot(page, name);
}

let app: WebApp;
let browser: Browser;
let page: Page;

interface Payin {
  id: number;
  requestId: string;
  payinId: string | null;
  statusCode: string | null;
  final: boolean;
}
interface Profile {
  id: string;
  environment: string;
  notificationUrl: string;
}

const today = new Date().toISOString().slice(0, 10);
const tag = Math.random().toString(36).slice(2, 8);

const payinForm = (requestId: string, amount: string, currency: string, email: string) => ({ ...samplePayin('open_banking', { requestId, amount, email }), currency });

async function createPayin(requestId: string, amount: string, currency: string, email: string): Promise<Payin> {
  const result = await rpc<{ outcome: string; payin: Payin }>(app, 'payins:create', payinForm(requestId, amount, currency, email));
  expect(result.outcome).toBe('succeeded');
  return result.payin;
}

async function payinsWith(statusCodes: string[]): Promise<Payin[]> {
  return (await rpc<{ items: Payin[] }>(app, 'payins:list', { statusCodes, limit: 500 })).items;
}

async function postNotification(url: string, body: Record<string, unknown>): Promise<number> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return response.status;
}

const claim = (payinId: string, requestId: string, statusCode: number, amount: number, currency: string) => ({
  event: 'v2_payin_notification',
  status: 'success',
  status_code: statusCode,
  reason_code: null,
  request_id: requestId,
  payin_id: payinId,
  amount,
  currency,
  payment_method: 'open_banking',
  updated_at: new Date().toISOString(),
});

let declined: Payin;

useWebApp('recon', (web) => ({ app, browser } = web));

beforeAll(async () => {
  // Two successes (10.10 + 20.20 = 30.30 EUR), one decline (5.00 EUR), three pending USD pay-ins
  // (for the sweep), one payout of 25.00 GBP.
  await Promise.all([
    createPayin(`ok-1-${tag}`, '10.10', 'EUR', 'ana+s200@example.com'),
    createPayin(`ok-2-${tag}`, '20.20', 'EUR', 'ana+s200@example.com'),
    createPayin(`declined-${tag}`, '5.00', 'EUR', 'ana+s302@example.com'),
    ...[1, 2, 3].map((n) => createPayin(`pending-${n}-${tag}`, '1.00', 'USD', 'bea@example.com')),
    rpc(app, 'payouts:create', samplePayout('fps', { amount: '25.00', email: 'ana+sP200@example.com' })),
  ]);
  // The +s scenarios complete within 2 s; their notifications are then verified by status reads.
  await until(async () => (await payinsWith(['200', '302'])).length === 3, 'the +s200 and +s302 pay-ins to end', 15_000);
  declined = (await payinsWith(['302']))[0] as Payin;
  // Its own notification of 302 is in and confirmed first: the forged 200 below contradicts a final status already notified.
  await until(async () => (await rpc<{ payin: { lastNotifiedStatus: string | null; verification: string } }>(app, 'payins:get', { id: declined.id })).payin.verification === 'verified', 'the decline notified and confirmed', 15_000);

  const local = (await rpc<Profile[]>(app, 'profiles:list')).find((p) => p.environment === 'local') as Profile;
  // A forged claim that the declined pay-in succeeded: the status read contradicts it (mismatch).
  expect(await postNotification(local.notificationUrl, claim(declined.payinId as string, declined.requestId, 200, 5.0, 'EUR'))).toBe(200);
  // A notification for a pay-in this ledger never created: kept as an orphan.
  expect(await postNotification(local.notificationUrl, claim(`ghost-${tag}`, `ghost-req-${tag}`, 200, 9.99, 'EUR'))).toBe(200);

  page = await openApp(browser, app);
  await page.getByRole('navigation').getByRole('link', { name: 'Reconciliation' }).click();
  await page.getByRole('heading', { level: 2, name: 'Reconciliation' }).waitFor();
}, 60_000);

/** The cells of the totals row for one subject / group value / currency. */
async function totalsRow(table: string, cells: string[]): Promise<string[] | null> {
  const rows = page.getByRole('table', { name: table }).getByRole('row');
  for (const row of await rows.all()) {
    const texts = (await row.getByRole('cell').allTextContents()).map((t) => t.trim());
    if (cells.every((cell, i) => texts[i] === cell)) return texts;
  }
  return null;
}

describe('reconciliation', () => {
  it('shows exact totals per day and per currency, with succeeded amounts apart', async () => {
    // Pay-ins, today, EUR: 3 of them, 35.30 in all, 2 succeeded for exactly 30.30.
    await expect
      .poll(() => totalsRow('Totals by day', ['Pay-ins', today, 'EUR']), { timeout: 10_000 })
      .toEqual(['Pay-ins', today, 'EUR', '3', '35.30 EUR', '2', '30.30 EUR']);
    expect(await totalsRow('Totals by day', ['Pay-ins', today, 'USD'])).toEqual(['Pay-ins', today, 'USD', '3', '3.00 USD', '0', '0.00 USD']);
    await expect.poll(() => totalsRow('Totals by day', ['Payouts', today, 'GBP']), { timeout: 10_000 }).toEqual(['Payouts', today, 'GBP', '1', '25.00 GBP', '1', '25.00 GBP']);

    await page.getByText('By currency', { exact: true }).click();
    await expect.poll(() => totalsRow('Totals by currency', ['Pay-ins', 'EUR'])).toEqual(['Pay-ins', 'EUR', '3', '35.30 EUR', '2', '30.30 EUR']);
    await page.getByText('By status', { exact: true }).click();
    await expect.poll(async () => (await totalsRow('Totals by status', ['Pay-ins']))?.length).toBe(7);
    expect((await totalsRow('Totals by status', ['Pay-ins', '302 · Decline', 'EUR']))?.slice(3)).toEqual(['1', '5.00 EUR', '0', '0.00 EUR']);
    // Both charts are drawn.
    expect(await page.getByTestId('chart-amounts-by-day').locator('.recharts-bar-rectangle').count()).toBeGreaterThan(0);
    expect(await page.getByTestId('chart-by-status').locator('.recharts-bar-rectangle').count()).toBeGreaterThan(0);
    // A row opens the list it sums.
    await page.getByRole('table', { name: 'Totals by status' }).getByRole('row').filter({ hasText: '302' }).click();
    await page.waitForURL(/#\/payins\?currency=EUR&status=302$/);
    await page.goBack();
    await page.getByRole('heading', { level: 2, name: 'Reconciliation' }).waitFor();
    // A quick back may find the screen still mounted, grouped as it was left (React kept it): either way its totals are there.
    await page.getByText('By day', { exact: true }).click();
    await expect.poll(() => totalsRow('Totals by day', ['Pay-ins', today, 'EUR'])).not.toBeNull();
    await screenshot(page, 'reconciliation');
  });

  it('counts every exception list in its tab and opens an exception on its transaction', async () => {
    await expect.poll(() => page.getByTestId('count-status_mismatch').textContent(), { timeout: 15_000 }).toBe('1');
    await expect.poll(() => page.getByTestId('count-orphans').textContent()).toBe('1');
    expect(await page.getByTestId('count-pending_too_long').textContent()).toBe('0');

    // The threshold is the user's: at 0 minutes the three pending pay-ins are "pending too long".
    const threshold = page.getByLabel('Pending too long after (minutes)');
    await threshold.fill('0');
    await expect.poll(() => page.getByTestId('count-pending_too_long').textContent(), { timeout: 10_000 }).toBe('3');
    // It is remembered (main's settings): the screen opens again with it.
    await expect.poll(async () => (await rpc<{ reconciliationPendingMinutes: number }>(app, 'settings:get')).reconciliationPendingMinutes).toBe(0);
    await page.reload();
    await page.getByRole('heading', { level: 2, name: 'Reconciliation' }).waitFor();
    await expect.poll(() => threshold.inputValue()).toBe('0');
    await expect.poll(() => page.getByTestId('count-pending_too_long').textContent(), { timeout: 10_000 }).toBe('3');
    await threshold.fill('60');
    await expect.poll(async () => (await rpc<{ reconciliationPendingMinutes: number }>(app, 'settings:get')).reconciliationPendingMinutes).toBe(60);

    await page.getByRole('tab', { name: /Orphans/ }).click();
    const orphans = page.getByRole('table', { name: 'Orphans' });
    await expect.poll(() => orphans.getByRole('row').filter({ hasText: `ghost-req-${tag}` }).count()).toBe(1);

    await page.getByRole('tab', { name: /Status mismatch/ }).click();
    const mismatches = page.getByRole('table', { name: 'Status mismatch' });
    const row = mismatches.getByRole('row').filter({ hasText: declined.requestId });
    await row.waitFor();
    expect(await row.textContent()).toContain('302');
    // Flagged as a mismatch, it never reads as agreement: the claim that contradicts (200), then the status read (302).
    const notifiedRead = row.getByTestId('notified-read');
    expect((await notifiedRead.textContent())?.trim()).toBe('200 / 302');
    expect(await notifiedRead.getAttribute('title')).toBe("A notification claimed 200, contradicting the ledger's 302. Status read: 302.");
    await row.click();
    await page.waitForURL(new RegExp(`#/payins/${declined.id}$`));
    // The pay-in's own screen opens, naming it.
    await page.getByText(declined.requestId).first().waitFor();
    await page.goBack();
    await page.getByRole('heading', { level: 2, name: 'Reconciliation' }).waitFor();
  });

  it('narrows the exception lists, their counts and their CSV to the date range above them, and says so', async () => {
    const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
    const from = page.getByRole('textbox', { name: 'From (UTC)' });
    const to = page.getByRole('textbox', { name: 'To (UTC)' });
    const defaults = { from: await from.inputValue(), to: await to.inputValue() };
    expect(defaults).toEqual({ from: day(29), to: today });
    await expect.poll(() => page.getByTestId('exceptions-scope').textContent()).toContain(`Pay-ins and payouts from ${defaults.from} to ${today} (UTC`);

    // Every exception of this run happened today: a range that ends yesterday holds none of them.
    await from.fill(day(3));
    await to.fill(day(1));
    await expect.poll(() => page.getByTestId('exceptions-scope').textContent()).toContain(`from ${day(3)} to ${day(1)}`);
    await expect.poll(() => page.getByTestId('count-status_mismatch').textContent(), { timeout: 10_000 }).toBe('0');
    expect(await page.getByTestId('count-orphans').textContent()).toBe('0');
    await page.getByRole('tab', { name: /Orphans/ }).click();
    const orphans = page.getByRole('table', { name: 'Orphans' });
    await expect.poll(() => orphans.getByRole('row').filter({ hasText: `ghost-req-${tag}` }).count()).toBe(0);
    const { download, text } = await downloaded(page, () => page.getByRole('button', { name: 'Export list CSV' }).click());
    expect(download.suggestedFilename()).toMatch(/^paydesk-orphans-.*\.csv$/);
    expect(text.trim().split('\r\n')).toHaveLength(1);

    // Today alone brings them back.
    await from.fill(today);
    await to.fill(today);
    await expect.poll(() => page.getByTestId('count-orphans').textContent(), { timeout: 10_000 }).toBe('1');
    expect(await page.getByTestId('count-status_mismatch').textContent()).toBe('1');
    await expect.poll(() => orphans.getByRole('row').filter({ hasText: `ghost-req-${tag}` }).count()).toBe(1);
    await from.fill(defaults.from);
    await expect.poll(() => page.getByTestId('exceptions-scope').textContent()).toContain(`from ${defaults.from} to ${today}`);
  });

  it('runs the sweep to the end with a progress bar, then cancels one that is still running', async () => {
    const sweep = page.getByTestId('sweep');
    const bar = sweep.getByRole('progressbar', { name: 'Sweep progress' });
    await sweep.getByRole('button', { name: 'Run sweep' }).click();
    await expect.poll(() => sweep.getByTestId('sweep-state').textContent(), { timeout: 15_000 }).toBe('done');
    expect(await bar.getAttribute('aria-valuenow')).toBe('100');
    const [done, total] = ((await sweep.getByTestId('sweep-count').textContent()) ?? '').match(/\d+/g)?.map(Number) ?? [];
    expect(total).toBeGreaterThanOrEqual(3); // the three pending pay-ins at least
    expect(done).toBe(total);

    // Enough open pay-ins that the sweep meets the rate limit (20 at once, then 10 a second).
    await Promise.all(Array.from({ length: 80 }, (_, n) => createPayin(`bulk-${n}-${tag}`, '2.00', 'USD', 'cy@example.com')));
    await sweep.getByRole('button', { name: 'Run sweep' }).click();
    await expect.poll(() => sweep.getByTestId('sweep-state').textContent()).toBe('running');
    await sweep.getByRole('button', { name: 'Cancel sweep' }).click();
    await expect.poll(() => sweep.getByTestId('sweep-state').textContent(), { timeout: 10_000 }).toBe('cancelled');
    const [read, of] = ((await sweep.getByTestId('sweep-count').textContent()) ?? '').match(/\d+/g)?.map(Number) ?? [];
    expect(of).toBeGreaterThanOrEqual(83);
    expect(read).toBeLessThan(of as number);
    expect(Number(await bar.getAttribute('aria-valuenow'))).toBeLessThan(100);
    // What main holds agrees with the page.
    expect((await rpc<{ sweep: { state: string } }>(app, 'reconciliation:sweep-status')).sweep.state).toBe('cancelled');
  });

  it('exports the totals and an exception list as CSV files', async () => {
    const [totalsFile] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export totals CSV' }).click()]);
    expect(totalsFile.suggestedFilename()).toMatch(/^paydesk-totals-.*\.csv$/);
    const totals = await readFile((await totalsFile.path()) as string, 'utf8');
    // A byte order mark first, so Excel reads the file as UTF-8.
    expect(totals.split('\r\n')[0]).toBe('\ufeffsubject,day,currency,method,status_code,status_category,final,count,amount');
    expect(totals).toContain(`payin,${today},EUR,open_banking,200,success,true,2,30.30`);
    expect(totals).toContain(`payout,${today},GBP,fps,`);

    await page.getByRole('tab', { name: /Orphans/ }).click();
    const [listFile] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export list CSV' }).click()]);
    expect(listFile.suggestedFilename()).toMatch(/^paydesk-orphans-.*\.csv$/);
    const orphans = await readFile((await listFile.path()) as string, 'utf8');
    const lines = orphans.trim().split('\r\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(`ghost-req-${tag}`);

    // The status mismatch list's file says what its row says: ledger 302, notified 200, read 302.
    await page.getByRole('tab', { name: /Status mismatch/ }).click();
    const { text: mismatchCsv } = await downloaded(page, () => page.getByRole('button', { name: 'Export list CSV' }).click());
    const [header, mismatch] = mismatchCsv.trim().split('\r\n');
    expect(header).toContain(',status_code,notified_status,verified_status,verification,');
    expect(mismatch).toContain(`,${declined.requestId},`);
    expect(mismatch).toContain(',302,200,302,mismatch,');
  });

  it('reads the same in the dark theme', async () => {
    await page.getByRole('banner').getByRole('radiogroup', { name: 'Theme' }).getByText('Dark').click();
    await page.waitForFunction(() => document.documentElement.dataset.mantineColorScheme === 'dark');
    await page.getByRole('tab', { name: /Status mismatch/ }).click();
    await screenshot(page, 'reconciliation-dark');
    await page.getByRole('banner').getByRole('radiogroup', { name: 'Theme' }).getByText('Light').click();
    await page.waitForFunction(() => document.documentElement.dataset.mantineColorScheme === 'light');
  });
});
