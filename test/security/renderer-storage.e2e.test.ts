/// <reference lib="dom" />
// Secrets and card data, the renderer's side: the built app in web mode, driven in Chromium with a
// profile directory the test owns. The page does what a renderer does with its bridge (fetch to
// /rpc with the session token read from its meta tag): imports a sentinel private key, gives a
// sandbox profile a sentinel merchant-token, makes card pay-ins with a sentinel card number and
// CVV, tokenizes and charges, pays out to the card; then every screen is opened. Afterwards the
// page's localStorage, sessionStorage, IndexedDB, Cache Storage and cookies, the DOM of every
// screen, and every file of the browser profile and of the data directory are scanned: the card
// number may appear only as first 6 / last 4, the rest not at all.
// Runs with the end-to-end suite (it needs the built app): npm run test:e2e.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../../src/emulator/index';
import { startWebApp, type WebApp } from '../e2e/harness';
import { tempDir } from '../helpers/temp-dir';
import { waitFor } from '../helpers/poll';
import { payinItem, payoutItem, tokenizeItem } from '../reliability/helpers/plan';
import { leaksIn, leaksInDir, makeSentinels } from './helpers/sentinels';

const S = makeSentinels();
const temp = tempDir('paydesk-renderer-storage-');
const dataDir = path.join(temp.dir, 'data');
const profileDir = path.join(temp.dir, 'chromium-profile');
let app: WebApp;
let gateway: EmulatorHandle;
let context: BrowserContext;
let page: Page;
const doms: string[] = [];

