/// <reference lib="dom" />
// Statements end to end on both engines: a desk in web mode (SQLite) and the built team server
// (PostgreSQL). Pay-ins succeed in the emulator; the emulator settles the day with every knob on
// (a pay-in left out, an amount altered, a pay-in nobody created, one settled twice, a credit that
// differs, a bank credit of no settlement), and one pay-in succeeds there while the ledger never
// hears of it. The test downloads both files from the emulator; finance imports them in the
// browser with the mapping step (the settlement report in CSV, the EUR account's camt.053), and
// each break queue counts exactly what the knobs did; a row opens its pay-in; a queue's CSV is saved.
// The same two files imported again add nothing and say how many lines were already there.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payinForm } from '../helpers/fixtures';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database';
import { tempDir } from '../helpers/temp-dir';
import { waitFor } from '../helpers/poll';
import { downloaded, launchBrowser, openApp, rpc, screenshot, startWebApp, type WebApp } from './harness';
import { prepareTeamServer, signInPage, startTeamServer, teamCall, teamToken, type TeamServerProcess } from './team-harness';

type Call = <T = unknown>(channel: string, input?: unknown) => Promise<T>;

let browser: Browser;
let temp: ReturnType<typeof tempDir>;

beforeAll(async () => {
  temp = tempDir('paydesk-e2e-statements-');
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  temp?.cleanup();
});

interface Payin {
  id: number;
  payinId: string | null;
  requestId: string;
  statusCode: string | null;
}

