/// <reference lib="dom" />
// A CSV batch that could have paid the wrong names, or the same people twice, in Chromium against
// web mode and the embedded emulator: a file saved by a spreadsheet in Windows-1252, with a blank
// line, a bad amount, a row repeating an earlier payout and a reference an earlier payout already
// has. The mapping step shows the encoding it found; the check names each row by its line in the
// file, each problem on its row, readable whole at 1280 and 1440 px; the repeat is sent only once
// confirmed on its row; the start says how many rows are left out before it starts; and the
// gateway receives exactly the confirmed rows, the names in their own letters.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp-dir';
import { withDb } from '../reliability/helpers/stores';
import { ibanEnding3000 } from '../integration/batches/helpers';
import { launchBrowser, openApp, rpc, screenshot, startWebApp, type WebApp } from './harness';

let app: WebApp;
let browser: Browser;
let page: Page;
let temp: { dir: string; cleanup: () => void };

const REPEATED = ibanEnding3000(424_242);
const OTHER = ibanEnding3000(171_717);
const tag = Date.now().toString(36);
const ref = (name: string) => `e2e-${name}-${tag}`;
let earlier: { id: number; merchantReference: string };

beforeAll(async () => {
  temp = tempDir('paydesk-e2e-batch-safety-');
  app = await startWebApp(path.join(temp.dir, 'data'));
  browser = await launchBrowser();
  page = await openApp(browser, app);
  // Paid last week, by hand: 25.00 EUR to this IBAN, under this reference.
  const sent = await rpc<{ payout: { id: number; merchantReference: string } }>(app, 'payouts:create', {
    method: 'open_banking', amount: '25.00', currency: 'EUR', country: 'DEU', merchantReference: ref('earlier'),
    customer: { firstName: 'Zoë', lastName: 'Faure', email: 'zoe@example.com' },
    paymentDetails: { iban: REPEATED, bic: 'COBADEFFXXX', accountHolder: 'Zoë Faure' },
  });
  earlier = sent.payout;
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  temp?.cleanup();
});

const row = (first: string, last: string, amount: string, iban: string, reference: string) => `open_banking,${amount},EUR,DEU,${first},${last},${first.toLowerCase().replace(/\W/g, '')}@example.com,${iban},COBADEFFXXX,${first} ${last},${reference}`;

/** Cut text must not be the only way to read it: nothing in the cell is cut, and it lies in view. */
async function readsWhole(cell: Locator): Promise<string[]> {
  return cell.evaluate((element) => {
    const cut = [element, ...Array.from(element.querySelectorAll('*'))].filter((el) => el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1);
    const frame = (element.closest('[role="rowgroup"]') as HTMLElement).getBoundingClientRect();
    const box = element.getBoundingClientRect();
    const outside = box.left < frame.left - 0.5 || box.right > frame.right + 0.5 ? ['outside the list'] : [];
    return [...cut.map((el) => `${el.tagName.toLowerCase()} "${el.textContent}" is cut`), ...outside];
  });
}

