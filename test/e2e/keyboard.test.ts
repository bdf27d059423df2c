/// <reference lib="dom" />
// The four main journeys with the keyboard alone (find a pay-in, issue and confirm a
// payout on the local emulator, start a batch, read a notification). Every element Tab lands on
// shows that it has the focus; a dialog gives the focus back where it was; a virtualised list keeps
// the focus while its rows scroll in and out.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Locator, Page, FileChooser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payoutTemplateCsv } from '../../src/renderer/features/payouts/csv';
import { payinForm } from '../helpers/fixtures';
import { tempDir } from '../helpers/temp-dir';
import { launchBrowser, openApp, rpc, startWebApp, type WebApp } from './harness';
import { seedWorkday, type Seeded } from './seed';

let app: WebApp;
let browser: Browser;
let page: Page;
let temp: { dir: string; cleanup: () => void };
let seeded: Seeded;

beforeAll(async () => {
  temp = tempDir('paydesk-e2e-keyboard-');
  app = await startWebApp(path.join(temp.dir, 'data'));
  browser = await launchBrowser();
  seeded = await seedWorkday(app);
  // Enough rows that the pay-ins list renders only some of them.
  const more = Array.from({ length: 80 }, (_, i) => payinForm('open_banking', { requestId: `kb-${i}-${seeded.tag}`, email: `kb-${seeded.tag}@example.com` }));
  for (let i = 0; i < more.length; i += 20) await Promise.all(more.slice(i, i + 20).map((form) => rpc(app, 'payins:create', form)));
  page = await openApp(browser, app);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  temp?.cleanup();
});

const go = async (hash: string) => {
  await page.goto(`${app.origin}/?token=${app.token}#/${hash}`);
  await page.getByRole('heading', { level: 2 }).first().waitFor();
};

/**
 * Whether the focused element shows it: an outline or a ring (box-shadow) on it, on its field's
 * frame (a select's inner input) or, for a visually hidden radio or switch input, on its label.
 */
function focusInPage(): { shown: boolean; what: string } {
  const element = document.activeElement as HTMLElement | null;
  // Past the last element the focus leaves the page for a moment (the browser's own controls).
  if (!element || element === document.body) return { shown: true, what: 'the page itself' };
  const ringed = (el: Element | null) => {
    if (el === null) return false;
    const style = getComputedStyle(el);
    return (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0) || style.boxShadow !== 'none';
  };
  const label = element.id ? document.querySelector(`label[for="${CSS.escape(element.id)}"]`) : null;
  const name = element.getAttribute('aria-label') ?? label?.textContent ?? element.textContent?.trim().slice(0, 40) ?? '';
  return { shown: ringed(element) || ringed(element.closest('.mantine-Input-input')) || ringed(label), what: `${element.tagName.toLowerCase()} "${name}"` };
}

const focusShown = () => page.evaluate(focusInPage);

/**
 * Presses Tab until `target` has the focus (at most `max` times), checking at every stop that the
 * focus is visible.
 */
async function tabTo(target: Locator, max = 80): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    // Waited for: a ring may ease in.
    const shown = await page.waitForFunction(`(${focusInPage.toString()})().shown`, undefined, { timeout: 2_000 }).then(
      () => true,
      () => false,
    );
    expect(shown, `focus not visible on ${(await focusShown()).what}`).toBe(true);
    if (await target.evaluate((element) => element === document.activeElement)) return;
  }
  throw new Error(`Tab did not reach ${target.toString()} within ${max} presses`);
}

async function typeInto(label: string, value: string): Promise<void> {
  await tabTo(page.getByRole('textbox', { name: label, exact: true }));
  await page.keyboard.type(value);
}

