/// <reference lib="dom" />
// Finance staff at work, in Chromium against web mode and the embedded emulator: manual payouts of
// every method through the form (inline errors, a review that cannot be skipped, the final state
// arriving live), the filtered payouts list exported as CSV, a payout over a configured limit, a CSV batch (mapping, per-row errors, progress,
// pause and resume), and the LIVE banner on a live profile.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp-dir';
import { downloaded, launchBrowser, openApp, pick, rpc, screenshot as save, startWebApp, type WebApp } from './harness';

let app: WebApp;
let browser: Browser;
let page: Page;
let temp: { dir: string; cleanup: () => void };
const CARD_YEAR = String(new Date().getUTCFullYear() + 3);
const IBAN = 'DE89370400440532013000';
const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';

beforeAll(async () => {
  temp = tempDir('paydesk-e2e-finance-');
  app = await startWebApp(path.join(temp.dir, 'data'));
  browser = await launchBrowser();
  page = await openApp(browser, app);
  await page.getByRole('navigation').getByRole('link', { name: 'Payouts' }).click();
  await page.getByRole('heading', { level: 2, name: 'Payouts' }).waitFor();
});

afterAll(async () => {
  await browser?.close();
  const code = await app?.stop();
  temp?.cleanup();
  expect(code).toBe(0);
});

/** From the top of the page: a full-page capture of a scrolled page draws the fixed header mid-page. */
async function screenshot(p: Page, name: string): Promise<void> {
  await p.evaluate(() => window.scrollTo(0, 0));
  await save(p, name);
}

const tab = (name: string) => page.getByRole('tab', { name }).click();
// By accessible name: a required field's asterisk is aria-hidden, so the name is the label alone.
const field = (label: string) => page.getByRole('textbox', { name: label, exact: true });
const method = (label: string) => page.locator('.mantine-SegmentedControl-root').getByText(label, { exact: true }).click();

async function fill(values: Record<string, string>): Promise<void> {
  for (const [label, value] of Object.entries(values)) await field(label).fill(value);
}

const customer = (email: string) => ({ 'First name': 'Ana', 'Last name': 'Lima', 'E-mail': email });

