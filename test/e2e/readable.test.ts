/// <reference lib="dom" />
// Lists that read whole: at 1440×900 and 1280×800 every list reads whole — pay-ins,
// payouts, the recent batches, a batch's items, the exception lists and the totals, statements (a
// break queue, the settlements, the days, the imports), the webhook inspector (alone and
// beside a notification), the code explorer, the search results, and on a team server the
// approvals and the team's people and sessions. What a person scans (a time, an amount, a method, a
// status or verification badge, an outcome, a state, an e-mail, a short reference) fits its cell,
// in view without scrolling sideways; only a long reference, a destination or a sentence (an
// exception's detail, a refusal) may be cut at the cell's edge, with its full text on hover. Every
// value a badge can show (each status of the catalogue, the attempt's "outcome unknown", "refused"
// and "no answer yet", each verification state, outcome, batch item state, approval state, code
// category, search result kind) is put in turn into a real badge of a real row and must read whole
// there. No column header is drawn over its neighbour, and each sits over its column; amounts in
// tabular figures with their currency, right-aligned; times in the user's locale with UTC on hover;
// a copy button on each id.
import { mkdirSync, writeFileSync } from 'node:fs';
import Papa from 'papaparse';
import path from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPROVAL_STATES, batchItemStateSchema, batchStateSchema, type TransactionSubject, type VerificationStateView } from '../../src/shared/contract';
import { PAYIN_STATUS_CATALOGUE, PAYOUT_STATUS_CATALOGUE } from '../../src/shared/spec/codes';
import { STATE_LABELS } from '../../src/renderer/features/approvals/approval-states';
import { categoryLabels } from '../../src/renderer/features/codes/category';
import { payoutTemplateCsv } from '../../src/renderer/features/payouts/csv';
import { LOCAL_TIME_FORMAT } from '../../src/renderer/features/transactions/format';
import { eventStatusLabel, statusBadgeLabel } from '../../src/renderer/features/transactions/status';
import { verificationLooks } from '../../src/renderer/features/transactions/verification';
import { OUTCOMES, outcomeLabel } from '../../src/renderer/features/webhooks/outcomes';
import { payinForm, payoutForm } from '../helpers/fixtures';
import { startSpecGateway, type SpecGateway } from '../helpers/spec-gateway';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database';
import { tempDir } from '../helpers/temp-dir';
import { makeTestCertificate, type TestCertificate } from '../helpers/test-tls';
import { lateEveningZone, launchBrowser, openApp, rpc, screenshotDir, startWebApp, type WebApp } from './harness';
import { seedLive, seedStatements, seedWorkday, type Seeded, type SeededLive, type SeededPayin } from './seed';
import { until } from '../helpers/poll';
import { prepareTeamServer, signInPage, startTeamServer, TEAM_PASSWORD, teamCall, teamToken, type TeamServerProcess } from './team-harness';

const VIEWPORTS = [
  { width: 1440, height: 900 },
  { width: 1280, height: 800 },
];

// ---- every value a badge can show ----------------------------------------------------------------

/** A status the catalogue does not know: shown as itself, marked unknown. */
const UNKNOWN_CODE = '9999';
const ATTEMPT_STATES = ['unknown', 'rejected', 'sending'] as const;

/** Every label of a transaction's status badge: each catalogue status, an unknown one, and each attempt state without a status. */
function statusLabels(subject: TransactionSubject): string[] {
  const catalogue = subject === 'payin' ? PAYIN_STATUS_CATALOGUE : PAYOUT_STATUS_CATALOGUE;
  return [...catalogue.map((entry) => statusBadgeLabel(subject, String(entry.code))), statusBadgeLabel(subject, UNKNOWN_CODE), ...ATTEMPT_STATES.map((state) => statusBadgeLabel(subject, null, state))];
}

const verificationLabels = (Object.keys(verificationLooks) as VerificationStateView[]).map((state) => verificationLooks[state].label);

