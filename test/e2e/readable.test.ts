/// <reference lib="dom" />
// Issue 15.3 and 15.5: at 1440×900 and 1280×800 the request_id, created time, method and amount
// (and the pay-ins' status and verification badges) read whole in the lists, the exception lists,
// a batch's items and the search results: each either
// fits its cell or shows its full value on hover, in view without scrolling sideways; no column
// header is drawn over its neighbour, and each sits over its column; amounts in tabular figures
// with their currency, right-aligned; times in the user's locale with UTC on hover; a copy button
// on each id.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payoutTemplateCsv } from '../../src/renderer/features/payouts/csv';
import { LOCAL_TIME_FORMAT } from '../../src/renderer/features/transactions/format';
import { payinForm } from '../helpers/fixtures';
import { tempDir } from '../helpers/temp-dir';
import { launchBrowser, openApp, rpc, startWebApp, type WebApp } from './harness';
import { seedWorkday, until, type Seeded, type SeededPayin } from './seed';

let app: WebApp;
let browser: Browser;
let temp: { dir: string; cleanup: () => void };
let seeded: Seeded;

beforeAll(async () => {
  temp = tempDir('paydesk-e2e-readable-');
  app = await startWebApp(path.join(temp.dir, 'data'));
  browser = await launchBrowser();
  seeded = await seedWorkday(app);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  temp?.cleanup();
});

/**
 * The cell's text fits it (nothing cut), or what is cut carries its full text as its title. `cut`
 * names what is cut without it, for the failure message.
 */
async function readable(cell: Locator): Promise<{ text: string; whole: boolean; cut: string[] }> {
  return cell.evaluate((element) => {
    const isCut = (el: Element) => el.scrollWidth > el.clientWidth + 1;
    const titled = (el: Element) => (el.getAttribute('title') ?? '').includes((el.textContent ?? '').trim());
    const cut = [element, ...Array.from(element.querySelectorAll('*'))].filter((el) => isCut(el) && !titled(el) && !Array.from(el.querySelectorAll('[title]')).some(titled));
    return { text: (element.textContent ?? '').trim(), whole: cut.length === 0, cut: cut.map((el) => `${el.tagName.toLowerCase()}.${el.className} "${el.textContent}"`) };
  });
}

const column = (row: Locator, header: string, headers: string[]) => row.getByRole('cell').nth(headers.indexOf(header));

async function headersOf(table: Locator): Promise<string[]> {
  return table.getByRole('columnheader').allTextContents();
}

/** Whether the cell lies within what its row group shows, without scrolling sideways. */
async function inView(cell: Locator): Promise<boolean> {
  return cell.evaluate((element) => {
    const frame = (element.closest('[role="rowgroup"]') as HTMLElement).getBoundingClientRect();
    const box = element.getBoundingClientRect();
    return box.left >= frame.left - 0.5 && box.right <= frame.right + 0.5;
  });
}

/**
 * What is wrong with the list's header row: a header's text drawn outside its cell (over the next
 * column or past the list's edge; a cell that clips its overflow shows only what lies inside it),
 * header cells overlapping, or a header not over its column in the row `row`.
 */
async function headerClashes(table: Locator, row: Locator): Promise<string[]> {
  const cells = await row.getByRole('cell').evaluateAll((elements) => elements.map((element) => element.getBoundingClientRect().toJSON() as DOMRect));
  return table.getByRole('columnheader').evaluateAll((headers, columns) => {
    const problems: string[] = [];
    headers.forEach((header, i) => {
      const name = `"${header.textContent ?? ''}"`;
      const box = header.getBoundingClientRect();
      const range = document.createRange();
      range.selectNodeContents(header);
      const text = range.getBoundingClientRect();
      const clips = getComputedStyle(header).overflowX !== 'visible';
      const [left, right] = clips ? [Math.max(text.left, box.left), Math.min(text.right, box.right)] : [text.left, text.right];
      if (left < box.left - 0.5 || right > box.right + 0.5) problems.push(`${name} is drawn outside its cell (text ${Math.round(left)}–${Math.round(right)}, cell ${Math.round(box.left)}–${Math.round(box.right)})`);
      const next = headers[i + 1];
      if (next && box.right > next.getBoundingClientRect().left + 0.5) problems.push(`${name} overlaps "${next.textContent ?? ''}"`);
      const column = columns[i];
      if (column && (Math.abs(column.left - box.left) > 1 || Math.abs(column.right - box.right) > 1)) problems.push(`${name} (${Math.round(box.left)}–${Math.round(box.right)}) is not over its column (${Math.round(column.left)}–${Math.round(column.right)})`);
    });
    return problems;
  }, cells);
}