describe('with the keyboard alone', () => {
  it('finds a pay-in: Ctrl+K, its request_id, Enter; by e-mail, arrows and Enter; Escape gives the focus back', async () => {
    await go('payins');
    await page.keyboard.press('Control+k');
    const box = page.getByRole('combobox', { name: 'Reference or e-mail' });
    await expect.poll(() => box.evaluate((element) => element === document.activeElement)).toBe(true);
    await page.keyboard.type(seeded.mismatch.requestId);
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(`#/payins/${seeded.mismatch.id}$`));
    await page.getByTestId('transaction-detail').getByText(seeded.mismatch.requestId).first().waitFor();

    await page.keyboard.press('Control+k');
    await expect.poll(() => box.evaluate((element) => element === document.activeElement)).toBe(true);
    await page.keyboard.type(seeded.sharedEmail);
    const results = page.getByRole('grid', { name: 'Matches' }).getByRole('row');
    await expect.poll(() => results.count(), { timeout: 10_000 }).toBe(2);
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => results.nth(1).getByRole('gridcell').getAttribute('aria-selected')).toBe('true');
    const second = (await results.nth(1).getByTestId('search-reference').textContent()) ?? '';
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await page.getByTestId('transaction-detail').getByText(second).first().waitFor();

    // From the search button, by Tab and Enter; Escape closes and the focus is on the button again.
    const button = page.getByRole('button', { name: /^Search transactions/ });
    await tabTo(button);
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await expect.poll(() => button.evaluate((element) => element === document.activeElement)).toBe(true);

    // A fast hand: Escape before the dialog has moved the focus into its field. The focus still comes back.
    for (let i = 0; i < 5; i++) {
      await page.keyboard.press('Enter');
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'detached' });
      await expect.poll(() => button.evaluate((element) => element === document.activeElement)).toBe(true);
    }

    // Closed and opened again at once, during its exit and after it: the closing one's return does not
    // take the focus out of the new one, and the focus still comes back to the button after.
    for (const reopenAfterExit of [false, true]) {
      await page.keyboard.press('Enter');
      await page.getByRole('dialog').waitFor();
      await expect.poll(() => box.evaluate((element) => element === document.activeElement)).toBe(true);
      await page.keyboard.press('Escape');
      if (reopenAfterExit) await page.getByRole('dialog').waitFor({ state: 'detached' });
      await page.keyboard.press('Control+k');
      await expect.poll(() => box.evaluate((element) => element === document.activeElement)).toBe(true);
      await page.waitForTimeout(400); // past a closing dialog's exit (200 ms) and its return
      expect(await box.evaluate((element) => element === document.activeElement)).toBe(true);
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'detached' });
      await expect.poll(() => button.evaluate((element) => element === document.activeElement)).toBe(true);
    }
  });

  it("copies a search result's reference by Tab and Enter, which opens nothing; back in the field, the arrows and Enter open a result", async () => {
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.origin });
    await go('payins');
    await page.keyboard.press('Control+k');
    const box = page.getByRole('combobox', { name: 'Reference or e-mail' });
    await expect.poll(() => box.evaluate((element) => element === document.activeElement)).toBe(true);
    await page.keyboard.type(seeded.sharedEmail);
    const results = page.getByRole('grid', { name: 'Matches' }).getByRole('row');
    await expect.poll(() => results.count(), { timeout: 10_000 }).toBe(2);
    const references = await results.getByTestId('search-reference').allTextContents();

    // Every result has its copy button, named with its value; Tab reaches the first, Enter copies.
    for (const reference of references) expect(await page.getByRole('dialog').getByRole('button', { name: `Copy request_id ${reference}`, exact: true }).count()).toBe(1);
    const copy = results.first().getByRole('button', { name: `Copy request_id ${references[0]}`, exact: true });
    await tabTo(copy);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(references[0]);
    // Enter on the button copied and nothing else: the search is open, the page is the list, the focus stayed.
    expect(await page.getByRole('dialog').isVisible()).toBe(true);
    expect(new URL(page.url()).hash).toBe('#/payins');
    expect(await copy.evaluate((element) => element === document.activeElement)).toBe(true);

    // Back in the field (Tab goes round the dialog), the arrows still choose and Enter opens.
    await tabTo(box);
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => box.getAttribute('aria-activedescendant')).toBe(await results.nth(1).getByRole('gridcell').getAttribute('id'));
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await page.getByTestId('transaction-detail').getByText(references[1] ?? '').first().waitFor();
  });

  it('issues a payout and confirms it on its review, on the local emulator', async () => {
    await go('payouts?tab=new');
    // The method is a radio group: Tab into it, arrows to Faster Payments.
    const fps = page.getByRole('radio', { name: 'Faster Payments (UK)' });
    await tabTo(page.getByRole('main').getByRole('radio', { checked: true }));
    for (let i = 0; i < 8 && !(await fps.isChecked()); i++) await page.keyboard.press('ArrowRight');
    expect(await fps.isChecked()).toBe(true);
    const reference = `kb-payout-${seeded.tag}`;
    for (const [label, value] of Object.entries({ Amount: '12.34', Currency: 'GBP', Country: 'GBR', 'Merchant reference': reference, 'First name': 'Kay', 'Last name': 'Bord', 'E-mail': `kay-${seeded.tag}+sP200@example.com`, 'Sort code': '401276', 'Account number': '12345678', 'Account holder': 'Kay Bord' })) {
      await typeInto(label, value);
    }
    const reviewButton = page.getByRole('button', { name: 'Review payout' });
    await tabTo(reviewButton);
    await page.keyboard.press('Enter');
    const review = page.getByTestId('payout-review');
    await review.getByTestId('limit-check').waitFor();
    // Back to edit, and the focus is on the button that led to the review, not on the page.
    await tabTo(review.getByRole('button', { name: 'Back to edit' }));
    await page.keyboard.press('Enter');
    await expect.poll(() => reviewButton.evaluate((element) => element === document.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    await review.getByTestId('limit-check').waitFor();
    expect(await review.getByTestId('review-amount').textContent()).toBe('12.34 GBP');
    await tabTo(review.getByRole('button', { name: 'Send payout' }));
    await page.keyboard.press('Enter');
    const result = page.getByTestId('payout-result');
    await expect.poll(() => result.getByTestId('result-status').getAttribute('data-status'), { timeout: 15_000 }).toBe('P200');
    expect((await rpc<{ payout: { amount: string } }>(app, 'payouts:get', { merchantReference: reference })).payout.amount).toBe('12.34');
  });

  it('starts a batch from a CSV file', async () => {
    const file = path.join(temp.dir, 'keyboard-batch.csv');
    writeFileSync(file, payoutTemplateCsv());
    await go('payouts?tab=batch');
    const csvButton = page.getByRole('button', { name: 'CSV file', exact: true });
    // Enter opens the system's file dialog; choosing the file there is the only step outside the page.
    // On a busy machine the first Enter can be lost while the tab settles, and a render of the tab
    // meanwhile can take the focus off the button: Tab back to it, then press Enter again, until
    // the dialog opens.
    let chooser: FileChooser | undefined;
    for (let tries = 0; tries < 3 && !chooser; tries++) {
      if (!(await csvButton.evaluate((element) => element === document.activeElement))) await tabTo(csvButton);
      [chooser] = await Promise.all([page.waitForEvent('filechooser', { timeout: 5_000 }).catch(() => undefined), page.keyboard.press('Enter')]);
    }
    if (!chooser) throw new Error('Enter on "CSV file" did not open the file dialog');
    await chooser.setFiles(file);
    await tabTo(page.getByRole('button', { name: 'Check the rows' }));
    await page.keyboard.press('Enter');
    const start = page.getByRole('button', { name: /^Start batch of \d+$/ });
    await start.waitFor({ timeout: 15_000 });
    // The template's fps row repeats a payout of the seeded workday: left out unless confirmed,
    // which the start says first (in a dialog, reached and answered with the keyboard too).
    await tabTo(start);
    await page.keyboard.press('Enter');
    const send = page.getByRole('dialog', { name: 'Rows will be left out' }).getByRole('button', { name: /^Send \d+ payouts?$/ });
    await send.waitFor();
    await tabTo(send);
    await page.keyboard.press('Enter');
    const progress = page.getByTestId('batch-progress');
    await expect.poll(() => progress.getAttribute('data-batch-state'), { timeout: 30_000 }).toBe('done');
  });

  it('reads a notification: into the list, arrows, Enter opens it', async () => {
    await go('webhooks');
    const table = page.getByRole('table', { name: 'Notifications' });
    await table.locator('[data-row-key]').first().waitFor();
    await tabTo(table.locator('[role="rowgroup"][tabindex="0"]'));
    await page.keyboard.press('ArrowDown');
    const chosen = await table.locator('[aria-selected="true"]').getAttribute('data-row-key');
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(`#/webhooks/${chosen}$`));
    const detail = page.getByTestId('notification-detail');
    await expect.poll(() => detail.getByTestId('notification-body').textContent()).toContain('v2_');
  });

  it('keeps the focus in a virtualised list while its rows scroll out and in', async () => {
    await go('payins');
    const table = page.getByRole('table', { name: 'Pay-ins' });
    await table.locator('[data-row-key]').first().waitFor();
    const scroller = table.locator('[role="rowgroup"][tabindex="0"]');
    await tabTo(scroller);
    const firstKey = await table.locator('[data-row-key]').first().getAttribute('data-row-key');
    for (let i = 0; i < 3; i++) await page.keyboard.press('PageDown');
    // The first row has scrolled out (not rendered any more); the focus stayed on the list, and the
    // selected row is rendered and in view.
    await expect.poll(() => table.locator(`[data-row-key="${firstKey}"]`).count()).toBe(0);
    expect(await scroller.evaluate((element) => element === document.activeElement)).toBe(true);
    const selected = table.locator('[aria-selected="true"]');
    expect(await selected.getAttribute('aria-rowindex')).toBe('62');
    const inView = await selected.evaluate((row) => {
      const box = row.getBoundingClientRect();
      const frame = (row.closest('[role="rowgroup"]') as HTMLElement).getBoundingClientRect();
      return box.top >= frame.top && box.bottom <= frame.bottom;
    });
    expect(inView).toBe(true);
    for (let i = 0; i < 3; i++) await page.keyboard.press('PageUp');
    await expect.poll(() => table.locator(`[data-row-key="${firstKey}"]`).getAttribute('aria-selected')).toBe('true');
    expect(await scroller.evaluate((element) => element === document.activeElement)).toBe(true);
    expect((await focusShown()).shown).toBe(true);
  });

  it('gives the focus back to the button that opened a dialog', async () => {
    await go('settings');
    const opener = page.getByRole('button', { name: 'New profile' });
    await tabTo(opener);
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => opener.evaluate((element) => element === document.activeElement)).toBe(true);
  });
  it('keeps the focus where the action was, or on the heading of what it opened, never on the page itself', async () => {
    /** What has the focus: its tag and text, "body" when nothing does. */
    const focused = () => page.evaluate(() => {
      const element = document.activeElement;
      return element === null || element === document.body ? 'body' : `${element.tagName.toLowerCase()}: ${(element.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 80)}`;
    });
    const detailHeading = `h2: Pay-in ${seeded.mismatch.requestId}`;

    // A Ctrl+K result opens with the focus on its heading.
    await go('payins');
    await page.keyboard.press('Control+k');
    await page.getByRole('combobox', { name: 'Reference or e-mail' }).waitFor();
    await page.keyboard.type(seeded.mismatch.requestId);
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(`#/payins/${seeded.mismatch.id}$`));
    await expect.poll(focused, { timeout: 10_000 }).toBe(detailHeading);
    await page.waitForTimeout(400); // past the search dialog's exit and its giving back of the focus
    expect(await focused()).toBe(detailHeading);

    // Re-read status and Export evidence pack keep the focus on themselves while and after they work.
    const detail = page.getByTestId('transaction-detail');
    for (const name of ['Re-read status', 'Export evidence pack']) {
      const button = detail.getByRole('button', { name });
      await tabTo(button);
      const download = name === 'Export evidence pack' ? page.waitForEvent('download') : null;
      await page.keyboard.press('Enter');
      await download;
      await expect.poll(() => button.getAttribute('data-loading'), { timeout: 10_000 }).toBeNull();
      await expect.poll(focused).toBe(`button: ${name}`);
    }

    // Back to the list: its heading; a row opened from the list: the pay-in's heading.
    await tabTo(detail.getByRole('link', { name: /All pay-ins/ }));
    await page.keyboard.press('Enter');
    await expect.poll(focused, { timeout: 10_000 }).toBe('h2: Pay-ins');
    const table = page.getByRole('table', { name: 'Pay-ins' });
    await table.locator('[data-row-key]').first().waitFor();
    await tabTo(table.locator('[role="rowgroup"][tabindex="0"]'));
    await page.keyboard.press('ArrowDown');
    const opened = await table.locator('[aria-selected="true"]').getAttribute('data-row-key');
    await page.keyboard.press('Enter');
    await page.waitForURL(/#\/payins\/\d+$/);
    await expect.poll(focused, { timeout: 10_000 }).toMatch(/^h2: Pay-in /);
    expect(page.url()).toContain(`#/payins/${String(opened).replace(/^payin:/, '')}`);

    // A code's row in the code explorer opens its pay-ins: the list's heading.
    await go('codes');
    const code = page.getByRole('table', { name: 'Codes' }).locator('tbody tr[data-code="302"]').first();
    await tabTo(code);
    await page.keyboard.press('Enter');
    await page.waitForURL(/#\/payins\?/);
    await expect.poll(focused, { timeout: 10_000 }).toBe('h2: Pay-ins');
  });
});
