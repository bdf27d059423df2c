/// <reference lib="dom" />
// What the records keep (the card that paid, amounts as written, stale notifications), where the user sees them, in Chromium against web mode and the
// embedded emulator: a crypto payout of 15.70 EUR reads 15.70 EUR from the review to search; the
// signing key's kid is shown as typed; a tokenization notification's 200 reads as the vaulting's
// result in the playground's live panel; a token charge's page names the card that paid and the
// profile by name; a late, older notification is labelled stale, not applied.
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { openApp, rpc, screenshot as save, useWebApp, type WebApp } from './harness';
import { payinForm } from '../helpers/fixtures';

let app: WebApp;
let browser: Browser;
const tag = Math.random().toString(36).slice(2, 8);
const CARD_YEAR = String(new Date().getUTCFullYear() + 3);
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

useWebApp('records', (web) => ({ app, browser } = web));

/** What the page shows, polled (a gateway round trip takes longer than vitest's default second). */
const poll = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 15_000, interval: 100 });

/** From the top of the page: a full-page capture of a scrolled page draws the fixed header mid-page. */
async function screenshot(page: Page, name: string): Promise<void> {
  await page.evaluate(() => window.scrollTo(0, 0));
  await save(page, name);
}

async function go(page: Page, hash: string): Promise<void> {
  await page.evaluate((h) => (window.location.hash = h), hash);
}

async function searchLine(page: Page, query: string): Promise<string> {
  await page.keyboard.press('Control+K');
  const box = page.getByRole('combobox', { name: 'Reference or e-mail' });
  await box.waitFor();
  await box.fill(query);
  const option = page.getByRole('grid', { name: 'Matches' }).getByRole('row').filter({ hasText: query }).first();
  await option.waitFor();
  const text = (await option.textContent()) ?? '';
  await page.keyboard.press('Escape');
  return text;
}

interface Profile {
  id: string;
  environment: string;
  notificationUrl: string;
}

const localProfile = async (): Promise<Profile> => {
  const local = (await rpc<Profile[]>(app, 'profiles:list')).find((p) => p.environment === 'local');
  if (!local) throw new Error('no local profile');
  return local;
};

describe('amounts as their currency writes them', () => {
  it('shows a crypto payout of 15.70 EUR as 15.70 EUR in the review, the result, the list, the detail and search', async () => {
    const page = await openApp(browser, app);
    const reference = `e2e-crypto-${tag}`;
    await page.getByRole('navigation').getByRole('link', { name: 'Payouts' }).click();
    await page.getByRole('tab', { name: 'New payout' }).click();
    await page.locator('.mantine-SegmentedControl-root').getByText('Crypto', { exact: true }).click();
    const values: Record<string, string> = {
      Amount: '15.70',
      Currency: 'EUR',
      Country: 'DEU',
      'Merchant reference': reference,
      'First name': 'Ana',
      'Last name': 'Lima',
      'E-mail': 'ana@example.com',
      'Wallet address': '0x52908400098527886E0F7030069857D2E4169EE7',
      Network: 'ethereum',
    };
    for (const [label, value] of Object.entries(values)) await page.getByRole('textbox', { name: label, exact: true }).fill(value);
    await page.getByRole('button', { name: 'Review payout' }).click();
    const review = page.getByTestId('payout-review');
    expect(await review.getByTestId('review-amount').textContent()).toBe('15.70 EUR');
    await review.getByTestId('limit-check').waitFor();
    await review.getByRole('button', { name: 'Send payout' }).click();

    const result = page.getByTestId('payout-result');
    await poll(() => result.getByTestId('result-status').getAttribute('data-status')).toBe('P200');
    expect(await result.textContent()).toContain('15.70 EUR');
    expect(await result.textContent()).not.toMatch(/15\.7 EUR/);
    await screenshot(page, 'records-payout-result');

    await page.getByRole('tab', { name: 'List' }).click();
    const row = page.locator('[data-row-key]', { hasText: reference });
    await poll(() => row.textContent()).toContain('15.70 EUR');
    await row.click();
    await poll(() => page.getByTestId('amount').textContent()).toContain('15.70 EUR');
    expect(await searchLine(page, reference)).toContain('15.70 EUR');
    await page.close();
  });
});