/**
 * Every listed column of the row reads whole and in view, and no header clashes with another or
 * is cut without its full text on hover; returns the texts by header.
 */
async function expectRowReadable(table: Locator, row: Locator, wanted: string[]): Promise<Record<string, string>> {
  const headers = await headersOf(table);
  expect(await headerClashes(table, row)).toEqual([]);
  for (const header of await table.getByRole('columnheader').all()) {
    const { text, cut } = await readable(header);
    expect(cut, `header "${text}" is cut off without its full text on hover`).toEqual([]);
  }
  const texts: Record<string, string> = {};
  for (const header of wanted) {
    expect(headers, `column ${header}`).toContain(header);
    const cell = column(row, header, headers);
    const { text, cut } = await readable(cell);
    expect(cut, `${header} "${text}" is cut off without its full value on hover`).toEqual([]);
    expect(await inView(cell), `${header} "${text}" lies past the list's edge`).toBe(true);
    texts[header] = text;
  }
  return texts;
}

describe.each([
  { width: 1440, height: 900 },
  { width: 1280, height: 800 },
])('at $width×$height', (viewport) => {
  let page: Page;
  beforeAll(async () => {
    page = await openApp(browser, app);
    await page.setViewportSize(viewport);
  });
  afterAll(() => page?.close());
  const go = (hash: string) => page.goto(`${app.origin}/?token=${app.token}#/${hash}`);

  it('the pay-ins list shows the full request_id, time, method and amount of its longest row', async () => {
    await go('payins');
    const table = page.getByRole('table', { name: 'Pay-ins' });
    const row = table.locator(`[data-row-key="${seeded.long.id}"]`);
    await row.waitFor();
    const texts = await expectRowReadable(table, row, ['Created', 'request_id', 'Method', 'Amount']);
    expect(texts.Amount).toBe('12,345.0123456789 USD');
    expect(texts.Method).toBe('Crypto');
    // The reference's title and its copy button carry the request_id itself, not another id.
    const reference = column(row, 'request_id', await headersOf(table));
    expect(await reference.locator('[title]').first().getAttribute('title')).toBe(seeded.long.requestId);
    expect(await reference.getByRole('button', { name: `Copy request_id ${seeded.long.requestId}` }).count()).toBe(1);
    // The time is the user's locale's, with the same moment in UTC on hover.
    const time = column(row, 'Created', await headersOf(table)).locator('time');
    expect(await time.getAttribute('title')).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);
    const local = await time.evaluate((el, format) => new Intl.DateTimeFormat(undefined, format).format(new Date(el.getAttribute('datetime') ?? '')), LOCAL_TIME_FORMAT);
    expect(texts.Created).toBe(local);
    // Amounts: right-aligned, tabular figures.
    const amount = column(row, 'Amount', await headersOf(table));
    expect(await amount.evaluate((el) => getComputedStyle(el).textAlign)).toBe('right');
    expect(await amount.locator('span').first().evaluate((el) => getComputedStyle(el).fontVariantNumeric)).toContain('tabular-nums');
  });

  it('the pay-ins list shows its status and verification badges whole: awaiting a result, notified but unverified, a mismatch', async () => {
    // A claim the gateway does not confirm stays "notified, unverified" for its rechecks (minutes), the longest badge.
    const claimed = (await rpc<{ payin: SeededPayin }>(app, 'payins:create', payinForm('open_banking', { requestId: `claimed-${viewport.width}-${seeded.tag}` }))).payin;
    const local = (await rpc<{ environment: string; notificationUrl: string }[]>(app, 'profiles:list')).find((p) => p.environment === 'local');
    const claim = { event: 'v2_payin_notification', status_code: 200, request_id: claimed.requestId, payin_id: claimed.payinId };
    expect((await fetch(local?.notificationUrl ?? '', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(claim) })).status).toBe(200);
    await until(async () => (await rpc<{ payin: { verification: string } }>(app, 'payins:get', { id: claimed.id })).payin.verification === 'claimed', 'the unconfirmed claim');
    await go('payins');
    const table = page.getByRole('table', { name: 'Pay-ins' });
    const badges: string[] = [];
    for (const payin of [seeded.pending, claimed, seeded.mismatch]) {
      const row = table.locator(`[data-row-key="${payin.id}"]`);
      await row.waitFor();
      badges.push((await expectRowReadable(table, row, ['Status', 'Notified / verified']))['Notified / verified'] ?? '');
    }
    expect(badges).toEqual(['awaiting result', 'notified, unverified', 'mismatch']);
  });

  it('the payouts list reads whole', async () => {
    await go('payouts');
    const table = page.getByRole('table', { name: 'Payouts' });
    const row = table.locator(`[data-row-key="${seeded.payout.id}"]`);
    await row.waitFor();
    await expectRowReadable(table, row, ['Created', 'merchantReference', 'Method', 'Amount']);
  });

  it('an exception list reads whole', async () => {
    await go('reconciliation');
    await page.getByRole('tab', { name: /Status mismatch/ }).click();
    const table = page.getByRole('table', { name: 'Status mismatch' });
    const row = table.getByRole('row').filter({ hasText: seeded.mismatch.requestId });
    await row.waitFor();
    const texts = await expectRowReadable(table, row, ['When', 'Transaction', 'Method', 'Amount']);
    expect(texts.Method).toBe('Open banking');
    expect(await row.getByRole('button', { name: `Copy reference ${seeded.mismatch.requestId}` }).count()).toBe(1);
  });

  it("a batch's items read whole", async () => {
    const file = path.join(temp.dir, `batch-${viewport.width}.csv`);
    writeFileSync(file, payoutTemplateCsv());
    await go('payouts?tab=batch');
    await page.locator('input[type="file"]').setInputFiles(file);
    await page.getByRole('button', { name: 'Check the rows' }).click();
    await page.getByRole('button', { name: /^Start batch of \d+$/ }).click();
    const table = page.getByRole('table', { name: 'Batch items' });
    const row = table.locator('[data-row-key]').first();
    await row.waitFor({ timeout: 15_000 });
    // A batch's rows may be wider than the screen (it then scrolls sideways): the time a row last
    // changed, its reference, method and amount are in view.
    await page.getByTestId('batch-progress').getByTestId('batch-state').filter({ hasText: 'done' }).waitFor({ timeout: 15_000 });
    const time = column(row, 'Updated', await headersOf(table)).locator('time');
    expect(await time.getAttribute('title')).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);
    // The row may still take a last live update (its time moves on): compare one settled reading.
    await expect.poll(async () => (await expectRowReadable(table, row, ['Updated', 'merchantReference', 'Method', 'Amount'])).Updated === (await time.textContent()), { timeout: 10_000 }).toBe(true);
  });

  it("the webhook inspector's list reads whole", async () => {
    await go('webhooks');
    const table = page.getByRole('table', { name: 'Notifications' });
    const row = table.locator(`[data-row-key="${seeded.orphanNotificationId}"]`);
    await row.waitFor();
    await expectRowReadable(table, row, ['Received', 'Reference', 'Status']);
  });

  it('search results show the whole request_id, time and amount', async () => {
    await go('payins');
    await page.getByRole('table', { name: 'Pay-ins' }).locator('[data-row-key]').first().waitFor();
    await page.keyboard.press('Control+k');
    await page.getByRole('combobox', { name: 'Reference or e-mail' }).fill(seeded.long.requestId);
    const option = page.getByRole('grid', { name: 'Matches' }).getByRole('row').first();
    await option.waitFor();
    for (const part of [option.getByTestId('search-reference'), option.locator('time'), option.getByText('12,345.0123456789 USD')]) expect((await readable(part)).cut).toEqual([]);
    expect(await option.getByTestId('search-reference').textContent()).toBe(seeded.long.requestId);
    expect(await option.getByRole('button', { name: `Copy request_id ${seeded.long.requestId}`, exact: true }).count()).toBe(1);
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
  });
});
