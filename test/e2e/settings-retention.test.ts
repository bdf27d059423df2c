/// <reference lib="dom" />
// The notification retention rule, as a user: malformed notifications and orphans arrive at the listener;
// Settings shows how many raw bodies the profile keeps and the rule; tightening the rule applies
// at once (malformed ones deleted, the oldest orphans keep their facts without body), the change
// is in the audit log, and the webhook inspector says what was dropped and when.
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { payinNotification } from '../helpers/http';
import { openReader } from '../helpers/ledger';
import { openApp, rpc, screenshot, useWebApp, type WebApp } from './harness';

let app: WebApp;
let browser: Browser;
let dataDir: string;

useWebApp('retention', (web) => ({ app, browser, dataDir } = web));

describe('notification retention in Settings', () => {
  it('shows what is kept, applies a tighter rule at once, audits it, and the inspector says what was dropped', async () => {
    const [profile] = await rpc<{ id: string; name: string; notificationUrl: string }[]>(app, 'profiles:list');
    if (!profile) throw new Error('no profile');
    const post = (body: string) => fetch(profile.notificationUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    // Sent one by one, so the oldest orphans are known: orphan-0 … orphan-11, then 40 pieces of garbage.
    for (let i = 0; i < 12; i++) expect((await post(payinNotification(`orphan-${i}`, 200, { padding: 'p'.repeat(4096) }))).status).toBe(200);
    for (let i = 0; i < 40; i++) expect((await post(`garbage ${i} ${'g'.repeat(30 * 1024)}`)).status).toBe(400);
    await expect.poll(async () => (await rpc<{ items: unknown[] }>(app, 'notifications:list', { outcomes: ['orphan'] })).items.length).toBe(12);

    const page = await openApp(browser, app);
    await page.getByRole('navigation').getByRole('link', { name: 'Settings' }).click();
    const section = page.getByTestId('retention');
    await expect.poll(() => section.getByTestId('retention-kept-count').textContent()).toBe('52');
    expect(await section.getByTestId('retention-rule-state').textContent()).toBe('default rule');
    expect(await section.getByLabel('Keep at most').inputValue()).toBe('1,000');

    await section.getByLabel('Keep at most').fill('10');
    await section.getByRole('button', { name: 'Save and apply' }).click();
    await expect.poll(() => section.getByTestId('retention-kept-count').textContent()).toBe('10');
    expect(await section.getByTestId('retention-dropped').textContent()).toMatch(/40 malformed deleted, 2 orphan bodies/);
    expect(await section.getByTestId('retention-rule-state').textContent()).toMatch(/^set /);
    await section.scrollIntoViewIfNeeded();
    await screenshot(page, 'settings-retention');

    // Main holds the rule and the audit entry (read from the ledger file, as a second reader).
    const ledger = await openReader({ file: path.join(dataDir, 'ledger.sqlite') });
    try {
      const audit = await ledger.all<{ actor: string; profile_id: string; details: string }>("SELECT actor, profile_id, details FROM audit_log WHERE action = 'settings.notification-retention'");
      expect(audit).toHaveLength(1);
      expect(audit[0]).toMatchObject({ actor: 'user', profile_id: profile.id });
      expect(JSON.parse(audit[0]?.details ?? '{}')).toEqual({ from: { maxCount: 1000, maxMiB: 64, maxAgeDays: 30 }, to: { maxCount: 10, maxMiB: 64, maxAgeDays: 30 } });
      expect(await ledger.get("SELECT count(*) AS n FROM notifications WHERE outcome = 'malformed'")).toEqual({ n: 0 });
    } finally {
      await ledger.close();
    }

    // The oldest orphan in the webhook inspector: its facts, and what became of its body.
    const oldest = (await rpc<{ items: { id: number; requestRef: string }[] }>(app, 'notifications:list', { outcomes: ['orphan'], limit: 500 })).items.at(-1);
    expect(oldest?.requestRef).toBe('req-orphan-0');
    await page.goto(`${app.origin}/#/webhooks/${oldest?.id}`);
    const detail = page.getByTestId('notification-detail');
    await expect.poll(() => detail.getByTestId('notification-raw-pruned').textContent()).toMatch(/dropped them on .*; \d+ bytes were received/);
    expect(await detail.getByTestId('notification-body').count()).toBe(0);
    expect(await detail.textContent()).toContain('orphan-0');
    await screenshot(page, 'webhooks-pruned-orphan');
    await page.close();
  });
});