/** Every label a notification's status can show: each event's codes, tokenization results, an event outside the spec. */
const eventStatusLabels = [
  ...PAYIN_STATUS_CATALOGUE.map((entry) => eventStatusLabel('v2_payin_notification', String(entry.code))),
  ...PAYOUT_STATUS_CATALOGUE.map((entry) => eventStatusLabel('v2_payout_notification', String(entry.code))),
  eventStatusLabel('v2_tokenization_notification', '200'),
  eventStatusLabel('v2_tokenization_notification', '302'),
  eventStatusLabel('v9_unheard_of', '200'),
];

// ---- what is cut ---------------------------------------------------------------------------------

/**
 * What in the element is cut at its edge: each element whose text overflows a box that hides it.
 * `titled`: what carries its full text as title (its own or a descendant's) is not counted; that is
 * allowed for long references and sentences only.
 */
async function cutIn(element: Locator, { titled }: { titled: boolean }): Promise<string[]> {
  return element.evaluate((root, allowTitles) => {
    const isCut = (el: Element) => el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible';
    const hasTitle = (el: Element) => (el.getAttribute('title') ?? '').includes((el.textContent ?? '').trim());
    const excused = (el: Element) => allowTitles && (hasTitle(el) || Array.from(el.querySelectorAll('[title]')).some(hasTitle));
    const cut = [root, ...Array.from(root.querySelectorAll('*'))].filter((el) => (el.textContent ?? '').trim() !== '' && isCut(el) && !excused(el));
    return cut.map((el) => `${el.tagName.toLowerCase()}.${el.className} "${el.textContent}" (${el.scrollWidth} px in ${el.clientWidth} px)`);
  }, titled);
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
 * The row's columns read whole and in view: those in `whole` with nothing cut at all, those in
 * `titled` (long references, sentences) cut only with their full text on hover. No header clashes
 * with another or is cut. Returns the cells by header.
 */
async function expectRowReadable(table: Locator, row: Locator, columns: { whole: string[]; titled?: string[] }): Promise<Record<string, Locator>> {
  const headers = await headersOf(table);
  expect(await headerClashes(table, row)).toEqual([]);
  for (const header of await table.getByRole('columnheader').all()) expect(await cutIn(header, { titled: false }), `header "${await header.textContent()}" is cut`).toEqual([]);
  const cells: Record<string, Locator> = {};
  for (const [header, titled] of [...columns.whole.map((h) => [h, false] as const), ...(columns.titled ?? []).map((h) => [h, true] as const)]) {
    expect(headers, `column ${header}`).toContain(header);
    const cell = column(row, header, headers);
    expect(await cutIn(cell, { titled }), `${header} "${await cell.textContent()}" is cut${titled ? ' without its full value on hover' : ''}`).toEqual([]);
    expect(await inView(cell), `${header} "${await cell.textContent()}" lies past the list's edge`).toBe(true);
    cells[header] = cell;
  }
  return cells;
}

/**
 * Every label in `labels`, put in turn into the badge where it stands (a real row's cell), and
 * measured there: the labels that would not read whole — cut by the badge, by a box around it, or
 * past its cell or the list's (or table's) edge. The badge's own text is put back after.
 */
async function labelsCut(badge: Locator, labels: string[]): Promise<string[]> {
  return badge.evaluate((element, all) => {
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    const text = walker.nextNode() as Text;
    const cell = element.closest('[role="cell"], [role="gridcell"], td') as HTMLElement;
    const table = element.closest('table');
    const frame = (element.closest('[role="rowgroup"]') ?? table?.parentElement ?? cell) as HTMLElement;
    const original = text.nodeValue;
    const cut: string[] = [];
    for (const label of all) {
      text.nodeValue = label;
      const box = element.getBoundingClientRect();
      const cellBox = cell.getBoundingClientRect();
      const frameBox = frame.getBoundingClientRect();
      let clipped = false;
      for (let el: Element | null = text.parentElement; el && el !== cell.parentElement; el = el.parentElement) {
        if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible') clipped = true;
      }
      const past = box.left < cellBox.left - 0.5 || box.right > cellBox.right + 0.5 || box.right > frameBox.right + 0.5 || (table !== null && table.getBoundingClientRect().right > frameBox.right + 0.5);
      if (clipped || past) cut.push(`"${label}" (${Math.round(box.width)} px, cell ${Math.round(cellBox.width)} px)`);
    }
    text.nodeValue = original;
    return cut;
  }, labels);
}

/** A table drawn by Mantine (auto layout): nothing in it is cut, and it does not reach past its container. */
async function tableProblems(table: Locator): Promise<string[]> {
  const cut = await cutIn(table, { titled: false });
  const overflow = await table.evaluate((element) => {
    const box = element.getBoundingClientRect();
    const container = (element.parentElement as HTMLElement).getBoundingClientRect();
    return box.right > container.right + 0.5 ? [`the table (${Math.round(box.width)} px) reaches past its container (${Math.round(container.width)} px)`] : [];
  });
  return [...cut, ...overflow];
}

async function noSidewaysScroll(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
}

async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(screenshotDir, { recursive: true });
  await page.screenshot({ path: path.join(screenshotDir, `readable-${name}.png`) });
}

