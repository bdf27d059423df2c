/// <reference lib="dom" />
// Every screen and every dialog, in the light and the dark theme, with data on it (rows,
// exceptions, notifications), has no serious or critical WCAG 2.1 A/AA violation that axe-core finds;
// nor has the navigation, a tab, a button or a table row under the pointer or with the
// keyboard's focus.
// Statements: the screen with its queues counted and a proposal, the mapping step, a
// settlement, a person's unmatch.
// Settings → Profiles: the form refusing its fields, a delete refused
// with its archive offer (the live profile has payouts), the active profile's Delete with its reason,
// the confirmation of a switch to a live profile.
// Setup goes through the contract (rpc), the emulator and, for what only a live profile shows (its
// red review, the resume of a lost payout or of a batch), an https test gateway; each view is
// reached as a user does.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payoutTemplateCsv } from '../../src/renderer/features/payouts/csv';
import { startSpecGateway, type SpecGateway } from '../helpers/spec-gateway';
import { tempDir } from '../helpers/temp-dir';
import { makeTestCertificate, type TestCertificate } from '../helpers/test-tls';
import { describeViolations, wcagViolations } from './axe';
import { launchBrowser, openApp, rpc, startWebApp, type WebApp } from './harness';
import { seedLive, seedStatements, seedWorkday, type Seeded, type SeededLive, type SeededStatements } from './seed';

let app: WebApp;
let browser: Browser;
let page: Page;
let temp: { dir: string; cleanup: () => void };
let seeded: Seeded;
let live: SeededLive;
let cert: TestCertificate;
let gateway: SpecGateway;
let batchFile: string;
let statements: SeededStatements;

beforeAll(async () => {
  temp = tempDir('paydesk-e2e-a11y-');
  cert = makeTestCertificate();
  gateway = await startSpecGateway({ tls: cert });
  app = await startWebApp(path.join(temp.dir, 'data'), [], { NODE_EXTRA_CA_CERTS: cert.certFile });
  browser = await launchBrowser();
  seeded = await seedWorkday(app);
  live = await seedLive(app, gateway);
  statements = await seedStatements(app, path.join(temp.dir, 'settlement.csv'));
  // The batch template, and one row without an amount, so the preview shows a problem too.
  const template = payoutTemplateCsv().trimEnd().split('\n');
  const amountColumn = (template[0] ?? '').split(',').indexOf('amount');
  const broken = (template[1] ?? '').split(',').map((cell, i) => (i === amountColumn ? '' : cell));
  batchFile = path.join(temp.dir, 'batch.csv');
  writeFileSync(batchFile, `${[...template, broken.join(',')].join('\n')}\n`);
  page = await openApp(browser, app);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await gateway?.close();
  cert?.cleanup();
  temp?.cleanup();
});

const go = (hash: string) => page.goto(`${app.origin}/?token=${app.token}#/${hash}`);
const rows = (table: string) => page.getByRole('table', { name: table }).locator('[data-row-key]');
const tab = (name: string | RegExp) => page.getByRole('tab', { name }).click();
const field = (label: string) => page.getByRole('textbox', { name: label, exact: true });
const dialog = (name: string | RegExp) => page.getByRole('dialog', { name });
/** Settings with no dialog left open by the view before (a new hash would keep the screen as it is). */
const freshSettings = async () => {
  await go('codes');
  await go('settings');
  await page.getByRole('table', { name: 'Profiles' }).waitFor();
};