describe('the signing key, tokenization and a token charge', () => {
  it('shows the kid as typed, the tokenization result as the vaulting\'s, and on the charge the card that paid and the profile by name', async () => {
    const page = await openApp(browser, app);
    // Settings: a kid with both cases, generated as the user would.
    const kid = `PayDesk-Kid-${tag}-aB`;
    await page.getByRole('navigation').getByRole('link', { name: 'Settings' }).click();
    await page.locator('tr[data-profile="Local emulator"]').getByRole('button', { name: 'Credentials' }).click();
    await page.getByRole('textbox', { name: 'kid (optional)' }).first().fill(kid);
    await page.getByRole('button', { name: 'Generate Ed25519 key' }).click();
    await page.getByTestId('public-key').getByText('registered with the local emulator').waitFor();
    const shown = page.getByTestId('kid');
    await poll(() => shown.count()).toBeGreaterThanOrEqual(1);
    // innerText is what is drawn: text-transform included.
    for (const text of await shown.evaluateAll((els) => els.map((e) => (e as HTMLElement).innerText))) expect(text).toBe(kid);
    await screenshot(page, 'records-kid');

    // The playground: tokenize; the tokenization notification's 200 is the vaulting's.
    await page.getByRole('navigation').getByRole('link', { name: 'Sandbox playground' }).click();
    await page.getByRole('tab', { name: 'Tokenize & charge' }).click();
    const panel = page.getByRole('tabpanel', { name: 'Tokenize & charge' });
    await panel.getByRole('checkbox', { name: /consent/ }).check();
    await panel.getByRole('button', { name: 'Tokenize card' }).click();
    const vaulting = panel.locator('[data-testid="live-notification"][data-event="v2_tokenization_notification"]').first();
    await vaulting.waitFor({ timeout: 15_000 });
    expect(await vaulting.locator('[data-tokenization]').getAttribute('data-tokenization')).toBe('200');
    expect(await vaulting.textContent()).toContain('card vaulted');
    expect(await vaulting.textContent()).toContain('Tokenization result');
    // No pay-in status badge ("200 · Success") for it.
    expect(await vaulting.locator('[data-category]').count()).toBe(0);
    await screenshot(page, 'records-tokenization-live');

    // Charge the vaulted token, then open the charge's page.
    await poll(() => panel.getByTestId('charge-token').textContent()).toContain('411111******1111');
    await panel.getByLabel('CVV', { exact: true }).fill('123');
    await panel.getByRole('button', { name: 'Pay with token' }).click();
    await poll(() => panel.getByTestId('send-result').nth(1).getAttribute('data-outcome')).toBe('succeeded');
    const live = panel.getByTestId('live-panel').nth(1);
    await live.waitFor();
    await live.getByRole('link', { name: /Open the pay-in/ }).click();
    const detail = page.getByTestId('transaction-detail');
    await detail.waitFor();
    expect(await detail.textContent()).toContain('Token charge (vaulted card)');
    await poll(() => detail.getByTestId('masked-card').textContent()).toBe(`CardVisa 411111******1111 · expires 12/${CARD_YEAR} (vaulted card)`);
    const profile = detail.getByTestId('transaction-profile');
    await poll(() => profile.textContent()).toContain('Local emulator');
    expect(await profile.getAttribute('data-environment')).toBe('local');
    expect(await profile.textContent()).not.toMatch(UUID);
    await screenshot(page, 'records-token-charge');

    // Search names the card too.
    const requestId = ((await page.getByRole('heading', { level: 2 }).filter({ hasText: 'Pay-in' }).textContent()) ?? '').replace(/^Pay-in\s*/, '').trim();
    expect(await searchLine(page, requestId)).toContain('Visa 411111******1111');
    await page.close();
  });
});

describe('a late, older notification', () => {
  it('is labelled stale — changed nothing, on the pay-in page and in the webhook inspector', async () => {
    const requestId = `e2e-stale-${tag}`;
    const created = await rpc<{ payin: { id: number; payinId: string } }>(app, 'payins:create', payinForm('open_banking', { requestId, amount: '10.00', email: 'ana+s200@example.com' }));
    const page = await openApp(browser, app, { live: true });
    await go(page, `#/payins/${created.payin.id}`);
    const detail = page.getByTestId('transaction-detail');
    await poll(() => detail.locator('[data-testid="timeline-entry"][data-kind="notification"]').count()).toBe(1);

    // The 101 arrives after the final 200: a real gateway's retry or reordering.
    const { notificationUrl } = await localProfile();
    const late = await fetch(notificationUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ event: 'v2_payin_notification', status: 'success', status_code: 101, payin_id: created.payin.payinId, request_id: requestId }),
    });
    expect(late.status).toBe(200);
    const entries = detail.locator('[data-testid="timeline-entry"][data-kind="notification"]');
    await poll(() => entries.count()).toBe(2);
    const stale = detail.locator('[data-outcome="stale"]');
    await poll(() => stale.count()).toBe(1);
    expect(await stale.textContent()).toBe('stale — changed nothing');
    expect(await detail.locator('[data-outcome="applied"]').count()).toBe(1);
    await screenshot(page, 'records-stale-timeline');

    await page.getByRole('navigation').getByRole('link', { name: 'Webhook inspector' }).click();
    const top = page.getByRole('table', { name: 'Notifications' }).locator('[role="row"][data-row-key]').first();
    await poll(() => top.locator('[data-outcome]').last().getAttribute('data-outcome')).toBe('stale');
    expect(await top.textContent()).toContain('stale — changed nothing');
    await page.close();
  });
});