async function admin<T = Record<string, unknown>>(adminUrl: string, pathname: string, body?: unknown, method = body === undefined ? 'GET' : 'POST'): Promise<T> {
  const response = await fetch(`${adminUrl}${pathname}`, { method, headers: { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  if (!response.ok) throw new Error(`${pathname}: ${response.status} ${await response.text()}`);
  return (response.headers.get('content-type') ?? '').includes('json') ? ((await response.json()) as T) : ((await response.text()) as T);
}

/** The day the knobs act on: what each did, and the two files (the EUR account's statement only: the JPY settlement waits for its credit). */
async function settleTheDay(call: Call, tag: string): Promise<{ adminUrl: string; report: string; camt: string; applied: Record<string, unknown>[]; payins: Payin[]; unheard: Payin }> {
  const profiles = await call<{ environment: string; baseUrl: string }[]>('profiles:list');
  const adminUrl = profiles.find((p) => p.environment === 'local')!.baseUrl.replace(/\/api\/v2$/, '/_emulator');
  const succeeded = async (amount: string, currency: string, i: number) => {
    const created = await call<{ payin: Payin }>('payins:create', { ...payinForm('open_banking', { amount, requestId: `${tag}-${i}`, email: `st-${tag}-${i}+s200@example.com` }), currency });
    return (await waitFor(() => call<{ payin: Payin }>('payins:get', { id: created.payin.id }), (p) => p.payin.statusCode === '200', `pay-in ${i} to succeed`, 15_000)).payin;
  };
  const payins = [await succeeded('10.00', 'EUR', 1), await succeeded('20.50', 'EUR', 2), await succeeded('30.25', 'EUR', 3), await succeeded('40.00', 'EUR', 4), await succeeded('2000', 'JPY', 5)];
  // A pay-in that succeeds at the gateway while every notification of it is dropped: the ledger still says 100.
  const pending = await call<{ payin: Payin }>('payins:create', { ...payinForm('open_banking', { amount: '7.00', requestId: `${tag}-6`, email: `st-${tag}-6+s100@example.com` }), currency: 'EUR' });
  await admin(adminUrl, '/faults', { notifications: { fail_next: 100, fail_mode: 'drop' } }, 'PUT');
  await admin(adminUrl, `/payins/${pending.payin.payinId}/complete`, { status_code: 200 });
  const [, altered, twice, omitted] = payins.map((p) => p.payinId);
  await admin(adminUrl, '/settlement-faults', {
    omit_payin: { payin_ids: [omitted] },
    alter_amount: { payin_ids: [altered], delta: '1.00' },
    settle_twice: { payin_ids: [twice] },
    unknown_payin: { next: 1, amount: '5.00' },
    credit_differs: { next: 1, delta: '-1.50' },
    orphan_bank_line: { next: 1, amount: '50.00' },
  }, 'PUT');
  await admin(adminUrl, '/settlements/run', {});
  const applied = (await admin<{ applied: Record<string, unknown>[] }>(adminUrl, '/settlement-faults')).applied;
  const report = await admin<string>(adminUrl, '/reports/settlement.csv');
  const camt = await admin<string>(adminUrl, '/reports/bank-statement.xml?currency=EUR');
  return { adminUrl, report, camt, applied, payins, unheard: pending.payin };
}

/** Picks a file in the import card as a person does, maps it (source named) and imports it; the answer's text. */
async function importFile(page: Page, kind: 'Settlement report' | 'Bank statement', name: string, text: string, source: string, expectMapping: boolean): Promise<string> {
  const card = page.getByTestId('statement-import');
  await card.getByText(kind, { exact: true }).click();
  await card.locator('input[type=file]').setInputFiles({ name, mimeType: name.endsWith('.xml') ? 'application/xml' : 'text/csv', buffer: Buffer.from(text, 'utf8') });
  const sourceField = card.getByLabel('Source', { exact: true });
  await sourceField.waitFor().catch(async (error: unknown) => {
    await screenshot(page, `statements-import-failed-${name}`);
    throw error;
  });
  if (expectMapping) await expect.poll(() => card.getByRole('table', { name: 'Column mapping' }).isVisible()).toBe(true);
  await sourceField.fill(source);
  await card.getByRole('button', { name: 'Import', exact: true }).click();
  const done = card.getByTestId('import-done');
  await done.waitFor({ timeout: 30_000 });
  return (await done.textContent()) ?? '';
}

const count = (page: Page, queue: string) => page.getByTestId(`break-count-${queue}`).textContent();

/** The journey, the same on both engines: import, every queue checked against the knobs, a row opened, a CSV saved, both files again. */
async function journey(page: Page, call: Call, label: string, tag: string): Promise<void> {
  const day = await settleTheDay(call, tag);
  const reportLines = day.report.trim().split('\r\n').length - 1;

  await page.goto(`${new URL(page.url()).origin}${new URL(page.url()).pathname}${new URL(page.url()).search}#/reconciliation/statements`);
  await page.getByRole('tab', { name: 'Statements' }).waitFor();
  const days = page.getByRole('textbox', { name: 'Not settled after (days)' });
  await days.fill('0');

  const first = await importFile(page, 'Settlement report', 'settlement.csv', day.report, 'Emulator', true);
  expect(first).toContain(`${reportLines} lines in the file: ${reportLines} added, 0 already there`);
  await screenshot(page, `statements-imported-${label}`);
  const second = await importFile(page, 'Bank statement', 'statement-eur.xml', day.camt, 'Emulator Demo Bank', false);
  expect(second).toContain('2 lines in the file: 2 added, 0 already there');
  expect(second).toContain('1 bank line matched to settlements by reference');

  // Each queue holds exactly what a knob (or the notification never heard) did.
  const expected = { unsettled: '1', not_successful: '1', amount_differs: '1', unknown_to_ledger: '1', settled_twice: '1', no_bank_credit: '1', credit_without_settlement: '1', credit_differs: '1' };
  for (const [queue, n] of Object.entries(expected)) await expect.poll(() => count(page, queue), { message: queue }).toBe(n);
  await screenshot(page, `statements-breaks-${label}`);

  const queues = page.getByRole('tablist', { name: 'Break queues' });
  /** Opens a queue's tab and waits for its rows to show `expected`; the list. */
  const rowsOf = async (tab: string, expected: string) => {
    await queues.getByRole('tab', { name: new RegExp(`^${tab}`) }).click();
    const table = page.getByRole('table', { name: tab, exact: true });
    await expect.poll(() => table.textContent(), { message: tab }).toContain(expected);
    return table;
  };
  const altered = day.applied.find((a) => a.fault === 'alter_amount')!;
  const unknown = day.applied.find((a) => a.fault === 'unknown_payin')!;
  const differs = day.applied.find((a) => a.fault === 'credit_differs')!;
  const orphan = day.applied.find((a) => a.fault === 'orphan_bank_line')!;
  await rowsOf('Amount differs', String(altered.to));
  await rowsOf('Unknown to the ledger', String(unknown.request_id));
  await rowsOf('Settled, not successful', day.unheard.requestId);
  await rowsOf('Credit differs', String(differs.credited));
  await rowsOf('Credit, no settlement', String(orphan.entry_ref));
  const twice = await rowsOf('Settled twice', day.payins[2]!.requestId);
  // The queue's CSV: every row, formula-safe.
  const { text } = await downloaded(page, () => page.getByRole('button', { name: 'Export CSV' }).click());
  expect(text.split('\r\n')[0]).toMatch(/^queue,profile_id,subject,row_id,settlement_id/);
  expect(text).toContain('settled_twice');
  // Its toast counts in words: "1 row saved", never "1 rows".
  await expect.poll(() => page.getByText(/^paydesk-statements-settled-twice-[\d-]+\.csv: 1 row saved\.$/).count()).toBe(1);
  // A row opens its pay-in.
  await twice.getByRole('row').nth(1).dblclick();
  await expect.poll(() => page.url()).toContain(`#/payins/${day.payins[2]!.id}`);

  // Both files again: nothing doubled, and the answer says how many lines were already there.
  await page.goBack();
  await page.getByRole('tab', { name: 'Statements' }).waitFor();
  await days.fill('0');
  expect(await importFile(page, 'Settlement report', 'settlement-again.csv', day.report, 'Emulator', true)).toContain(`${reportLines} lines in the file: 0 added, ${reportLines} already there`);
  expect(await importFile(page, 'Bank statement', 'statement-again.xml', day.camt, 'Emulator Demo Bank', false)).toContain('2 lines in the file: 0 added, 2 already there');
  for (const [queue, n] of Object.entries(expected)) await expect.poll(() => count(page, queue), { message: `${queue} after importing again` }).toBe(n);
  const settlements = await call<{ items: { lines: number; gross: string }[] }>('statements:settlements', {});
  expect(settlements.items.reduce((sum, s) => sum + s.lines, 0)).toBe(reportLines);
  await admin(day.adminUrl, '/faults', undefined, 'DELETE');
}

describe('statements, end to end', () => {
  it('on a desk (SQLite, web mode): every knob lands in its queue, and the same files again add nothing', async () => {
    const dataDir = path.join(temp.dir, 'desk');
    const app: WebApp = await startWebApp(dataDir);
    try {
      const page = await openApp(browser, app, { live: true });
      await page.setViewportSize({ width: 1440, height: 900 });
      await journey(page, (channel, input) => rpc(app, channel, input), 'desk', 'desk');
      // A file whose dates read day-first and month-first alike: the mapping step says so at its date format.
      const card = page.getByTestId('statement-import');
      await card.getByText('Settlement report', { exact: true }).click();
      await card.locator('input[type=file]').setInputFiles({ name: 'ambiguous.csv', mimeType: 'text/csv', buffer: Buffer.from('payin_id,currency,amount,booking_date\r\nx-1,EUR,1.00,05/04/2026\r\nx-2,EUR,2.00,07/04/2026\r\n') });
      const format = card.getByLabel('Dates', { exact: true });
      await expect.poll(() => format.inputValue()).toBe('31/05/2024');
      await expect.poll(() => card.getByText(/read just as well written/).textContent()).toBe('These dates read just as well written 05/31/2024: check whether the day or the month comes first');
      await screenshot(page, 'statements-ambiguous-dates');
    } finally {
      expect(await app.stop()).toBe(0);
    }
  }, 180_000);

  it('on a team server (PostgreSQL): the same journey in the browser', async () => {
    let database: TestDatabase | undefined;
    let server: TeamServerProcess | undefined;
    try {
      database = await createTestDatabase();
      mkdirSync(path.join(temp.dir, 'server'), { recursive: true });
      const setup = await prepareTeamServer(database.url, path.join(temp.dir, 'server'), path.join(temp.dir, 'envelope.key'));
      server = await startTeamServer(setup);
      const token = await teamToken(server.origin, 'alice');
      const page = await signInPage(browser, server.origin, 'alice');
      await journey(page, (channel, input) => teamCall(server!.origin, token, channel, input), 'team', 'team');
    } finally {
      expect(await server?.stop()).toBe(0);
      await database?.drop();
    }
  }, 240_000);
});
