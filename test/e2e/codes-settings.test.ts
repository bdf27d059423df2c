/// <reference lib="dom" />
// The code explorer counts the ledger rows behind each code and opens them; codes the catalogue
// does not know are listed. Settings shows where the notification listener listens and moves it
// (the profiles' notification URLs follow); the theme choice persists.
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp-dir';
import { until } from '../helpers/poll';
import { freePort, launchBrowser, openApp, rpc, screenshot as saveScreenshot, startWebApp, type WebApp } from './harness';
import { payinForm as samplePayin } from '../helpers/fixtures';

/** Full-page screenshot from the top, so the fixed header sits where the user sees it. */
async function screenshot(page: Page, name: string): Promise<void> {
  await page.evaluate(() => window.scrollTo(0, 0));
  await saveScreenshot(page, name);
}

let app: WebApp;
let browser: Browser;
let cleanup: () => void;

const tag = Math.random().toString(36).slice(2, 8);
const declinedRef = `codes-302-${tag}`;
const unknownRef = `codes-777-${tag}`;

const payinForm = (requestId: string, email: string) => samplePayin('open_banking', { requestId, email, amount: '12.34' });

beforeAll(async () => {
  const temp = tempDir('paydesk-e2e-codes-');
  cleanup = temp.cleanup;
  app = await startWebApp(path.join(temp.dir, 'data'));
  browser = await launchBrowser();
  await rpc(app, 'payins:create', payinForm(declinedRef, 'ana+s302@example.com'));
  await rpc(app, 'payins:create', payinForm(unknownRef, 'ana+s777@example.com'));
  // The scenarios end within 2 s: one pay-in declined with 302, one with a code no catalogue knows.
  await until(async () => (await rpc<{ items: unknown[] }>(app, 'payins:list', { statusCodes: ['302', '777'] })).items.length === 2, 'the +s302 and +s777 pay-ins to end', 15_000);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  cleanup?.();
});

async function openScreen(name: string): Promise<Page> {
  const page = await openApp(browser, app);
  await page.getByRole('navigation').getByRole('link', { name }).click();
  await page.getByRole('heading', { level: 2, name }).waitFor();
  return page;
}

describe('code explorer', () => {
  it('shows how many ledger rows carry each code and lists the codes the catalogue does not know', async () => {
    const page = await openScreen('Code explorer');
    const codes = page.getByRole('table', { name: 'Codes' });
    const rowsCell = (code: string) => codes.locator(`tr[data-code="${code}"] td[data-column="rows"]`);
    await expect.poll(() => rowsCell('302').locator('p').first().textContent(), { timeout: 10_000 }).toBe('1');
    await expect.poll(() => rowsCell('302').textContent()).toBe('11 notified');
    expect(await rowsCell('200').textContent()).toBe('0');

    const unknown = page.getByRole('table', { name: 'Unknown codes' });
    await expect.poll(() => unknown.locator('tr[data-code="777"]').textContent()).toContain('Pay-in status');
    expect(await unknown.locator('tr[data-code="777"] td[data-column="rows"]').textContent()).toBe('1');
    await screenshot(page, 'codes');
    await page.close();
  });

  it('opens the pay-ins with a status code on click, and the payouts with a payout code by keyboard', async () => {
    const page = await openScreen('Code explorer');
    await page.locator('tr[data-code="302"]').click();
    await page.waitForURL(/#\/payins\?status=302$/);
    // The pay-ins list reads the filter from the address: only the declined pay-in is listed.
    const list = page.getByRole('table', { name: 'Pay-ins' });
    await expect.poll(() => list.getByRole('row').filter({ hasText: declinedRef }).count(), { timeout: 10_000 }).toBe(1);
    expect(await list.getByRole('row').filter({ hasText: unknownRef }).count()).toBe(0);

    await page.goBack();
    await page.getByRole('tab', { name: /Payout status/ }).click();
    await page.locator('tr[data-code="C405"]').focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/#\/payouts\?status=C405$/);

    await page.goBack();
    await page.getByRole('tab', { name: /Reason codes/ }).click();
    await page.locator('tr[data-code="RISK_BLOCKED"]').click();
    await page.waitForURL(/#\/payins\?reason=RISK_BLOCKED$/);
    await page.close();
  });
});

describe('settings', () => {
  it('shows the listener address and moves it to another port; the notification URLs follow', async () => {
    const before = await rpc<{ host: string; port: number }>(app, 'settings:get-listener');
    const page = await openScreen('Settings');
    const listener = page.getByTestId('listener');
    await expect.poll(() => listener.getByTestId('listener-address').textContent()).toBe(`127.0.0.1:${before.port}`);
    const urls = listener.getByTestId('notification-url');
    await expect.poll(() => urls.first().textContent()).toContain(`http://127.0.0.1:${before.port}/n/`);

    const port = await freePort();
    await listener.getByLabel('Port').fill(String(port));
    await listener.getByRole('button', { name: 'Apply and restart listener' }).click();
    await expect.poll(() => listener.getByTestId('listener-address').textContent()).toBe(`127.0.0.1:${port}`);
    await expect.poll(() => urls.first().textContent()).toContain(`http://127.0.0.1:${port}/n/`);
    // The profiles table (pushed by main) shows the new URL too, and main really listens there.
    await expect.poll(() => page.getByRole('table', { name: 'Profiles' }).textContent()).toContain(`127.0.0.1:${port}/n/`);
    expect(await rpc(app, 'settings:get-listener')).toMatchObject({ host: '127.0.0.1', port });

    // A host that is not an address: the field says what is wrong and how to fix it.
    await listener.getByLabel('Host').fill('example.com');
    await listener.getByRole('button', { name: 'Apply and restart listener' }).click();
    await expect.poll(() => listener.getByText(/Must be an IP address of this machine/).isVisible()).toBe(true);
    expect(await listener.getByTestId('listener-address').textContent()).toBe(`127.0.0.1:${port}`);
    await listener.getByLabel('Host').fill('127.0.0.1');
    await screenshot(page, 'settings');
    await page.close();
  });

  it('keeps the chosen theme after a reload', async () => {
    const page = await openScreen('Settings');
    const settingsToggle = page.getByRole('main').getByRole('radiogroup', { name: 'Theme' });
    await settingsToggle.getByText('Dark').click();
    await page.waitForFunction(() => document.documentElement.dataset.mantineColorScheme === 'dark');
    await page.reload();
    await page.getByRole('heading', { level: 2, name: 'Settings' }).waitFor();
    await page.waitForFunction(() => document.documentElement.dataset.mantineColorScheme === 'dark');
    expect(await rpc(app, 'settings:get')).toMatchObject({ theme: 'dark' });
    await page.getByRole('main').getByRole('radiogroup', { name: 'Theme' }).getByText('Light').click();
    await page.waitForFunction(() => document.documentElement.dataset.mantineColorScheme === 'light');
    await page.close();
  });
});