/** Each view: how a user reaches it, waiting until its data is shown. */
const views: { name: string; open: () => Promise<void> }[] = [
  {
    name: 'pay-ins list',
    open: async () => {
      await go('payins');
      await rows('Pay-ins').first().waitFor();
    },
  },
  {
    name: 'pay-in detail',
    open: async () => {
      await go(`payins/${seeded.mismatch.id}`);
      await page.getByTestId('transaction-detail').waitFor();
      await page.getByTestId('status-meaning').waitFor();
    },
  },
  {
    name: 'search',
    open: async () => {
      await go('payins');
      const box = page.getByRole('combobox', { name: 'Reference or e-mail' });
      // On a busy machine the shortcut can arrive before the screen has bound it: pressed again
      // only when the search did not open (a second press on an open search would close it).
      for (let tries = 0; tries < 4 && !(await box.isVisible()); tries++) {
        await page.keyboard.press('Control+k');
        await box.waitFor({ timeout: 3_000 }).catch(() => undefined);
      }
      await box.fill(seeded.sharedEmail);
      await expect.poll(() => page.getByRole('grid', { name: 'Matches' }).getByRole('row').count(), { timeout: 10_000 }).toBeGreaterThan(1);
    },
  },
  {
    name: 'payouts list',
    open: async () => {
      await go('payouts');
      await rows('Payouts').first().waitFor();
    },
  },
  {
    name: 'save view dialog',
    open: async () => {
      await go('payouts');
      await rows('Payouts').first().waitFor();
      await page.getByRole('button', { name: 'Save view…' }).click();
      await dialog('Save the current filters as a view').getByRole('textbox', { name: 'View name' }).waitFor();
    },
  },
  {
    name: 'payout detail',
    open: async () => {
      await go(`payouts/${seeded.payout.id}`);
      await page.getByTestId('transaction-detail').waitFor();
    },
  },
  {
    name: 'payout review',
    open: async () => {
      await go('payouts?tab=new');
      await page.locator('.mantine-SegmentedControl-root').getByText('Faster Payments (UK)', { exact: true }).click();
      const values = { Amount: '10.12', Currency: 'GBP', Country: 'GBR', 'First name': 'Ann', 'Last name': 'Lee', 'E-mail': 'ann@example.com', 'Sort code': '401276', 'Account number': '12345678', 'Account holder': 'Ann Lee' };
      for (const [label, value] of Object.entries(values)) await field(label).fill(value);
      await page.getByRole('button', { name: 'Review payout' }).click();
      await page.getByTestId('payout-review').getByTestId('limit-check').waitFor();
    },
  },
  {
    // The seeded workday paid 25.00 GBP to this account: the review flags it, with its link and confirmation.
    name: 'payout review of a possible duplicate',
    open: async () => {
      await go('payouts?tab=new');
      await page.locator('.mantine-SegmentedControl-root').getByText('Faster Payments (UK)', { exact: true }).click();
      const values = { Amount: '25.00', Currency: 'GBP', Country: 'GBR', 'First name': 'Ann', 'Last name': 'Lee', 'E-mail': 'ann@example.com', 'Sort code': '401276', 'Account number': '12345678', 'Account holder': 'Ann Lee' };
      for (const [label, value] of Object.entries(values)) await field(label).fill(value);
      await page.getByRole('button', { name: 'Review payout' }).click();
      await page.getByTestId('payout-review').getByTestId('review-duplicates').waitFor();
    },
  },
  {
    name: 'batch preview',
    open: async () => {
      await go('payouts?tab=batch');
      await page.locator('input[type="file"]').setInputFiles(batchFile);
      await page.getByRole('button', { name: 'Check the rows' }).click();
      await page.getByTestId('preview-summary').waitFor({ timeout: 15_000 });
    },
  },
  {
    // The check with a row left out (the broken one) and a possible duplicate (the template's
    // fps row repeats a seeded payout): the start asks first.
    name: 'batch left-out confirmation',
    open: async () => {
      await go('payouts?tab=batch');
      await page.locator('input[type="file"]').setInputFiles(batchFile);
      await page.getByRole('button', { name: 'Check the rows' }).click();
      await page.getByTestId('preview-summary').waitFor({ timeout: 15_000 });
      await page.getByRole('button', { name: /^Start batch of \d+$/ }).click();
      await dialog('Rows will be left out').getByTestId('left-out-count').waitFor();
    },
  },
  {
    name: 'payout limits',
    open: async () => {
      await go('payouts?tab=limits');
      await page.getByRole('form', { name: 'Set a payout limit' }).waitFor();
    },
  },
  {
    name: 'reconciliation',
    open: async () => {
      await go('reconciliation');
      await expect.poll(() => page.getByTestId('count-status_mismatch').textContent(), { timeout: 10_000 }).toBe('1');
      await tab(/Status mismatch/);
      await rows('Status mismatch').first().waitFor();
    },
  },
  {
    name: 'statements',
    open: async () => {
      await go('reconciliation/statements');
      await expect.poll(() => page.getByTestId('break-count-settled_twice').textContent(), { timeout: 10_000 }).toBe('1');
      await page.getByTestId('proposals').waitFor();
      await page.getByRole('table', { name: 'Settlements' }).waitFor();
      await tab(/^Settled twice/);
      await rows('Settled twice').first().waitFor();
    },
  },
  {
    name: 'statements: the mapping step',
    open: async () => {
      await go('reconciliation/statements');
      await page.getByTestId('statement-import').locator('input[type=file]').setInputFiles(statements.reportFile);
      await page.getByRole('table', { name: 'Column mapping' }).waitFor();
    },
  },
  {
    name: 'statements: a settlement',
    open: async () => {
      await go('reconciliation/statements');
      await page.locator(`tr[data-settlement="${statements.settlementId}"]`).getByRole('button').click();
      await dialog(`Settlement ${statements.settlementId}`).getByRole('table', { name: 'Lines of the settlement' }).waitFor();
    },
  },
  {
    name: 'statements: unmatch a line by hand',
    open: async () => {
      await go('reconciliation/statements');
      await page.locator(`tr[data-settlement="${statements.settlementId}"]`).getByRole('button').click();
      await dialog(`Settlement ${statements.settlementId}`).getByRole('button', { name: 'Unmatch…' }).first().click();
      await dialog('Unmatch').getByRole('textbox', { name: /Note/ }).waitFor();
    },
  },
  {
    name: 'code explorer',
    open: async () => {
      await go('codes');
      await page.getByRole('table', { name: 'Codes' }).locator('tbody tr').first().waitFor();
    },
  },
  {
    name: 'webhook inspector',
    open: async () => {
      await go('webhooks');
      await rows('Notifications').first().waitFor();
    },
  },
  {
    name: 'notification detail',
    open: async () => {
      await go(`webhooks/${seeded.orphanNotificationId}`);
      await page.getByTestId('notification-detail').getByTestId('notification-body').waitFor();
    },
  },
  {
    name: 'replay confirmation',
    open: async () => {
      await go(`webhooks/${seeded.orphanNotificationId}`);
      await page.getByTestId('notification-detail').getByRole('button', { name: 'Replay into the ledger' }).click();
      await dialog(`Replay notification #${seeded.orphanNotificationId}?`).getByRole('button', { name: 'Replay', exact: true }).waitFor();
    },
  },
  ...(['Pay-in', 'Payout', 'Tokenize & charge', 'JWT tools'] as const).map((name) => ({
    name: `playground: ${name}`,
    open: async () => {
      await go('playground');
      await tab(name);
      await page.getByRole('tabpanel', { name }).getByRole('button').first().waitFor();
    },
  })),
  {
    name: 'settings',
    open: async () => {
      await go('settings');
      await page.getByRole('table', { name: 'Profiles' }).waitFor();
    },
  },
  {
    // A desk: where its notices reach its person (no e-mail or chat), and the thresholds it sets.
    name: 'notice settings',
    open: async () => {
      await go('settings/notices');
      await page.getByTestId('notice-desk-channels').waitFor();
      await page.getByRole('form', { name: 'Thresholds' }).getByRole('textbox', { name: /Over a window of/ }).waitFor();
    },
  },
  {
    name: 'notice settings refusing a threshold',
    open: async () => {
      await go('codes');
      await go('settings/notices');
      const form = page.getByRole('form', { name: 'Thresholds' });
      await form.getByRole('textbox', { name: /Over a window of/ }).fill('');
      await form.getByRole('button', { name: 'Save thresholds' }).click();
      await expect.poll(() => form.getByRole('textbox', { name: /Over a window of/ }).getAttribute('aria-invalid')).toBe('true');
    },
  },
  {
    name: 'profile form',
    open: async () => {
      await go('settings');
      await page.getByRole('button', { name: 'New profile' }).click();
      await page.getByRole('dialog').getByLabel('Name').waitFor();
    },
  },
  {
    name: 'profile form refusing its fields',
    open: async () => {
      await freshSettings();
      await page.getByRole('button', { name: 'New profile' }).click();
      const form = dialog('New profile');
      await form.getByLabel('Name').fill('Shop live');
      await form.getByLabel(/Sandbox address/).fill('sandbox.example.com/api/');
      await form.getByLabel('merchant_id').fill('m 1');
      await form.getByRole('button', { name: 'Create profile' }).click();
      await form.getByText(/A merchant_id has no spaces/).waitFor();
    },
  },
  {
    name: 'delete refused, archive offered',
    open: async () => {
      await freshSettings();
      await page.locator('tr[data-profile="Shop live"]').getByRole('button', { name: 'Delete', exact: true }).click();
      await dialog('Delete profile “Shop live”?').getByRole('button', { name: 'Delete', exact: true }).click();
      await dialog('“Shop live” cannot be deleted').getByRole('button', { name: 'Archive “Shop live”' }).waitFor();
    },
  },
  {
    name: 'the active profile\'s Delete, its reason shown',
    open: async () => {
      await freshSettings();
      await page.locator('tr[data-profile="Local emulator"]').getByRole('button', { name: 'Delete', exact: true }).focus();
      await page.getByRole('tooltip').waitFor();
    },
  },
  {
    name: 'switch to a live profile',
    open: async () => {
      await freshSettings();
      await page.getByRole('radio', { name: 'Activate Shop live' }).click();
      await dialog('Switch to “Shop live”, a live profile?').getByRole('button', { name: 'Switch to “Shop live” (live)' }).waitFor();
    },
  },
];

