/// <reference lib="dom" />
// The webhook inspector held open (a notification's detail shown) while a
// burst of notifications reaches the listener on 127.0.0.1. Before the fix each new row mounted a
// Mantine Tooltip whose transition set state in an effect on mount, one extra synchronous render
// per row per push; a burst of 200 threw React error #185 (maximum update depth) several times.
import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { payinNotification } from '../helpers/http';
import { openApp, rpc, screenshot, useWebApp, type WebApp } from './harness';

let app: WebApp;
let browser: Browser;

useWebApp('burst', (web) => ({ app, browser } = web));

const BURST = 240;

describe('webhook inspector under a burst', () => {
  it('shows every notification of a burst of 240 with no page error', async () => {
    const [profile] = await rpc<{ notificationUrl: string }[]>(app, 'profiles:list');
    if (!profile) throw new Error('no profile');
    const post = (body: string) => fetch(profile.notificationUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

    const page = await openApp(browser, app, { live: true });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`console: ${message.text()}`);
    });
    await page.getByRole('navigation').getByRole('link', { name: 'Webhook inspector' }).click();
    const table = page.getByRole('table', { name: 'Notifications' });
    // One notification first, opened, so the detail panel stays open through the burst.
    expect((await post(payinNotification(crypto.randomUUID()))).status).toBe(200);
    // Clicked on its time: the row's middle may be its reference's copy button, whose click only copies.
    await table.locator('[role="row"][data-row-key]').first().getByRole('cell').first().click();
    await page.getByTestId('notification-detail').waitFor();

    // Notifications about pay-ins the ledger does not hold (kept as orphans) and garbage (malformed), all at once.
    const answers = await Promise.all(
      Array.from({ length: BURST }, (_, i) => post(i % 6 === 5 ? `garbage ${i}` : payinNotification(crypto.randomUUID(), 200, { request_id: `burst-${i}` }))),
    );
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(BURST - BURST / 6);

    // aria-rowcount counts the header row too: the burst, the one before it, and the header.
    await expect.poll(() => table.getAttribute('aria-rowcount'), { timeout: 20_000, interval: 200 }).toBe(String(BURST + 2));
    await expect.poll(() => table.locator('[data-outcome="orphan"]').count(), { timeout: 20_000, interval: 200 }).toBeGreaterThan(0);
    // The newest is at the top, and the detail is still the one opened before the burst.
    const newest = await rpc<{ items: { id: number }[] }>(app, 'notifications:list', { limit: 1 });
    await expect.poll(() => table.locator('[role="row"][data-row-key]').first().getAttribute('data-row-key')).toBe(String(newest.items[0]?.id));
    expect(await page.getByTestId('notification-detail').isVisible()).toBe(true);
    await screenshot(page, 'webhooks-after-burst');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('loses no row when the inspector is reloaded in the middle of a burst', async () => {
    const [profile] = await rpc<{ notificationUrl: string }[]>(app, 'profiles:list');
    if (!profile) throw new Error('no profile');
    const page = await openApp(browser, app, { live: true });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
    await page.getByRole('navigation').getByRole('link', { name: 'Webhook inspector' }).click();
    const table = page.getByRole('table', { name: 'Notifications' });
    await table.waitFor();
    // Pushes that arrived while the first page was being read were dropped before: rows went
    // missing. Notifications keep arriving, ten at a time, from before the reload until well
    // after the first page is in (bounded: 400 at most).
    let posting = true;
    let sent = 0;
    const sender = (async () => {
      while (posting && sent < 400) {
        await Promise.all(
          Array.from({ length: 10 }, () =>
            fetch(profile.notificationUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: payinNotification(crypto.randomUUID(), 200, { request_id: `reload-${sent++}` }) }),
          ),
        );
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The first page is read by main at once but reaches the page 800 ms later (a slow main), so
    // the pushes of what arrived meanwhile come before it, every time.
    let held = false;
    await page.route('**/rpc/notifications:list', async (route) => {
      if (held) return route.continue();
      held = true;
      const response = await route.fetch();
      await new Promise((resolve) => setTimeout(resolve, 800));
      await route.fulfill({ response });
    });
    const firstPage = page.waitForResponse((response) => new URL(response.url()).pathname === '/rpc/notifications:list');
    await page.reload();
    await firstPage;
    await new Promise((resolve) => setTimeout(resolve, 300));
    posting = false;
    await sender;
    let total = 0;
    for (let beforeId: number | null = null, pages = 0; pages < 10; pages++) {
      const page: { items: unknown[]; nextBeforeId: number | null } = await rpc(app, 'notifications:list', { limit: 500, beforeId });
      total += page.items.length;
      beforeId = page.nextBeforeId;
      if (beforeId === null) break;
    }
    // Scrolled to the end, page by page (bounded: 20 s), every stored notification is listed once.
    const scroller = table.locator('[role="rowgroup"]').nth(1);
    const deadline = Date.now() + 20_000;
    // aria-rowcount counts the header row too.
    while ((await table.getAttribute('aria-rowcount')) !== String(total + 1) && Date.now() < deadline) {
      await scroller.evaluate((element) => element.scrollTo(0, element.scrollHeight));
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(await table.getAttribute('aria-rowcount')).toBe(String(total + 1));
    expect(errors).toEqual([]);
    await page.close();
  });
});
