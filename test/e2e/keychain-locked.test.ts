/// <reference lib="dom" />
// With the keychain locked, Settings said "Keychain AVAILABLE" while every
// write failed with "Cannot create an item in a locked collection". The built app runs in web mode
// on a private D-Bus session whose real gnome-keyring is locked: Settings and the banner say
// "locked" and how to unlock, saving a merchant-token says why it failed, and once the keyring is
// unlocked the way the message describes (and Paydesk restarted), "available", and the token is kept.
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PrivateKeyring, startPrivateKeyring } from '../helpers/private-keyring';
import { tempDir } from '../helpers/temp-dir';
import { launchBrowser, openApp, rpc, screenshot, startWebApp, type WebApp } from './harness';

let app: WebApp;
let browser: Browser;
let keyring: PrivateKeyring;
let cleanup: () => void;
let dataDir: string;

beforeAll(async () => {
  const temp = tempDir('paydesk-e2e-keychain-');
  cleanup = temp.cleanup;
  dataDir = path.join(temp.dir, 'data');
  keyring = await startPrivateKeyring();
  await keyring.lock();
  app = await startWebApp(dataDir, [], keyring.env);
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  const code = await app?.stop();
  await keyring?.stop();
  cleanup?.();
  expect(code).toBe(0);
});

async function openSettings(): Promise<Page> {
  const page = await openApp(browser, app);
  await page.getByRole('navigation').getByRole('link', { name: 'Settings' }).click();
  await page.getByRole('heading', { level: 2, name: 'Settings' }).waitFor();
  return page;
}

describe('Settings with a locked keychain', () => {
  it('says the keychain is locked and how to unlock it, and says it is available once unlocked', async () => {
    expect(await keyring.locked()).toBe(true);
    const sandbox = await rpc<{ id: string }>(app, 'profiles:create', { name: 'Shop sandbox', environment: 'sandbox', baseUrl: 'https://sandbox.example.com/api/', merchantId: 'm-7', merchantSiteId: 's-7' });
    await rpc(app, 'profiles:activate', { id: sandbox.id });

    const page = await openSettings();
    const status = page.getByTestId('keychain-status');
    await expect.poll(() => status.getAttribute('data-state')).toBe('locked');
    expect(await status.textContent()).toBe('locked');
    const explained = await page.getByTestId('keychain-status').locator('xpath=..').textContent();
    expect(explained).toMatch(/keychain is locked \(Cannot create an item in a locked collection\)/);
    expect(explained).toMatch(/log in to the desktop session/);
    expect(explained).toContain('gnome-keyring-daemon --replace --unlock');
    const banner = page.getByTestId('keychain-warning');
    expect(await banner.textContent()).toMatch(/^Keychain locked/);

    // Saving a credential fails, and says why and what to do.
    await page.getByLabel('Set merchant-token').fill('tok_e2e_locked');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    // The banner above every screen says the same once main has re-read the keychain; the save's own
    // error is the one beside the field.
    const saveError = page.locator('[role="alert"]:not([data-testid="keychain-warning"])').filter({ hasText: /keychain is locked.*stored nothing.*--unlock/ });
    await expect.poll(() => saveError.count()).toBe(1);
    await screenshot(page, 'settings-keychain-locked');

    // Unlocked as the message says. The running app's keychain connection belongs to the replaced
    // daemon: Settings says so (restart Paydesk), and after the restart the keychain is available.
    await keyring.unlock();
    await page.reload();
    await page.getByRole('heading', { level: 2, name: 'Settings' }).waitFor();
    await expect.poll(() => page.getByTestId('keychain-status').getAttribute('data-state')).toBe('unavailable');
    expect(await page.getByTestId('keychain-status').locator('xpath=..').textContent()).toMatch(/restart Paydesk/);
    await page.close();
    expect(await app.stop()).toBe(0);
    app = await startWebApp(dataDir, [], keyring.env);

    const restarted = await openSettings();
    // The replaced keyring daemon may still be starting on a busy machine: Settings reads the
    // keychain's state when it opens, so it is opened again until the state settles.
    await expect
      .poll(
        async () => {
          const state = await restarted.getByTestId('keychain-status').getAttribute('data-state');
          if (state !== 'available') {
            await restarted.reload();
            await restarted.getByRole('heading', { level: 2, name: 'Settings' }).waitFor();
          }
          return state;
        },
        { timeout: 30_000, interval: 1_000 },
      )
      .toBe('available');
    expect(await restarted.getByTestId('keychain-warning').count()).toBe(0);
    await restarted.getByLabel('Set merchant-token').fill('tok_e2e_unlocked');
    await restarted.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(async () => (await rpc<{ id: string; credentials: { merchantToken: { set: boolean } } }[]>(app, 'profiles:list')).find((p) => p.id === sandbox.id)?.credentials.merchantToken.set).toBe(true);
    await screenshot(restarted, 'settings-keychain-unlocked');
    await restarted.close();
  });
});