/** What only a live profile shows: red, marked LIVE, with a confirmation to tick. */
const liveViews: { name: string; open: () => Promise<void> }[] = [
  {
    name: 'live payout review',
    open: async () => {
      await go('payouts?tab=new');
      await page.locator('.mantine-SegmentedControl-root').getByText('Open banking', { exact: true }).click();
      const values = { Amount: '75.00', Currency: 'EUR', Country: 'DEU', 'First name': 'Ana', 'Last name': 'Lima', 'E-mail': 'ana@example.com', IBAN: 'DE89370400440532013000', BIC: 'COBADEFFXXX', 'Account holder': 'Ana Lima' };
      for (const [label, value] of Object.entries(values)) await field(label).fill(value);
      await page.getByRole('button', { name: 'Review payout' }).click();
      await page.getByTestId('payout-review').getByTestId('review-confirm').waitFor();
      expect(await page.getByTestId('environment-banner').getAttribute('data-environment')).toBe('live');
    },
  },
  {
    name: 'a lost payout its gateway cannot look up by merchantReference (live)',
    open: async () => {
      await go(`payouts/${live.lostPayoutId}`);
      await page.getByTestId('settle-panel').getByTestId('reference-read-refused').waitFor();
    },
  },
  {
    name: 'resume this payout (live)',
    open: async () => {
      await go(`payouts/${live.lostPayoutId}`);
      await page.getByTestId('settle-panel').getByTestId('settle-resume').click();
      await dialog('Resume this payout').getByTestId('review-confirm').waitFor();
    },
  },
  {
    name: 'resume a live batch',
    open: async () => {
      await go(`payouts?tab=batch&batch=${live.openBatchId}`);
      await page.getByTestId('batch-progress').getByRole('button', { name: 'Settle open payouts' }).click();
      await dialog('Resume a live batch').getByTestId('batch-review-confirm').waitFor();
    },
  },
];