describe('a manual payout', () => {
  it('shows each problem at its field, cannot be sent without the review, and reaches P200 live in the list', async () => {
    await tab('New payout');
    await method('Open banking');
    await fill({ Amount: '1234.5', Currency: 'eur', Country: 'DEU', 'Merchant reference': 'e2e-ob-1', ...customer('ana@example.com'), IBAN: 'DE00' });
    await field('BIC').focus();
    // The shared validator's words, at the field, as soon as the user leaves it.
    await expect.poll(() => page.getByText('must be a valid IBAN').isVisible()).toBe(true);
    await field('IBAN').fill('');
    await field('BIC').focus();
    await expect.poll(() => field('IBAN').getAttribute('aria-invalid')).toBe('true');
    expect(await field('Currency').inputValue()).toBe('EUR');
    // No way to send from the form: the review comes first, and refuses to open on errors.
    expect(await page.getByRole('button', { name: /Send/ }).count()).toBe(0);
    await page.getByRole('button', { name: 'Review payout' }).click();
    await expect.poll(() => page.getByText('fields need attention before the review').isVisible()).toBe(true);
    expect(await page.getByTestId('payout-review').count()).toBe(0);

    await fill({ IBAN, BIC: 'COBADEFFXXX', 'Account holder': 'Ana Lima' });
    await page.getByRole('button', { name: 'Review payout' }).click();
    const review = page.getByTestId('payout-review');
    await review.waitFor();
    expect(await review.getByTestId('review-amount').textContent()).toBe('1,234.50 EUR');
    expect(await review.getByTestId('review-iban').textContent()).toBe('DE•• •••• •••• •••• •• 3000');
    expect(await review.getByTestId('review-beneficiary').textContent()).toBe('Ana Lima');
    expect(await review.textContent()).not.toContain(IBAN);
    expect(await review.getByTestId('environment-banner').getAttribute('data-environment')).toBe('local');
    await expect.poll(() => review.getByTestId('limit-check').textContent()).toContain('No payout limit is set for EUR');
    await screenshot(page, 'payout-review');

    await review.getByRole('button', { name: 'Send payout' }).click();
    const result = page.getByTestId('payout-result');
    await result.waitFor();
    expect(await result.getAttribute('data-outcome')).toBe('succeeded');
    // The final state comes from the notification, live, without a reload.
    await expect.poll(() => result.getByTestId('result-status').getAttribute('data-status'), { timeout: 15_000 }).toBe('P200');

    await tab('List');
    const row = page.locator('[data-row-key]', { hasText: 'e2e-ob-1' });
    await expect.poll(() => row.locator('[data-status]').getAttribute('data-status'), { timeout: 10_000 }).toBe('P200');
    expect(await row.textContent()).toContain('1,234.50 EUR');
    await screenshot(page, 'payouts');
    // A row opens the payout's detail; its back link returns to the list.
    await row.click();
    await expect.poll(() => page.url()).toMatch(/#\/payouts\/\d+$/);
    await page.getByRole('link', { name: '← All payouts' }).click();
    await page.getByRole('table', { name: 'Payouts' }).waitFor();
    const detail = await rpc<{ payout: { amount: string; statusCode: string } }>(app, 'payouts:get', { merchantReference: 'e2e-ob-1' });
    expect(detail.payout).toMatchObject({ amount: '1234.50', statusCode: 'P200' });
  });

  it('pays out by card, crypto and FPS through the form, masking each destination; a +sC405 one fails live', async () => {
    const cases = [
      { method: 'Credit card', values: { Amount: '25.00', Currency: 'EUR', Country: 'DEU', ...customer('ana@example.com'), 'Card number': '4111111111111111', 'Cardholder name': 'Ana Lima', 'Expiry month (MM)': '12', 'Expiry year (YYYY)': CARD_YEAR }, shown: ['review-card', '411111******1111'], final: 'P200' },
      { method: 'Crypto', values: { Amount: '0.0000000123', Currency: 'EUR', Country: 'DEU', ...customer('ana@example.com'), 'Wallet address': WALLET, Network: 'ethereum' }, shown: ['review-wallet', '0x5290…9EE7'], final: 'P200' },
      { method: 'Faster Payments (UK)', values: { Amount: '10.12', Currency: 'GBP', Country: 'GBR', ...customer('bob+sC405@example.com'), 'Sort code': '401276', 'Account number': '12345678', 'Account holder': 'Bob Stone' }, shown: ['review-account-number', '••••5678'], final: 'C405' },
    ];
    for (const c of cases) {
      await tab('New payout');
      await method(c.method);
      if (c.method === 'Faster Payments (UK)') {
        // Two decimals for GBP by FPS: the third is refused at the field.
        await fill({ Amount: '10.123', Currency: 'GBP' });
        await field('Country').focus();
        await expect.poll(() => page.getByText('must have at most 2 decimals').isVisible()).toBe(true);
      }
      await fill(c.values);
      await page.getByRole('button', { name: 'Review payout' }).click();
      const review = page.getByTestId('payout-review');
      await review.waitFor();
      expect(await review.getByTestId(c.shown[0] as string).textContent(), c.method).toBe(c.shown[1]);
      await review.getByTestId('limit-check').waitFor();
      await review.getByRole('button', { name: 'Send payout' }).click();
      const result = page.getByTestId('payout-result');
      await result.waitFor();
      expect(await result.getAttribute('data-outcome'), c.method).toBe('succeeded');
      await expect.poll(() => result.getByTestId('result-status').getAttribute('data-status'), { timeout: 15_000 }).toBe(c.final);
      if (c.final === 'C405') expect(await result.textContent()).toContain('C405');
      await result.getByRole('button', { name: 'Make another payout' }).click();
    }
    expect(await page.content()).not.toContain('4111111111111111');
  });

  it('exports the filtered payouts list as CSV: exact amounts, masked card, only the rows shown', async () => {
    await tab('List');
    await pick(page, 'Status', /^P200 · Payout succeeded$/);
    await page.waitForURL(/status=P200/);
    const filters = { statusCodes: ['P200'] };
    const expected = await rpc<{ items: { merchantReference: string; method: string; amount: string }[] }>(app, 'payouts:list', filters);
    // The open banking, card and crypto payouts above; not the FPS one that ended C405.
    expect(expected.items.map((p) => p.method).sort()).toEqual(['credit_card', 'crypto', 'open_banking']);
    await expect.poll(() => page.getByTestId('payouts-total').textContent()).toBe('3 payouts match');

    const { download, text } = await downloaded(page, () => page.getByRole('button', { name: 'Export CSV' }).click());
    expect(download.suggestedFilename()).toMatch(/^paydesk-payouts-.*\.csv$/);
    const [header, ...lines] = text.trimEnd().split('\r\n');
    expect(header).toMatch(/^created_at,merchantReference,payout_id,method,amount,currency,/);
    const cells = lines.map((l) => l.split(','));
    expect(cells.map((c) => c[1]).sort()).toEqual(expected.items.map((p) => p.merchantReference).sort());
    expect(cells.map((c) => `${c[3]} ${c[4]} ${c[5]}`).sort()).toEqual(['credit_card 25.00 EUR', 'crypto 0.0000000123 EUR', 'open_banking 1234.50 EUR']);
    for (const line of lines) expect(line).toContain(',P200,Payout succeeded,success,true,');
    expect(lines.find((l) => l.includes(',credit_card,'))).toContain(',411111******1111,');
    expect(text).not.toContain('4111111111111111');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.waitForURL((url) => !url.hash.includes('status='));
  });

  it('is refused over a configured limit, naming the limit', async () => {
    await tab('Limits');
    await page.getByRole('form', { name: 'Set a payout limit' }).waitFor();
    await fill({ Currency: 'EUR', 'Per-payout maximum': '1000' });
    await page.getByRole('button', { name: 'Save limit' }).click();
    const limitRow = page.locator('[data-limit="EUR/any"]');
    await limitRow.waitFor();
    expect(await limitRow.textContent()).toContain('1,000.00');
    await screenshot(page, 'payout-limits');

    await tab('New payout');
    await method('Open banking');
    await fill({ Amount: '1500', Currency: 'EUR', Country: 'DEU', ...customer('ana@example.com'), IBAN, BIC: 'COBADEFFXXX', 'Account holder': 'Ana Lima' });
    await page.getByRole('button', { name: 'Review payout' }).click();
    const review = page.getByTestId('payout-review');
    await review.getByTestId('over-limit').waitFor();
    expect(await review.getByTestId('limit-check').textContent()).toContain('Over the per-payout limit for EUR payouts (every environment): 1500.00 EUR is more than the maximum of 1000.00 EUR.');
    expect(await review.getByRole('button', { name: 'Send payout' }).isDisabled()).toBe(true);
    // Main enforces it too, whatever the renderer does.
    await expect(rpc(app, 'payouts:create', { method: 'open_banking', amount: '1500', currency: 'EUR', country: 'DEU', customer: { firstName: 'A', lastName: 'B', email: 'a@example.com' }, paymentDetails: { iban: IBAN, bic: 'COBADEFFXXX', accountHolder: 'A B' } })).rejects.toThrow(/Over the per-payout limit/);

    await tab('Limits');
    await page.getByRole('button', { name: 'Remove the EUR limit (Every environment)' }).click();
    await page.getByTestId('no-limits').waitFor();
  });
});

describe('a CSV batch', () => {
  it('maps the columns, shows per-row errors, runs with a progress bar, pauses and resumes to the end', async () => {
    const rows: string[] = ['type,amount,ccy,country,first name,last name,Beneficiary Email,iban,bic,holder,wallet,network,sort code,account number'];
    const valid = 150;
    for (let i = 0; i < valid; i++) {
      const kind = i % 3;
      if (kind === 0) rows.push(`open_banking,${10 + i}.50,EUR,DEU,Ana,Lima${i},ana${i}@example.com,${IBAN},COBADEFFXXX,Ana Lima,,,,`);
      else if (kind === 1) rows.push(`fps,${5 + i}.25,GBP,GBR,Bob,Stone${i},bob${i}@example.com,,,Bob Stone,,,401276,12345678`);
      else rows.push(`crypto,0.00${i + 1},EUR,DEU,Mia,Chen${i},mia${i}@example.com,,,,${WALLET},ethereum,,`);
    }
    rows.push('open_banking,99.00,EUR,DEU,No,Iban,noiban@example.com,,COBADEFFXXX,No Iban,,,,');
    rows.push('credit_card,10.00,EUR,DEU,Card,Row,card@example.com,,,,,,,');
    rows.push('fps,10.123,GBP,GBR,Too,Precise,precise@example.com,,,Too Precise,,,401276,12345678');
    const file = path.join(temp.dir, 'payouts-june.csv');
    writeFileSync(file, `${rows.join('\n')}\n`);

    await tab('Batch (CSV)');
    await page.getByTestId('batch-file').waitFor();
    await page.locator('input[type="file"]').setInputFiles(file);
    const mapping = page.getByRole('table', { name: 'Column mapping' });
    await mapping.waitFor();
    // Guessed from the headers…
    expect(await mapping.getByLabel('Column for paymentDetails.accountHolder').inputValue()).toBe('holder');
    expect(await mapping.getByLabel('Column for method').inputValue()).toBe('type');
    // …and one the user maps by hand.
    expect(await mapping.getByLabel('Column for customer.email').inputValue()).toBe('— not in the file —');
    expect(await mapping.locator('[data-unmapped-required="customer.email"]').textContent()).toBe('required: not mapped');
    await screenshot(page, 'payout-batch-mapping');
    await mapping.getByLabel('Column for customer.email').click();
    await page.getByRole('option', { name: 'Beneficiary Email' }).click();
    await page.getByRole('button', { name: 'Check the rows' }).click();

    const summary = page.getByTestId('preview-summary');
    await summary.waitFor({ timeout: 15_000 });
    expect(await summary.textContent()).toBe(`${valid} ready3 with problems (left out)`);
    const onlyProblems = page.getByRole('switch', { name: 'Only rows with problems or warnings' });
    await onlyProblems.focus();
    await page.keyboard.press('Space');
    const preview = page.getByRole('table', { name: 'Batch preview' });
    await expect.poll(() => preview.locator('[data-row-key]').count()).toBe(3);
    const problems = await preview.locator('[data-row-key]').allTextContents();
    expect(problems[0]).toContain('IBAN: is required');
    expect(problems[1]).toContain('card payouts are not made in batches');
    expect(problems[2]).toContain('Amount: must have at most 2 decimals');
    expect(await page.getByTestId('environment-banner').getAttribute('data-environment')).toBe('local');
    await screenshot(page, 'payout-batch-preview');

    await page.getByRole('button', { name: `Start batch of ${valid}` }).click();
    // The rows left out are said before anything starts.
    const leftOut = page.getByRole('dialog', { name: 'Rows will be left out' });
    expect(await leftOut.getByTestId('left-out-count').textContent()).toBe(`${valid} of ${valid + 3} rows will be sent; 3 are left out.`);
    await leftOut.getByRole('button', { name: `Send ${valid} payouts` }).click();
    const progress = page.getByTestId('batch-progress');
    await progress.waitFor();
    await progress.getByRole('button', { name: 'Pause' }).click();
    await expect.poll(() => progress.getAttribute('data-batch-state')).toBe('paused');
    // Pausing stops new sends; the few already in flight still land. Once none is in flight,
    // nothing moves any more.
    // The counts reach the page by push and may lag the paused state by a turn (CI once saw 0 in
    // flight, then 8), so wait until a second apart they agree and none is in flight.
    const processed = progress.getByTestId('batch-processed');
    const settled = async (): Promise<string | null> => {
      const before = await processed.textContent();
      await page.waitForTimeout(1000);
      const after = await processed.textContent();
      const inFlight = await processed.getAttribute('data-in-flight');
      return before === after && inFlight === '0' ? after : null;
    };
    await expect.poll(settled, { timeout: 30_000, interval: 50 }).not.toBeNull();
    const paused = await processed.textContent();
    expect(paused).not.toContain('in flight');
    await page.waitForTimeout(1000);
    expect(await processed.textContent()).toBe(paused);
    expect(paused).not.toContain(`${valid} of ${valid} processed`);

    await progress.getByRole('button', { name: 'Resume' }).click();
    await expect.poll(() => progress.getAttribute('data-batch-state'), { timeout: 30_000 }).toBe('done');
    expect(await processed.textContent()).toContain(`${valid} of ${valid} processed · ${valid} sent · 0 refused`);
    expect(await progress.getByRole('progressbar', { name: 'Batch progress' }).getAttribute('aria-valuenow')).toBe('100');
    // Final states arrive by notification, each confirmed by a rate-limited status read: some are in already.
    await expect.poll(() => progress.getByTestId('batch-outcomes').textContent(), { timeout: 15_000 }).toMatch(/: [1-9]\d* paid \(P200\) · 0 failed/);
    await screenshot(page, 'payout-batch');
  });
});

describe('environments', () => {
  it('marks the review of a live payout LIVE, and says payouts are disabled on a sandbox profile', async () => {
    const live = await rpc<{ id: string }>(app, 'profiles:create', { name: 'Shop live', environment: 'live', baseUrl: 'https://pay.example.com/api/v2', merchantId: 'm-42', merchantSiteId: 's-42' });
    const sandbox = await rpc<{ id: string }>(app, 'profiles:create', { name: 'Shop sandbox', environment: 'sandbox', baseUrl: 'https://sandbox.example.com/api/', merchantId: 'm-7', merchantSiteId: 's-7' });
    const localId = (await rpc<{ id: string; environment: string }[]>(app, 'profiles:list')).find((p) => p.environment === 'local')?.id;

    await page.getByRole('navigation').getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('radio', { name: 'Activate Shop live' }).click();
    await page.getByRole('dialog', { name: 'Switch to “Shop live”, a live profile?' }).getByRole('button', { name: 'Switch to “Shop live” (live)' }).click();
    await expect.poll(() => page.getByTestId('environment-badge').getAttribute('data-environment')).toBe('live');
    await page.getByRole('navigation').getByRole('link', { name: 'Payouts' }).click();
    await tab('New payout');
    await method('Open banking');
    await fill({ Amount: '50.00', Currency: 'EUR', Country: 'DEU', ...customer('ana@example.com'), IBAN, BIC: 'COBADEFFXXX', 'Account holder': 'Ana Lima' });
    await page.getByRole('button', { name: 'Review payout' }).click();
    const review = page.getByTestId('payout-review');
    const banner = review.getByTestId('environment-banner');
    await banner.waitFor();
    expect(await banner.getAttribute('data-environment')).toBe('live');
    expect(await banner.textContent()).toContain('LIVE — real money');
    const send = review.getByRole('button', { name: 'Send LIVE payout' });
    await review.getByTestId('limit-check').waitFor();
    expect(await send.isDisabled()).toBe(true);
    await review.getByText('send this LIVE payout (real money)').click();
    await expect.poll(() => send.isDisabled()).toBe(false);
    await screenshot(page, 'payout-review-live');

    await rpc(app, 'profiles:activate', { id: sandbox.id });
    await page.getByTestId('payouts-disabled').waitFor();
    expect(await page.getByRole('tab', { name: 'New payout' }).isDisabled()).toBe(true);

    await rpc(app, 'profiles:activate', { id: localId });
    await page.getByTestId('payouts-disabled').waitFor({ state: 'detached' });
    await rpc(app, 'profiles:delete', { id: live.id });
    await rpc(app, 'profiles:delete', { id: sandbox.id });
  });
});