describe('a Windows-1252 batch with a blank line, a bad row, a repeat and a reused reference', () => {
  it('is read in its encoding, checked by file line, and sends exactly the confirmed rows with the names whole', async () => {
    const lines = [
      'method,amount,currency,country,firstName,lastName,email,iban,bic,accountHolder,merchantReference',
      row('José', 'Müller', '11.00', OTHER, ref('jose')), // line 2
      '', // line 3: blank
      row('Ana', 'Bad', '1e3', OTHER, ref('bad')), // line 4: refused amount
      row('Zoë', 'Faure', '25.00', REPEATED, ref('again')), // line 5: the same as the earlier payout
      row('Ole', 'Reused', '12.00', OTHER, earlier.merchantReference), // line 6: reference already used
      row('Chloé', 'Brontë', '13.00', OTHER, ref('chloe')), // line 7
    ];
    const file = path.join(temp.dir, 'payouts-cp1252.csv');
    // As a spreadsheet saves it on a Western European Windows: é is the single byte 0xE9.
    writeFileSync(file, Buffer.from(`${lines.join('\r\n')}\r\n`, 'latin1'));

    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole('navigation').getByRole('link', { name: 'Payouts' }).click();
    await page.getByRole('tab', { name: 'Batch (CSV)' }).click();
    await page.getByTestId('batch-file').waitFor();
    await page.locator('input[type="file"]').setInputFiles(file);

    // The encoding it found, and the names read whole in the first row.
    const mapping = page.getByRole('table', { name: 'Column mapping' });
    await mapping.waitFor();
    expect(await page.getByLabel('File encoding', { exact: true }).inputValue()).toBe('Windows-1252 (Western European) · found in the file');
    expect(await mapping.locator('[data-target="customer.firstName"]').textContent()).toContain('José');
    expect(await mapping.locator('[data-target="paymentDetails.accountHolder"]').textContent()).toContain('José Müller');
    await screenshot(page, 'payout-batch-encoding');
    await page.getByRole('button', { name: 'Check the rows' }).click();

    const preview = page.getByRole('table', { name: 'Batch preview' });
    await page.getByTestId('preview-summary').waitFor({ timeout: 15_000 });
    const rowAt = (line: number) => preview.locator(`[data-row-key="${line}"]`);
    // The file's own line numbers: the blank line 3 is skipped, not renumbered.
    await expect.poll(() => preview.locator('[data-row-key]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-row-key')))).toEqual(['2', '4', '5', '6', '7']);
    const state = (line: number) => rowAt(line).locator('[data-row-state]').getAttribute('data-row-state');
    expect([await state(2), await state(4), await state(5), await state(6), await state(7)]).toEqual(['ok', 'problem', 'duplicate', 'problem', 'ok']);
    expect(await rowAt(2).textContent()).toContain('José Müller');
    // A refused amount as typed, beside its problem.
    expect(await rowAt(4).locator('[data-typed-amount]').textContent()).toBe('1e3 EUR');
    expect(await rowAt(4).textContent()).toContain('Amount: must be written out in digits, such as 1000 or 10.50, not as 1e3');
    // The repeat names the earlier payout, with a link to it.
    expect(await rowAt(5).textContent()).toContain(`Possible duplicate: the same account, amount and currency as payout ${earlier.merchantReference} (25.00 EUR,`);
    expect(await rowAt(5).getByRole('link', { name: new RegExp(earlier.merchantReference) }).getAttribute('href')).toBe(`#/payouts/${earlier.id}`);
    // The reference already used, in words, on its row, found before anything is started.
    expect(await rowAt(6).textContent()).toContain(`Merchant reference: is already the reference of payout ${earlier.merchantReference}`);

    // Problems and states read whole, at both widths.
    for (const viewport of [{ width: 1280, height: 800 }, { width: 1440, height: 900 }]) {
      await page.setViewportSize(viewport);
      for (const line of [4, 5, 6]) {
        const cells = rowAt(line).getByRole('cell');
        expect(await readsWhole(cells.nth(1)), `line ${line} state at ${viewport.width}`).toEqual([]);
        expect(await readsWhole(cells.nth(6)), `line ${line} problems at ${viewport.width}`).toEqual([]);
      }
      await screenshot(page, `payout-batch-check-${viewport.width}`);
    }
    // The states' colours in the dark theme too (the accessibility suite measures their contrast).
    await rpc(app, 'settings:update', { theme: 'dark' });
    await page.waitForFunction(() => document.documentElement.dataset.mantineColorScheme === 'dark');
    await screenshot(page, 'payout-batch-check-dark');
    await rpc(app, 'settings:update', { theme: 'light' });

    // The link opens the earlier payout; coming back, the check is as it was.
    await rowAt(5).getByRole('link', { name: new RegExp(earlier.merchantReference) }).click();
    await page.getByTestId('transaction-detail').waitFor();
    expect(await page.getByTestId('transaction-detail').textContent()).toContain(earlier.merchantReference);
    await page.goBack();
    await rowAt(5).waitFor();
    expect(await state(5)).toBe('duplicate');

    // The repeat is confirmed on its own row; the start says what is left out before it starts.
    await rowAt(5).getByRole('checkbox', { name: /Send line 5 anyway/ }).check();
    expect(await state(5)).toBe('confirmed');
    await page.getByRole('button', { name: 'Start batch of 3' }).click();
    const confirmation = page.getByRole('dialog', { name: 'Rows will be left out' });
    await confirmation.waitFor();
    expect(await confirmation.getByTestId('left-out-count').textContent()).toBe('3 of 5 rows will be sent; 2 are left out.');
    expect(await confirmation.getByRole('list', { name: 'Rows left out' }).textContent()).toMatch(/^Line 4: Amount: must be written out.*Line 6: Merchant reference: is already the reference/);
    await screenshot(page, 'payout-batch-left-out');
    await confirmation.getByRole('button', { name: 'Send 3 payouts' }).click();

    const progress = page.getByTestId('batch-progress');
    await expect.poll(() => progress.getAttribute('data-batch-state'), { timeout: 30_000 }).toBe('done');
    expect(await progress.getByTestId('batch-processed').textContent()).toContain('3 of 3 processed · 3 sent · 0 refused');
    const leftOut = progress.getByTestId('batch-left-out');
    await leftOut.locator('[data-left-out-line="6"]').waitFor();
    expect(await leftOut.textContent()).toContain('The file had 5 rows: 3 sent in this batch, 2 left out');
    await screenshot(page, 'payout-batch-done');

    // What the gateway received: exactly the three rows sent, the names in their own letters.
    const received = withDb(path.join(temp.dir, 'data', 'emulator.sqlite'), (db) => db.prepare('SELECT merchant_reference, destination FROM payouts').all() as { merchant_reference: string; destination: string }[]);
    const mine = received.filter((p) => p.merchant_reference.startsWith('e2e-') && p.merchant_reference !== earlier.merchantReference);
    expect(mine.map((p) => p.merchant_reference).sort()).toEqual([ref('again'), ref('chloe'), ref('jose')].sort());
    const holder = (reference: string) => (JSON.parse(mine.find((p) => p.merchant_reference === reference)!.destination) as { accountHolder: string }).accountHolder;
    expect(Buffer.from(holder(ref('jose')), 'utf8')).toEqual(Buffer.from('José Müller', 'utf8'));
    expect(holder(ref('chloe'))).toBe('Chloé Brontë');
    expect(holder(ref('again'))).toBe('Zoë Faure');
  });

  it('a manual payout repeating the same one is flagged in its review, with a link, and sent only once confirmed', async () => {
    await page.getByRole('tab', { name: 'New payout' }).click();
    await page.locator('.mantine-SegmentedControl-root').getByText('Open banking', { exact: true }).click();
    const values: Record<string, string> = { Amount: '25.00', Currency: 'EUR', Country: 'DEU', 'First name': 'Zoë', 'Last name': 'Faure', 'E-mail': 'zoe@example.com', IBAN: REPEATED, BIC: 'COBADEFFXXX', 'Account holder': 'Zoë Faure' };
    for (const [label, value] of Object.entries(values)) await page.getByRole('textbox', { name: label, exact: true }).fill(value);
    await page.getByRole('button', { name: 'Review payout' }).click();
    const review = page.getByTestId('payout-review');
    const duplicates = review.getByTestId('review-duplicates');
    await duplicates.waitFor();
    // Both earlier ones: the payout by hand, and the batch's confirmed repeat, newest first.
    expect(await duplicates.textContent()).toMatch(new RegExp(`^Possible duplicateThe same account, amount and currency as payout ${ref('again')} \\(25\\.00 EUR, .*\\), payout ${earlier.merchantReference} \\(25\\.00 EUR, .*\\) in the last 30 days\\.`));
    expect(await duplicates.getByRole('link', { name: new RegExp(earlier.merchantReference) }).getAttribute('href')).toBe(`#/payouts/${earlier.id}`);
    const send = review.getByRole('button', { name: 'Send payout' });
    await review.getByTestId('limit-check').waitFor();
    expect(await send.isDisabled()).toBe(true);
    await screenshot(page, 'payout-review-duplicate');
    await duplicates.getByRole('checkbox', { name: /Send anyway/ }).check();
    await send.click();
    await expect.poll(() => page.getByTestId('payout-result').getByTestId('result-status').getAttribute('data-status'), { timeout: 15_000 }).toMatch(/^P/);
  });
});