/**
 * The states a pointer or the keyboard puts a control in: each control hovered with the
 * mouse, then focused with Tab (and, for a list, an arrow that selects its row), and audited within
 * its region. `focus` is what Tab lands on when that is not the control itself.
 */
interface ControlState {
  name: string;
  open: () => Promise<void>;
  control: () => Locator;
  region: () => Locator;
  focus?: () => Locator;
  /** Keys pressed once the focus is there (an arrow selects a virtualised list's row). */
  keys?: string[];
}

const navigation = () => page.getByRole('navigation', { name: 'Screens' });
const onPayins = async () => {
  await go('payins');
  await rows('Pay-ins').first().waitFor();
};
const onReconciliation = async () => {
  await go('reconciliation');
  await expect.poll(() => page.getByTestId('count-status_mismatch').textContent(), { timeout: 10_000 }).toBe('1');
};
const exceptionTabs = () => page.getByRole('tablist', { name: 'Exception lists' });
const controlStates: ControlState[] = [
  { name: 'the active navigation link', open: onPayins, control: () => navigation().getByRole('link', { name: 'Pay-ins' }), region: navigation },
  { name: 'another navigation link', open: onPayins, control: () => navigation().getByRole('link', { name: 'Reconciliation' }), region: navigation },
  { name: 'the selected tab', open: onReconciliation, control: () => exceptionTabs().getByRole('tab', { selected: true }), region: exceptionTabs },
  // Tab reaches the selected tab only; the arrows move from it to the others.
  { name: 'another tab', open: onReconciliation, control: () => exceptionTabs().getByRole('tab', { name: /Orphans/ }), region: exceptionTabs, focus: () => exceptionTabs().getByRole('tab', { selected: true }), keys: ['ArrowRight'] },
  { name: 'a filled button', open: onReconciliation, control: () => page.getByTestId('sweep').getByRole('button', { name: 'Run sweep' }), region: () => page.getByTestId('sweep') },
  { name: 'a default button', open: onReconciliation, control: () => page.getByRole('button', { name: 'Export list CSV' }), region: () => page.getByRole('button', { name: 'Export list CSV' }).locator('xpath=../..') },
  { name: 'a subtle button', open: onReconciliation, control: () => page.getByRole('button', { name: 'Refresh list' }), region: () => page.getByRole('button', { name: 'Refresh list' }).locator('xpath=../..') },
  {
    name: 'a threshold field',
    open: async () => {
      await go('codes');
      await go('settings/notices');
      await page.getByRole('form', { name: 'Thresholds' }).getByRole('textbox', { name: /Over a window of/ }).waitFor();
    },
    control: () => page.getByRole('form', { name: 'Thresholds' }).getByRole('textbox', { name: /Over a window of/ }),
    region: () => page.getByTestId('notice-thresholds'),
  },
  {
    name: 'a row of a virtualised list',
    open: onPayins,
    control: () => rows('Pay-ins').first(),
    region: () => page.getByRole('table', { name: 'Pay-ins' }),
    focus: () => page.getByRole('table', { name: 'Pay-ins' }).locator('[role="rowgroup"][tabindex="0"]'),
    keys: ['ArrowDown'],
  },
  {
    name: 'a row of the code explorer',
    open: async () => {
      await go('codes');
      await page.getByRole('table', { name: 'Codes' }).locator('tbody tr').first().waitFor();
    },
    control: () => page.getByRole('table', { name: 'Codes' }).locator('tbody tr').nth(1),
    region: () => page.getByRole('table', { name: 'Codes' }).locator('tbody'),
  },
];