/** A contract call made by the page itself, the way the renderer's http bridge does it. */
async function bridge<T>(channel: string, input?: unknown): Promise<T> {
  const envelope = await page.evaluate(
    async ({ channel, input, fallback }) => {
      const token = document.querySelector<HTMLMetaElement>('meta[name="paydesk-session"]')?.content ?? fallback;
      const response = await fetch(`/rpc/${channel}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-paydesk-token': token }, body: JSON.stringify({ input }) });
      return (await response.json()) as { ok: boolean; value?: unknown; error?: { message: string } };
    },
    { channel, input, fallback: app.token },
  );
  if (!envelope.ok) throw new Error(`${channel}: ${envelope.error?.message}`);
  return envelope.value as T;
}

/** Everything the page keeps on the client side, as text. */
async function browserStorage(): Promise<string> {
  const inPage = await page.evaluate(async () => {
    const dump: Record<string, unknown> = { localStorage: { ...localStorage }, sessionStorage: { ...sessionStorage }, cookie: document.cookie };
    const databases = typeof indexedDB.databases === 'function' ? await indexedDB.databases() : [];
    const idb: Record<string, unknown> = {};
    for (const info of databases) {
      if (!info.name) continue;
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const request = indexedDB.open(info.name as string);
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
      for (const store of Array.from(db.objectStoreNames)) {
        idb[`${info.name}/${store}`] = await new Promise((resolve) => {
          const request = db.transaction(store, 'readonly').objectStore(store).getAll();
          request.onsuccess = () => resolve(request.result);
          request.onerror = () => resolve(`unreadable: ${String(request.error)}`);
        });
      }
      db.close();
    }
    dump.indexedDB = idb;
    const cached: string[] = [];
    if ('caches' in self) {
      for (const name of await caches.keys()) {
        const cache = await caches.open(name);
        for (const request of await cache.keys()) cached.push(`${request.url} ${await (await cache.match(request))?.text()}`);
      }
    }
    dump.cacheStorage = cached;
    return JSON.stringify(dump);
  });
  return `${inPage}\ncookies ${JSON.stringify(await context.cookies())}`;
}

beforeAll(async () => {
  mkdirSync(profileDir, { recursive: true });
  gateway = await startEmulator({ quiet: true, merchant: { merchant_token: S.merchantToken }, scenarioTiming: { payinCompleteMs: 100 }, delivery: { firstAttemptDelayMs: 10, firstRetryDelayMs: 200 } });
  app = await startWebApp(dataDir);
  context = await chromium.launchPersistentContext(profileDir, {
    executablePath: process.env.PAYDESK_CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  page = await context.newPage();
  page.setDefaultTimeout(15_000);
  await page.goto(app.url);
  await page.getByRole('heading', { name: 'Paydesk' }).waitFor();

  const profiles = await bridge<{ id: string; environment: string }[]>('profiles:list');
  const localId = profiles.find((p) => p.environment === 'local')?.id as string;
  await bridge('credentials:import-key', { profileId: localId, privateKey: S.privateKeyPem, kid: 'sentinel-kid' });
  const sandbox = await bridge<{ id: string }>('profiles:create', { name: 'Sandbox', environment: 'sandbox', baseUrl: `${new URL(gateway.baseUrl).origin}/api/`, merchantId: gateway.merchant.merchant_id, merchantSiteId: gateway.merchant.merchant_site_id });
  await bridge('credentials:set-merchant-token', { profileId: sandbox.id, token: S.merchantToken });

  const card = { cardNum: S.pan, cardCvv: S.cvv };
  await bridge('payins:create', { ...payinItem('ui-card-1', 1, 'credit_card', '200').form, ...card });
  await bridge('payins:create', { ...payinItem('ui-card-2', 2, 'credit_card', '200').form, ...card, profileId: sandbox.id });
  await bridge('tokens:tokenize', { ...tokenizeItem('ui-tok-1', 3, '200').form, cardNum: S.pan });
  const [token] = await waitFor(() => bridge<{ id: number }[]>('tokens:list', { profileId: localId }), (list) => list.length > 0, 'the vaulted token', 20_000);
  const { cardNum: _n, cardHolder: _h, cardExpireMonth: _m, cardExpireYear: _y, cardCvv: _c, ...chargeBase } = payinItem('ui-charge-1', 4, 'credit_card', '200').form;
  await bridge('tokens:charge', { ...chargeBase, tokenId: token?.id, cardCvv: S.cvv });
  const payout = payoutItem('ui-payout-1', 5, 'credit_card', null).form;
  await bridge('payouts:create', { ...payout, paymentDetails: { ...payout.paymentDetails, cardNum: S.pan } });
  await waitFor(() => bridge<{ items: { final: boolean }[] }>('payins:list', {}), (p) => p.items.filter((i) => i.final).length >= 3, 'final pay-ins', 20_000);

  // Every screen, as a user would open them, with what it shows kept for the scan.
  for (const label of ['Pay-ins', 'Payouts', 'Reconciliation', 'Code explorer', 'Webhook inspector', 'Sandbox playground', 'Settings']) {
    await page.getByRole('navigation').getByRole('link', { name: label }).click();
    await page.waitForTimeout(400);
    doms.push(`${label}: ${await page.content()}`);
  }
}, 120_000);

afterAll(async () => {
  await context?.close().catch(() => undefined);
  await app?.stop();
  await gateway?.close();
  temp.cleanup();
});

describe('nothing secret reaches the renderer or its storage', () => {
  it('keeps no sentinel in localStorage, sessionStorage, IndexedDB, Cache Storage or cookies', async () => {
    expect(leaksIn('browser storage', await browserStorage(), S)).toEqual([]);
  });

  it('shows the card only masked on any screen', async () => {
    expect(doms).toHaveLength(7);
    // Control: the card data did go through, and the screens did show the ledger.
    expect(JSON.stringify(await bridge('tokens:list', {}))).toContain(S.maskedPan);
    expect(doms[0]).toContain('ui-card-1');
    expect(leaksIn('screens', doms.join('\n'), S)).toEqual([]);
  });

  it('leaves no sentinel in the browser profile on disk or in the data directory', async () => {
    await context.close();
    expect(leaksInDir(profileDir, S)).toEqual([]);
    expect(await app.stop()).toBe(0);
    expect(leaksInDir(dataDir, S)).toEqual([]);
  });
});
