/// <reference lib="dom" />
// page.waitForFunction callbacks run in the browser, so this file also sees DOM types.
import type { Browser, Page } from 'playwright-core';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp-dir';
import { freePort, openApp as openAppIn, screenshot, startWebApp, useWebApp, type WebApp } from './harness';

let app: WebApp;
let browser: Browser;
let dataDir: string;

useWebApp('shell', (web) => ({ app, browser, dataDir } = web));

const openApp = (): Promise<Page> => openAppIn(browser, app);

describe('web mode in Chromium', () => {
  it('loads the shell with navigation and an always-visible environment badge', async () => {
    const page = await openApp();
    await expect.poll(() => page.getByTestId('environment-badge').textContent()).toBe('Local emulator');
    const labels = await page.getByRole('navigation').getByRole('link').allTextContents();
    expect(labels).toEqual(['Pay-ins', 'Payouts', 'Reconciliation', 'Code explorer', 'Webhook inspector', 'Sandbox playground', 'Settings']);
    // The token is dropped from the address bar once the page has it.
    expect(page.url()).not.toContain('token=');
    // The header's icons are drawn, not emoji: a machine without an emoji font shows a box for one.
    const bell = page.getByTestId('notice-bell');
    expect(await bell.locator('svg').count()).toBe(1);
    expect((await bell.textContent())?.trim()).toBe('');
    await screenshot(page, 'shell');
    await page.close();
  });

  it('navigates between screens and keeps the environment badge in view', async () => {
    const page = await openApp();
    for (const label of ['Payouts', 'Code explorer', 'Settings']) {
      await page.getByRole('navigation').getByRole('link', { name: label }).click();
      await page.getByRole('heading', { level: 2, name: label }).waitFor();
      expect(await page.getByTestId('environment-badge').isVisible()).toBe(true);
    }
    expect(page.url()).toMatch(/#\/settings$/);
    await page.close();
  });

  it('round-trips a call through the contract: Settings shows what main reports', async () => {
    const page = await openApp();
    await page.getByRole('navigation').getByRole('link', { name: 'Settings' }).click();
    await expect.poll(() => page.getByTestId('data-dir').textContent()).toBe(dataDir);
    await expect.poll(() => page.getByTestId('app-mode').textContent()).toContain('Web mode');
    await expect.poll(() => page.getByTestId('keychain-status').textContent()).toBe('available');
    expect(Number(await page.getByTestId('schema-version').textContent())).toBeGreaterThan(0);
    await screenshot(page, 'settings');
    await page.close();
  });

  it('switches theme through main, pushes it to other windows, and keeps it after a reload', async () => {
    const first = await openApp();
    const second = await openAppIn(browser, app, { live: true });
    await first.getByRole('radiogroup', { name: 'Theme' }).first().getByText('Dark').click();
    await first.waitForFunction(() => document.documentElement.dataset.mantineColorScheme === 'dark');
    // The other page learns it from the push channel, not from a reload.
    await second.waitForFunction(() => document.documentElement.dataset.mantineColorScheme === 'dark');
    await screenshot(first, 'shell-dark');
    await first.getByRole('radiogroup', { name: 'Theme' }).first().getByText('Light').click();
    await second.waitForFunction(() => document.documentElement.dataset.mantineColorScheme === 'light');
    await second.reload();
    await second.waitForFunction(() => document.documentElement.dataset.mantineColorScheme === 'light');
    await first.close();
    await second.close();
  });

  it('refuses requests without the session token: a browser gets a page saying where the address is, the API its JSON error', async () => {
    const page = await browser.newPage();
    const response = await page.goto(app.origin + '/');
    expect(response?.status()).toBe(401);
    await expectRefusalPage(page, app);
    const rpc = await fetch(`${app.origin}/rpc/app:get-info`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(rpc.status).toBe(401);
    expect(rpc.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await rpc.json()).toMatchObject({ ok: false, error: { code: 'unauthorized' } });
    await page.close();
  });

  it('after a restart on the same port, the page open before and the old address get that page, not JSON', async () => {
    const port = await freePort();
    const temp = tempDir('paydesk-e2e-restart-');
    const first = await startWebApp(path.join(temp.dir, 'data'), ['--port', String(port)]);
    const page = await openAppIn(browser, first);
    expect(await first.stop()).toBe(0);
    const second = await startWebApp(path.join(temp.dir, 'data'), ['--port', String(port)]);
    try {
      expect(second.token).not.toBe(first.token);
      // The open tab reloads its tokenless address with the old session's cookie.
      expect((await page.reload())?.status()).toBe(401);
      await expectRefusalPage(page, second);
      expect(await page.content()).not.toContain(first.token);
      expect((await page.goto(first.url))?.status()).toBe(401);
      await expectRefusalPage(page, second);
    } finally {
      await page.close();
      // Stopped once started: a SIGTERM before the core is up ends the process by the signal.
      await expect.poll(() => second.output(), { timeout: 20_000 }).toContain('Paydesk is ready');
      expect(await second.stop()).toBe(0);
      temp.cleanup();
    }
  });
});

/** The page a browser gets without the session: how to get in, and no token. */
async function expectRefusalPage(page: Page, running: WebApp): Promise<void> {
  await page.getByRole('heading', { level: 1, name: 'Open Paydesk from the address it printed' }).waitFor();
  const text = await page.locator('main').innerText();
  expect(text).toContain('npm start');
  expect(text).toContain(`${running.origin}/?token=…`);
  expect(await page.content()).not.toContain(running.token);
}

describe('code explorer', () => {
  it('lists every catalogued code and narrows by search and category', async () => {
    const page = await openApp();
    await page.getByRole('navigation').getByRole('link', { name: 'Code explorer' }).click();
    const rows = page.getByRole('table', { name: 'Codes' }).locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(34);
    await page.getByRole('textbox', { name: 'Search codes' }).fill('cvv');
    await expect.poll(() => rows.allTextContents()).toEqual([expect.stringContaining('317')]);
    await page.getByRole('textbox', { name: 'Search codes' }).fill('');
    await page.getByRole('tab', { name: /Payout status/ }).click();
    await expect.poll(() => rows.count()).toBe(8);
    await page.getByRole('tab', { name: /Reason codes/ }).click();
    await expect.poll(() => rows.count()).toBe(46);
    await screenshot(page, 'codes');
    await page.close();
  });
});

describe('settings: profiles and credentials', () => {
  it('creates a live profile, activates it (the badge turns live), stores a token shown only as a fingerprint, and switches back', async () => {
    const page = await openApp();
    await page.getByRole('navigation').getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('table', { name: 'Profiles' }).waitFor();
    await page.getByRole('button', { name: 'New profile' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('Shop live');
    await dialog.getByLabel('Environment', { exact: true }).click();
    await page.getByRole('option', { name: /Live/ }).click();
    await dialog.getByLabel(/Live base URL/).fill('https://pay.example.com/api/v1');
    await dialog.getByLabel('merchant_id').fill('m-42');
    await dialog.getByLabel('merchant_site_id').fill('s-42');
    await dialog.getByRole('button', { name: 'Create profile' }).click();
    // The error names the field and the fix.
    await expect.poll(() => dialog.getByText('Must end in /api/v2, e.g. https://pay.example.com/api/v2', { exact: true }).isVisible()).toBe(true);
    await dialog.getByLabel(/Live base URL/).fill('https://pay.example.com/api/v2');
    await dialog.getByRole('button', { name: 'Create profile' }).click();
    await dialog.waitFor({ state: 'detached' });

    await page.getByRole('radio', { name: 'Activate Shop live' }).click();
    await page.getByRole('dialog', { name: 'Switch to “Shop live”, a live profile?' }).getByRole('button', { name: 'Switch to “Shop live” (live)' }).click();
    await page.waitForFunction(() => document.querySelector('[data-testid="environment-badge"]')?.getAttribute('data-environment') === 'live');
    await expect.poll(() => page.getByTestId('environment-badge').textContent()).toBe('Live · Shop live');

    const row = page.locator('tr[data-profile="Shop live"]');
    await row.getByRole('button', { name: 'Credentials' }).click();
    const sentinel = 'tok_E2E_SENTINEL_123456';
    await page.getByLabel('Set merchant-token').fill(sentinel);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText(/fingerprint [0-9a-f]{16}/).waitFor();
    // The field is emptied once main confirms; from then on the token is nowhere in the page.
    await expect.poll(() => page.getByLabel('Replace merchant-token').inputValue()).toBe('');
    expect(await page.content()).not.toContain(sentinel);
    await screenshot(page, 'settings-live');

    await page.getByRole('radio', { name: 'Activate Local emulator' }).click();
    await page.waitForFunction(() => document.querySelector('[data-testid="environment-badge"]')?.getAttribute('data-environment') === 'local');
    await page.close();
  });

  it('generates a JWT key for the local emulator and shows the public key for onboarding', async () => {
    const page = await openApp();
    await page.getByRole('navigation').getByRole('link', { name: 'Settings' }).click();
    await page.locator('tr[data-profile="Local emulator"]').getByRole('button', { name: 'Credentials' }).click();
    await page.getByRole('button', { name: 'Generate Ed25519 key' }).click();
    const exported = page.getByTestId('public-key');
    await exported.waitFor();
    await expect.poll(() => exported.getByText('registered with the local emulator').isVisible()).toBe(true);
    expect(await exported.textContent()).toContain('-----BEGIN PUBLIC KEY-----');
    expect(await page.content()).not.toContain('PRIVATE KEY');
    await page.close();
  });
});