/** The screen with nothing moving (CSS transitions ended), as the screens are audited. */
const settled = () => page.waitForFunction(() => document.getAnimations().every((animation) => !(animation instanceof CSSTransition) || animation.playState !== 'running'));

/** Presses Tab from the top of the page until `target` (or an element in it) has the focus, as a keyboard user does; bounded. */
async function tabTo(target: Locator): Promise<void> {
  for (let i = 0; i < 150; i++) {
    if (await target.evaluate((element) => element === document.activeElement)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab did not reach ${target.toString()} within 150 presses`);
}

async function expectControlReadable(state: ControlState, theme: 'light' | 'dark'): Promise<void> {
  await state.open();
  await page.waitForFunction((scheme) => document.documentElement.dataset.mantineColorScheme === scheme, theme);
  const region = state.region();
  // Under the pointer.
  await state.control().hover();
  await settled();
  const hovered = await wcagViolations(page, region);
  expect(hovered.map((violation) => violation.id), `hovered: ${describeViolations(hovered)}`).toEqual([]);
  // With the keyboard's focus (the pointer out of the way, at the page's top left corner).
  await page.mouse.move(0, 0);
  await tabTo(state.focus?.() ?? state.control());
  for (const key of state.keys ?? []) await page.keyboard.press(key);
  await settled();
  const focused = await wcagViolations(page, region);
  expect(focused.map((violation) => violation.id), `focused: ${describeViolations(focused)}`).toEqual([]);
}

async function expectNoViolation(open: () => Promise<void>, theme: 'light' | 'dark'): Promise<void> {
  await open();
  await page.waitForFunction((scheme) => document.documentElement.dataset.mantineColorScheme === scheme, theme);
  // The screen as it settles, not mid-fade: a dialog still fading in has its colours blended with
  // what lies under it (a fresh-clone CI once failed 'resume a live batch' on such colours).
  await page.waitForFunction(() => document.getAnimations().every((animation) => !(animation instanceof CSSTransition) || animation.playState !== 'running'));
  const violations = await wcagViolations(page);
  expect(violations.map((violation) => violation.id), describeViolations(violations)).toEqual([]);
}

describe.each(['light', 'dark'] as const)('WCAG 2.1 A/AA in the %s theme', (theme) => {
  beforeAll(async () => {
    await rpc(app, 'settings:update', { theme });
  });

  it.each(views)('$name has no serious or critical violation', async ({ open }) => expectNoViolation(open, theme));

  it.each(controlStates)('$name, hovered and focused, has no serious or critical violation', async (state) => expectControlReadable(state, theme));

  describe('with a live profile active', () => {
    beforeAll(async () => {
      await rpc(app, 'profiles:activate', { id: live.profileId, confirmed: true });
    });
    afterAll(async () => {
      const local = (await rpc<{ id: string; environment: string }[]>(app, 'profiles:list')).find((profile) => profile.environment === 'local');
      await rpc(app, 'profiles:activate', { id: local?.id });
    });

    it.each(liveViews)('$name has no serious or critical violation', async ({ open }) => expectNoViolation(open, theme));
  });
});