// ---- a desk ----------------------------------------------------------------------------------------

describe('on a desk', () => {
  let app: WebApp;
  let browser: Browser;
  let temp: { dir: string; cleanup: () => void };
  let seeded: Seeded;
  let live: SeededLive;
  let lostPayinId: number;
  let hugePayinId: number;
  let cert: TestCertificate;
  let gateway: SpecGateway;

  beforeAll(async () => {
    temp = tempDir('paydesk-e2e-readable-');
    cert = makeTestCertificate();
    gateway = await startSpecGateway({ tls: cert });
    app = await startWebApp(path.join(temp.dir, 'data'), [], { NODE_EXTRA_CA_CERTS: cert.certFile });
    browser = await launchBrowser();
    seeded = await seedWorkday(app);
    // A payout whose create got no answer ("outcome unknown") and a batch whose one item's outcome is unknown.
    live = await seedLive(app, gateway);
    // A pay-in whose create got no answer, and whose status reads are refused for the while the test runs.
    gateway.readFaults.push(...Array.from({ length: 20 }, () => ({ type: 'busy' as const, status: 503 as const, retryAfter: 'seconds' as const, seconds: 600 })));
    const form = { ...payinForm('open_banking', { requestId: `lost-${seeded.tag}` }), profileId: live.profileId };
    const lost = await rpc<{ outcome: string; payin: { id: number } }>(app, 'payins:create', form);
    expect(lost.outcome).toBe('unknown');
    lostPayinId = lost.payin.id;
    // The largest amount a pay-in may have: 15 integer digits and, in crypto, 10 decimals.
    const huge = await rpc<{ outcome: string; payin: { id: number } }>(app, 'payins:create', { ...payinForm('crypto', { requestId: `huge-${seeded.tag}`, amount: '123456789012345.0123456789' }), currency: 'USD' });
    expect(huge.outcome).toBe('succeeded');
    hugePayinId = huge.payin.id;
    await seedStatements(app, path.join(temp.dir, 'settlement.csv'));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
    await gateway?.close();
    cert?.cleanup();
    temp?.cleanup();
  });

  describe.each(VIEWPORTS)('at $width×$height', (viewport) => {
    let page: Page;
    beforeAll(async () => {
      // Times at their widest (a two-digit hour), whenever the test runs.
      page = await openApp(browser, app, { timezoneId: lateEveningZone() });
      await page.setViewportSize(viewport);
    });
    afterAll(() => page?.close());
    const go = (hash: string) => page.goto(`${app.origin}/?token=${app.token}#/${hash}`);
    const name = (what: string) => `${what}-${viewport.width}`;

    it('the pay-ins list shows every value of its longest row whole: request_id, e-mail, time, amount, method, status, verification', async () => {
      await go('payins');
      const table = page.getByRole('table', { name: 'Pay-ins' });
      const row = table.locator(`[data-row-key="${seeded.long.id}"]`);
      await row.waitFor();
      const cells = await expectRowReadable(table, row, { whole: ['Created', 'request_id / e-mail', 'Amount / method', 'Status / verification'] });
      expect(await cells['Amount / method']?.getByText('12,345.0123456789 USD', { exact: true }).count()).toBe(1);
      expect(await cells['Amount / method']?.getByText('Crypto', { exact: true }).count()).toBe(1);
      const reference = cells['request_id / e-mail'] as Locator;
      expect(await reference.getByText(seeded.long.requestId, { exact: true }).count()).toBe(1);
      expect(await reference.getByText(`cy-${seeded.tag}+s200@example.com`, { exact: true }).count()).toBe(1);
      expect(await reference.getByRole('button', { name: `Copy request_id ${seeded.long.requestId}` }).count()).toBe(1);
      // The time is the user's locale's, with the same moment in UTC on hover.
      const time = (cells.Created as Locator).locator('time');
      expect(await time.getAttribute('title')).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);
      const local = await time.evaluate((el, format) => new Intl.DateTimeFormat(undefined, format).format(new Date(el.getAttribute('datetime') ?? '')), LOCAL_TIME_FORMAT);
      expect(await time.textContent()).toBe(local);
      // Amounts: right-aligned, tabular figures.
      const amount = cells['Amount / method'] as Locator;
      expect(await amount.evaluate((el) => getComputedStyle(el).textAlign)).toBe('right');
      expect(await amount.getByText('12,345.0123456789 USD').evaluate((el) => getComputedStyle(el).fontVariantNumeric)).toContain('tabular-nums');
      await shot(page, name('payins'));
    });

    it('an amount longer than its column was sized for is cut at its end with its full value on hover', async () => {
      await go('payins');
      const table = page.getByRole('table', { name: 'Pay-ins' });
      const row = table.locator(`[data-row-key="${hugePayinId}"]`);
      await row.waitFor();
      const cells = await expectRowReadable(table, row, { whole: ['Created', 'request_id / e-mail', 'Status / verification'], titled: ['Amount / method'] });
      expect(await cells['Amount / method']?.locator('[title]').first().getAttribute('title')).toBe('123,456,789,012,345.0123456789 USD');
    });

    it('the pay-ins list shows each status and verification whole, seeded and every label the badges can show', async () => {
      // A claim the gateway does not confirm stays "notified, unverified" for its rechecks (minutes).
      const claimed = (await rpc<{ payin: SeededPayin }>(app, 'payins:create', payinForm('open_banking', { requestId: `claimed-${viewport.width}-${seeded.tag}` }))).payin;
      const local = (await rpc<{ environment: string; notificationUrl: string }[]>(app, 'profiles:list')).find((p) => p.environment === 'local');
      const claim = { event: 'v2_payin_notification', status_code: 200, request_id: claimed.requestId, payin_id: claimed.payinId };
      expect((await fetch(local?.notificationUrl ?? '', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(claim) })).status).toBe(200);
      await until(async () => (await rpc<{ payin: { verification: string } }>(app, 'payins:get', { id: claimed.id })).payin.verification === 'claimed', 'the unconfirmed claim', 15_000);
      await go('payins');
      const table = page.getByRole('table', { name: 'Pay-ins' });
      const shown: string[] = [];
      for (const payin of [seeded.pending, claimed, seeded.mismatch]) {
        const row = table.locator(`[data-row-key="${payin.id}"]`);
        await row.waitFor();
        const cells = await expectRowReadable(table, row, { whole: ['Created', 'request_id / e-mail', 'Amount / method', 'Status / verification'] });
        shown.push((await cells['Status / verification']?.locator('[data-verification]').textContent()) ?? '');
      }
      expect(shown).toEqual(['awaiting result', 'notified, unverified', 'mismatch']);
      // A pay-in whose create got no answer (once "OUTCOME UNK…" at 1440 px).
      const lost = table.locator(`[data-row-key="${lostPayinId}"]`);
      await lost.waitFor();
      const lostCells = await expectRowReadable(table, lost, { whole: ['Created', 'request_id / e-mail', 'Amount / method', 'Status / verification'] });
      expect(await lostCells['Status / verification']?.locator('[data-status]').textContent()).toBe('outcome unknown');
      const row = table.locator(`[data-row-key="${seeded.pending.id}"]`);
      expect(await labelsCut(row.locator('[data-status]'), statusLabels('payin'))).toEqual([]);
      expect(await labelsCut(row.locator('[data-verification]'), verificationLabels)).toEqual([]);
    });

    it('the payouts list reads whole, with a payout whose outcome is unknown, and every label its badges can show', async () => {
      await go('payouts');
      const table = page.getByRole('table', { name: 'Payouts' });
      for (const id of [seeded.payout.id, live.lostPayoutId]) {
        const row = table.locator(`[data-row-key="${id}"]`);
        await row.waitFor();
        await expectRowReadable(table, row, { whole: ['Created', 'merchantReference / e-mail', 'Amount / method', 'Status / verification'] });
      }
      const lost = table.locator(`[data-row-key="${live.lostPayoutId}"]`);
      expect(await lost.locator('[data-status]').textContent()).toBe('outcome unknown');
      expect(await labelsCut(lost.locator('[data-status]'), statusLabels('payout'))).toEqual([]);
      expect(await labelsCut(lost.locator('[data-verification]'), verificationLabels)).toEqual([]);
      await shot(page, name('payouts'));
    });

    it('the exception lists read whole, and their status and verification badges show every label whole', async () => {
      await go('reconciliation');
      await page.getByRole('tab', { name: /Status mismatch/ }).click();
      const table = page.getByRole('table', { name: 'Status mismatch' });
      const row = table.getByRole('row').filter({ hasText: seeded.mismatch.requestId });
      await row.waitFor();
      const cells = await expectRowReadable(table, row, { whole: ['When', 'Amount / method', 'Ledger status / verification', 'Notified / read'], titled: ['Transaction / detail'] });
      // The transaction itself reads whole; only its detail (a sentence) may be cut, whole on hover.
      expect(await cutIn(row.getByRole('button', { name: `Copy reference ${seeded.mismatch.requestId}` }).locator('xpath=../..'), { titled: false })).toEqual([]);
      expect(await cells['Amount / method']?.getByText('Open banking', { exact: true }).count()).toBe(1);
      expect(await labelsCut(row.locator('[data-status]'), [...statusLabels('payin'), ...statusLabels('payout')])).toEqual([]);
      expect(await labelsCut(row.locator('[data-verification]'), verificationLabels)).toEqual([]);
      await table.screenshot({ path: path.join(screenshotDir, `readable-exceptions-${viewport.width}.png`) });

      // The lost payout, on the list of create calls whose answer never came.
      await page.getByRole('tab', { name: /Unknown outcomes/ }).click();
      const unknown = page.getByRole('table', { name: 'Unknown outcomes' });
      const lost = unknown.locator('[data-row-key]').filter({ has: page.locator('[data-status="none"]') }).first();
      await lost.waitFor();
      await expectRowReadable(unknown, lost, { whole: ['When', 'Amount / method', 'Ledger status / verification', 'Notified / read'], titled: ['Transaction / detail'] });
    });

    it('statements read whole: a break queue\'s row, every count badge, the settlements, the days and the imports with every state', async () => {
      await go('reconciliation/statements');
      await expect.poll(() => page.getByTestId('break-count-settled_twice').textContent()).not.toBe('…');
      // Each queue's tab and count read whole, the count at seven digits too.
      for (const tab of await page.getByRole('tablist', { name: 'Break queues' }).getByRole('tab').all()) {
        await tab.locator('[data-testid^="break-count-"]').evaluate((badge) => (badge.querySelector('.mantine-Badge-label') ?? badge).replaceChildren('1,234,567'));
        expect(await cutIn(tab, { titled: false }), `tab "${await tab.textContent()}"`).toEqual([]);
      }
      await page.reload();
      await expect.poll(() => page.getByTestId('break-count-settled_twice').textContent()).not.toBe('…');
      await page.getByRole('tab', { name: /^Settled twice/ }).click();
      const table = page.getByRole('table', { name: 'Settled twice' });
      const row = table.locator('[data-row-key]').first();
      await row.waitFor();
      await expectRowReadable(table, row, { whole: ['Date', 'Statement / ledger', 'Method / settlement'], titled: ['What / why'] });
      for (const name of ['Settlements', 'Succeeded against settled per day, currency and method', 'Recent imports']) {
        expect(await tableProblems(page.getByRole('table', { name })), name).toEqual([]);
      }
      expect(await labelsCut(page.getByRole('table', { name: 'Recent imports' }).locator('.mantine-Badge-root').first(), ['running', 'imported', 'refused'])).toEqual([]);
      expect(await noSidewaysScroll(page)).toBe(true);
      await shot(page, name('statements'));
    });

    it('the totals read whole, by day and by status, with every status label whole', async () => {
      await go('reconciliation');
      const byDay = page.getByRole('table', { name: 'Totals by day' });
      const dayRow = byDay.locator('[data-row-key]').first();
      await dayRow.waitFor();
      await expectRowReadable(byDay, dayRow, { whole: await headersOf(byDay) });
      await page.locator('.mantine-SegmentedControl-root').getByText('By status', { exact: true }).click();
      const byStatus = page.getByRole('table', { name: 'Totals by status' });
      const statusRow = byStatus.locator('[data-row-key]').filter({ has: page.locator('[data-status]') }).first();
      await statusRow.waitFor();
      await expectRowReadable(byStatus, statusRow, { whole: await headersOf(byStatus) });
      expect(await labelsCut(statusRow.locator('[data-status]'), [...statusLabels('payin'), ...statusLabels('payout')])).toEqual([]);
    });

    it("a batch's items read whole, in view without scrolling sideways, with every item state and payout status whole", async () => {
      const file = path.join(temp.dir, `batch-${viewport.width}.csv`);
      // Amounts of this viewport's own (128.01, 128.02… at 1280), so no row repeats a payout an
      // earlier upload or the seeded workday made: a possible duplicate waits for its confirmation.
      const [header = [], ...rows] = Papa.parse<string[]>(payoutTemplateCsv().trim()).data;
      const amount = header.indexOf('amount');
      writeFileSync(file, Papa.unparse([header, ...rows.map((row, i) => row.map((cell, c) => (c === amount ? `${viewport.width / 10}.${String(i + 1).padStart(2, '0')}` : cell)))], { newline: '\n' }));
      await go('payouts?tab=batch');
      await page.locator('input[type="file"]').setInputFiles(file);
      await page.getByRole('button', { name: 'Check the rows' }).click();
      await page.getByRole('button', { name: /^Start batch of \d+$/ }).click();
      const table = page.getByRole('table', { name: 'Batch items' });
      const row = table.locator('[data-row-key]').first();
      await row.waitFor({ timeout: 15_000 });
      await page.getByTestId('batch-progress').getByTestId('batch-state').filter({ hasText: 'done' }).waitFor({ timeout: 15_000 });
      const time = row.locator('time');
      expect(await time.getAttribute('title')).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);
      // The row may still take a last live update (its time moves on): one settled reading.
      const whole = ['Line', 'State / payout status', 'Updated', 'Amount / method'];
      const titled = ['merchantReference / beneficiary', 'Destination / why'];
      await expect.poll(async () => (await (await expectRowReadable(table, row, { whole, titled })).Updated?.textContent()) === (await time.textContent()), { timeout: 10_000 }).toBe(true);
      expect(await table.evaluate((el) => { const scroller = el.querySelectorAll('[role="rowgroup"]')[1] as HTMLElement; return scroller.scrollWidth <= scroller.clientWidth; })).toBe(true);
      expect(await labelsCut(row.locator('[data-item-state]'), [...batchItemStateSchema.options])).toEqual([]);
      expect(await labelsCut(row.locator('[data-status]'), statusLabels('payout'))).toEqual([]);
      await table.screenshot({ path: path.join(screenshotDir, `readable-batch-items-${viewport.width}.png`) });

      // The live batch whose one payout's outcome is unknown.
      await go(`payouts?tab=batch&batch=${live.openBatchId}`);
      const open = page.getByRole('table', { name: 'Batch items' }).locator('[data-row-key]').first();
      await open.locator('[data-item-state="unknown"]').waitFor();
      await expectRowReadable(page.getByRole('table', { name: 'Batch items' }), open, { whole, titled });
    });

    it('the recent batches read whole, with every environment and state', async () => {
      await go('payouts?tab=batch');
      const table = page.getByRole('table', { name: 'Recent batches' });
      const row = table.locator('tbody tr').filter({ hasText: 'live-payouts.csv' });
      await row.waitFor();
      expect(await tableProblems(table)).toEqual([]);
      expect(await noSidewaysScroll(page)).toBe(true);
      expect(await labelsCut(row.locator('.mantine-Badge-root'), ['local', 'sandbox', 'LIVE'])).toEqual([]);
      expect(await labelsCut(row.getByText('done', { exact: true }), [...batchStateSchema.options])).toEqual([]);
    });

    it("the webhook inspector's list reads whole, alone and beside a notification, with every status and outcome whole", async () => {
      await go('webhooks');
      const table = page.getByRole('table', { name: 'Notifications' });
      const row = table.locator(`[data-row-key="${seeded.orphanNotificationId}"]`);
      await row.waitFor();
      const columns = { whole: ['Received / answered', 'Status / outcome'], titled: ['Reference / event'] };
      await expectRowReadable(table, row, columns);
      // A short reference reads whole, and so does the event.
      expect(await cutIn(column(row, 'Reference / event', await headersOf(table)), { titled: false })).toEqual([]);
      await row.click();
      await page.getByTestId('notification-detail').waitFor();
      for (const key of await table.locator('[data-row-key]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-row-key')))) {
        await expectRowReadable(table, table.locator(`[data-row-key="${key}"]`), columns);
      }
      expect(await cutIn(column(row, 'Reference / event', await headersOf(table)), { titled: false })).toEqual([]);
      expect(await labelsCut(row.locator('[data-status]'), eventStatusLabels)).toEqual([]);
      expect(await labelsCut(row.locator('[data-outcome]'), OUTCOMES.map(outcomeLabel))).toEqual([]);
      expect(await cutIn(page.getByTestId('notification-detail'), { titled: true })).toEqual([]);
      await shot(page, name('webhooks-detail'));
    });

    it('the code explorer reads whole: every category badge and every header', async () => {
      await go('codes');
      const table = page.getByRole('table', { name: 'Codes' });
      await table.locator('tbody tr').first().waitFor();
      expect(await tableProblems(table)).toEqual([]);
      expect(await noSidewaysScroll(page)).toBe(true);
      expect(await labelsCut(table.locator('tbody tr').first().locator('.mantine-Badge-root'), Object.values(categoryLabels))).toEqual([]);
    });

    it('search results show the whole request_id, time, amount, status and kind', async () => {
      await go('payins');
      await page.getByRole('table', { name: 'Pay-ins' }).locator('[data-row-key]').first().waitFor();
      await page.keyboard.press('Control+k');
      const box = page.getByRole('combobox', { name: 'Reference or e-mail' });
      await box.fill(seeded.long.requestId);
      const option = page.getByRole('grid', { name: 'Matches' }).getByRole('row').first();
      await option.waitFor();
      expect(await cutIn(option, { titled: false })).toEqual([]);
      expect(await option.getByTestId('search-reference').textContent()).toBe(seeded.long.requestId);
      expect(await option.getByText('12,345.0123456789 USD').count()).toBe(1);
      expect(await option.getByRole('button', { name: `Copy request_id ${seeded.long.requestId}`, exact: true }).count()).toBe(1);
      const kind = option.locator('.mantine-Badge-root').first();
      expect(await kind.textContent()).toBe('Pay-in');
      expect(await labelsCut(kind, ['Pay-in', 'Payout', 'Orphan notification'])).toEqual([]);
      expect(await labelsCut(option.locator('[data-status]'), [...statusLabels('payin'), ...statusLabels('payout')])).toEqual([]);
      // A notification about a pay-in the ledger does not hold.
      await box.fill(`ghost-req-${seeded.tag}`);
      await page.getByRole('grid', { name: 'Matches' }).getByText('Orphan notification').waitFor();
      expect(await cutIn(page.getByRole('grid', { name: 'Matches' }).getByRole('row').first(), { titled: false })).toEqual([]);
      await shot(page, name('search'));
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'detached' });
    });
  });
});

// ---- a team server -------------------------------------------------------------------------------

describe('on a team server', () => {
  let database: TestDatabase;
  let server: TeamServerProcess;
  let browser: Browser;
  let temp: ReturnType<typeof tempDir>;
  let seq = 0;

  beforeAll(async () => {
    temp = tempDir('paydesk-e2e-readable-team-');
    database = await createTestDatabase();
    mkdirSync(path.join(temp.dir, 'server'), { recursive: true });
    server = await startTeamServer(await prepareTeamServer(database.url, path.join(temp.dir, 'server'), path.join(temp.dir, 'envelope.key')));
    browser = await launchBrowser();
    const admin = await teamToken(server.origin, 'alice');
    await teamCall(server.origin, admin, 'team:create-user', { username: 'fran', displayName: 'Fran Finance', role: 'finance', password: TEAM_PASSWORD });
    await teamCall(server.origin, admin, 'team:create-user', { username: 'erin', displayName: 'Erin Approver', role: 'approver', password: TEAM_PASSWORD });
    const profiles = await teamCall<{ id: string; environment: string }[]>(server.origin, admin, 'profiles:list');
    const localId = profiles.find((p) => p.environment === 'local')?.id ?? '';
    await teamCall(server.origin, admin, 'approvals:set-policy', { environment: 'local', currency: 'EUR', mode: 'threshold', payoutAbove: '100', batchAbove: null });
    // Fran submits three payouts above the policy: one waits, Erin rejects one, Fran withdraws one.
    const fran = await teamToken(server.origin, 'fran');
    const submit = async () => {
      const form = payoutForm('open_banking', { amount: '150.00', reference: `readable-${++seq}-${Date.now()}`, profileId: localId });
      const review = await teamCall<{ reviewId: string }>(server.origin, fran, 'payouts:review', form);
      return teamCall<{ id: number }>(server.origin, fran, 'approvals:request-payout', { ...form, reviewId: review.reviewId, confirmed: true });
    };
    await submit();
    const rejected = await submit();
    const withdrawn = await submit();
    await teamCall(server.origin, await teamToken(server.origin, 'erin'), 'approvals:reject', { id: rejected.id, reason: 'Beneficiary not on file' });
    await teamCall(server.origin, fran, 'approvals:withdraw', { id: withdrawn.id });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await database?.drop();
    temp?.cleanup();
  });

  describe.each(VIEWPORTS)('at $width×$height', (viewport) => {
    it('the approvals read whole: each state, seeded and every label the badge can show', async () => {
      const fran = await signInPage(browser, server.origin, 'fran');
      await fran.setViewportSize(viewport);
      await fran.getByRole('navigation').getByRole('link', { name: 'Approvals' }).click();
      await fran.locator('.mantine-SegmentedControl-root').getByText('Submitted by me', { exact: true }).click();
      const table = fran.getByRole('table', { name: 'Approvals' });
      await expect.poll(() => table.locator('[data-approval-id]').count()).toBe(3);
      expect(new Set(await table.locator('[data-approval-id]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-state'))))).toEqual(new Set(['awaiting', 'rejected', 'withdrawn']));
      expect(await tableProblems(table)).toEqual([]);
      expect(await noSidewaysScroll(fran)).toBe(true);
      const labels = APPROVAL_STATES.map((state) => STATE_LABELS[state].label);
      expect(await labelsCut(table.locator('[data-state="awaiting"] .mantine-Badge-root'), labels)).toEqual([]);
      await shot(fran, `approvals-${viewport.width}`);
      await fran.context().close();
    });

    it("the team's people and sessions read whole in Settings", async () => {
      const alice = await signInPage(browser, server.origin, 'alice');
      await alice.setViewportSize(viewport);
      await alice.getByRole('navigation').getByRole('link', { name: 'Settings' }).click();
      const team = alice.getByTestId('team');
      await expect.poll(() => team.getByTestId('team-people').locator('[data-username]').count()).toBe(3);
      await team.getByTestId('team-sessions').locator('[data-session]').first().waitFor();
      for (const table of [team.getByTestId('team-people'), team.getByTestId('team-sessions')]) expect(await tableProblems(table)).toEqual([]);
      expect(await noSidewaysScroll(alice)).toBe(true);
      await team.screenshot({ path: path.join(screenshotDir, `readable-team-${viewport.width}.png`) });
      await alice.context().close();
    });
  });
});
