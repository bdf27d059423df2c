/// <reference lib="dom" />
// Settings → Profiles as a person sees it, on a desk (web mode) and on a team server: every
// table of Settings fits its card at 1280×800 and 1440×900, each
// profile's Edit and Delete in view beside it; the form says each problem once, on its field, with
// an example that passes, and a live profile's https rule before anything is sent; a merchant-token
// with a space inside is refused on its field; deleting a profile with transactions says why and
// offers to archive it (or keep it); the active profile's Delete says why it is disabled, to the
// keyboard too; a switch to a live profile asks first, naming it live; and where credentials go is
// said as it is: the OS keychain on a desk, sealed on the server on a team server.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payinForm } from '../helpers/fixtures';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database';
import { tempDir } from '../helpers/temp-dir';
import { launchBrowser, openApp, rpc, screenshot, startWebApp, type WebApp } from './harness';
import { prepareTeamServer, signInPage, startTeamServer, teamCall, teamToken, type TeamServerProcess } from './team-harness';

const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 1440, height: 900 },
] as const;

const LONG_LIVE = {
  name: 'Shop live — Europe main account',
  environment: 'live',
  baseUrl: 'https://payments.gateway-provider.example.com/merchant/api/v2',
  merchantId: 'merchant-0042-europe-main',
  merchantSiteId: 'site-000000007',
  notificationPublicUrl: 'https://notify.shop.example.com/paydesk/notifications/hooks',
};
const SANDBOX = { name: 'Shop sandbox', environment: 'sandbox', baseUrl: 'https://sandbox.example.com/api/', merchantId: 'm-7', merchantSiteId: 's-7' };
const EMULATOR_TWO = { name: 'Emulator two', environment: 'local' };

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

const profilesTable = (page: Page) => page.getByRole('table', { name: 'Profiles' });
const row = (page: Page, name: string) => profilesTable(page).locator(`tr[data-profile="${name}"]`);

/**
 * Every table of Settings lies within its card, the page does not scroll sideways, and each
 * profile's Edit and Delete are whole in the viewport and are what a click there reaches (not
 * clipped by a scrolling container). Rows are brought into view by scrolling down only.
 */
async function expectSettingsFit(page: Page, viewport: { width: number; height: number }): Promise<void> {
  await page.setViewportSize(viewport);
  await profilesTable(page).waitFor();
  const where = `${viewport.width}×${viewport.height}`;
  const overflowing = await page.evaluate(() => {
    const problems: string[] = [];
    if (document.documentElement.scrollWidth > window.innerWidth) problems.push(`the page is ${document.documentElement.scrollWidth} px wide`);
    for (const table of Array.from(document.querySelectorAll('main table'))) {
      const card = table.closest('.mantine-Card-root') ?? document.querySelector('main');
      const box = table.getBoundingClientRect();
      const bounds = card!.getBoundingClientRect();
      const name = table.getAttribute('aria-label') ?? table.querySelector('th')?.textContent ?? 'a table';
      if (box.left < bounds.left - 0.5 || box.right > bounds.right + 0.5) problems.push(`${name}: ${Math.round(box.left)}–${Math.round(box.right)} px, its card ${Math.round(bounds.left)}–${Math.round(bounds.right)} px`);
    }
    return problems;
  });
  expect(overflowing, where).toEqual([]);
  const rows = await profilesTable(page).locator('tbody tr').all();
  expect(rows.length).toBeGreaterThan(1);
  for (const tr of rows) {
    const name = await tr.getAttribute('data-profile');
    await tr.evaluate((el) => window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - 200));
    for (const label of ['Edit', 'Delete']) {
      const button = tr.getByRole('button', { name: label, exact: true });
      const box = await button.boundingBox();
      expect(box, `${name}: ${label} at ${where}`).not.toBeNull();
      expect(box!.x, `${name}: ${label} at ${where}`).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width, `${name}: ${label} at ${where}`).toBeLessThanOrEqual(viewport.width);
      expect(box!.y + box!.height, `${name}: ${label} at ${where}`).toBeLessThanOrEqual(viewport.height);
      const hit = await button.evaluate((el, point) => el.contains(document.elementFromPoint(point.x, point.y)), { x: box!.x + box!.width / 2, y: box!.y + box!.height / 2 });
      expect(hit, `${name}: ${label} at ${where} is covered or clipped`).toBe(true);
      // Its own label whole: a squeezed button cuts it.
      expect(await button.evaluate((el) => el.scrollWidth <= el.clientWidth), `${name}: ${label} at ${where} cut`).toBe(true);
    }
  }
  expect(await page.evaluate(() => window.scrollX)).toBe(0);
}

/** Deleting `name`, which has transactions: refused with the reason, then kept or archived. */
async function refuseDeleteThenArchive(page: Page, name: string, custodyWords: RegExp): Promise<void> {
  await row(page, name).getByRole('button', { name: 'Delete', exact: true }).click();
  const ask = page.getByRole('dialog', { name: `Delete profile “${name}”?` });
  await expect.poll(() => ask.textContent()).toMatch(custodyWords);
  await ask.getByRole('button', { name: 'Cancel' }).click();
  await ask.waitFor({ state: 'hidden' });

  // Refused: the reason, and what can be done instead. "Keep it" leaves it as it was.
  await row(page, name).getByRole('button', { name: 'Delete', exact: true }).click();
  await page.getByRole('dialog', { name: `Delete profile “${name}”?` }).getByRole('button', { name: 'Delete', exact: true }).click();
  const refused = page.getByRole('dialog', { name: `“${name}” cannot be deleted` });
  await refused.getByRole('alert').waitFor();
  expect(await refused.getByRole('alert').textContent()).toBe(
    `Profile “${name}” cannot be deleted: it has transactions in the ledger (pay-ins, payouts or notifications), which keep the profile they were sent with. ` +
      'Archive it instead: an archived profile leaves the profile switcher and the pickers, its transactions stay visible and filterable, and it can be restored at any time.',
  );
  await refused.getByRole('button', { name: 'Keep it' }).click();
  await refused.waitFor({ state: 'hidden' });
  expect(await row(page, name).count()).toBe(1);

  await row(page, name).getByRole('button', { name: 'Delete', exact: true }).click();
  await page.getByRole('dialog', { name: `Delete profile “${name}”?` }).getByRole('button', { name: 'Delete', exact: true }).click();
  await refused.getByRole('button', { name: `Archive “${name}”` }).click();
  await refused.waitFor({ state: 'hidden' });
  // Archived: gone from the switcher, listed apart, restorable.
  const archived = page.getByRole('table', { name: 'Archived profiles' });
  await archived.locator(`tr[data-profile="${name}"]`).waitFor();
  expect(await page.getByRole('radio', { name: `Activate ${name}` }).count()).toBe(0);
  await archived.locator(`tr[data-profile="${name}"]`).getByRole('button', { name: 'Restore' }).click();
  await row(page, name).waitFor();
  await archived.waitFor({ state: 'detached' });
}

/** The switch to a live profile asks first, naming it live; staying changes nothing. */
async function switchToLiveAndBack(page: Page, live: string, back: string): Promise<void> {
  const badge = page.getByTestId('environment-badge');
  await page.getByRole('radio', { name: `Activate ${live}` }).click();
  const confirm = page.getByRole('dialog', { name: `Switch to “${live}”, a live profile?` });
  await confirm.waitFor();
  expect(await confirm.textContent()).toContain(`“${live}” is a live profile: every pay-in and payout sent while it is active goes to`);
  expect(await page.getByRole('radio', { name: `Activate ${live}` }).isChecked()).toBe(false);
  await confirm.getByRole('button', { name: `Stay on “${back}”` }).click();
  await confirm.waitFor({ state: 'hidden' });
  expect(await badge.getAttribute('data-environment')).not.toBe('live');

  await page.getByRole('radio', { name: `Activate ${live}` }).click();
  await confirm.getByRole('button', { name: `Switch to “${live}” (live)` }).click();
  await expect.poll(() => badge.getAttribute('data-environment')).toBe('live');
  // Back to a test profile: nothing to confirm.
  await page.getByRole('radio', { name: `Activate ${back}` }).click();
  await expect.poll(() => badge.getAttribute('data-environment')).not.toBe('live');
  expect(await page.getByRole('dialog').count()).toBe(0);
}

describe('profiles on a desk (web mode)', () => {
  let app: WebApp;
  let temp: ReturnType<typeof tempDir>;
  let page: Page;

  beforeAll(async () => {
    temp = tempDir('paydesk-e2e-profiles-');
    app = await startWebApp(path.join(temp.dir, 'data'));
    await rpc(app, 'profiles:create', LONG_LIVE);
    await rpc(app, 'profiles:create', SANDBOX);
    const two = await rpc<{ id: string }>(app, 'profiles:create', EMULATOR_TWO);
    await rpc(app, 'payins:create', payinForm('blik', { profileId: two.id }));
    page = await openApp(browser, app);
    await page.getByRole('navigation').getByRole('link', { name: 'Settings' }).click();
  }, 60_000);

  afterAll(async () => {
    await app?.stop();
    temp?.cleanup();
  });

  it('fits every Settings table in its card at 1280×800 and 1440×900, each profile\'s Edit and Delete in view', async () => {
    for (const viewport of VIEWPORTS) await expectSettingsFit(page, viewport);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, 'settings-profiles-1280');
  });

  it('says each problem of the form once, on its field, with an example that passes, and the live https rule before anything is sent', async () => {
    await page.getByRole('button', { name: 'New profile' }).click();
    const form = page.getByRole('dialog', { name: 'New profile' });
    await form.getByLabel('Name').fill('Shop EU');
    await form.getByLabel(/Sandbox address/).fill('sandbox.example.com/api/');
    await form.getByLabel('merchant_id').fill('m 1');
    await form.getByLabel('merchant_site_id').fill('s-1');
    await form.getByRole('button', { name: 'Create profile' }).click();
    const addressProblem = 'Enter the whole address, starting with https:// (or http://), e.g. https://sandbox.example.com/api/';
    await form.getByText(addressProblem, { exact: true }).waitFor();
    expect(await form.getByText('A merchant_id has no spaces: copy it again from your integration settings.', { exact: true }).isVisible()).toBe(true);
    const text = (await form.textContent()) ?? '';
    expect(text.split(addressProblem).length - 1, 'the address problem, said once').toBe(1);
    expect(text).not.toMatch(/profiles:create|Invalid input|Not accepted|The profile was not saved/);
    // The example the message gives passes the rule.
    await form.getByLabel(/Sandbox address/).fill(/e\.g\. (\S+)$/.exec(addressProblem)![1]!);
    await form.getByLabel('merchant_id').fill('m-1');
    await form.getByRole('button', { name: 'Create profile' }).click();
    await form.waitFor({ state: 'hidden' });
    await row(page, 'Shop EU').waitFor();

    // A live profile: https is asked for beside both addresses before any submit.
    await page.getByRole('button', { name: 'New profile' }).click();
    await form.getByLabel('Environment', { exact: true }).click();
    await page.getByRole('option', { name: /Live/ }).click();
    expect(await form.getByText(/^https:\/\/ only \(a live gateway is never reached in the clear\), ending in \/api\/v2/).isVisible()).toBe(true);
    expect(await form.getByText(/^https:\/\/ only: where the live gateway reaches this machine’s listener/).isVisible()).toBe(true);
    await form.getByLabel('Name').fill('Shop EU live');
    await form.getByLabel(/Live base URL/).fill('https://pay.example.com/api/v2');
    await form.getByLabel('merchant_id').fill('m-9');
    await form.getByLabel('merchant_site_id').fill('s 9');
    await form.getByLabel(/Notification public URL/).fill('http://notify.example.com/');
    await form.getByRole('button', { name: 'Create profile' }).click();
    await form.getByText('A live gateway posts payment news here: it must start with https://, e.g. https://notify.example.com', { exact: true }).waitFor();
    expect(await form.getByText('A merchant_site_id has no spaces: copy it again from your integration settings.', { exact: true }).isVisible()).toBe(true);
    // The same name in another case is taken, and the emulator's name is reserved.
    await form.getByLabel('Name').fill('LOCAL  emulator');
    await form.getByLabel('merchant_site_id').fill('s-9');
    await form.getByLabel(/Notification public URL/).fill('https://notify.example.com/');
    await form.getByRole('button', { name: 'Create profile' }).click();
    await form.getByText('“Local emulator” is the embedded emulator\'s name: give this live profile a name of its own.', { exact: true }).waitFor();
    await screenshot(page, 'profile-form-problems');
    await form.getByRole('button', { name: 'Cancel' }).click();
    await form.waitFor({ state: 'hidden' });
  });

  it('refuses a merchant-token with a space inside on its field, and says it goes to the OS keychain', async () => {
    await row(page, LONG_LIVE.name).getByRole('button', { name: 'Credentials' }).click();
    const field = page.getByLabel('Set merchant-token');
    await field.waitFor();
    expect(await page.getByText('Stored in the OS keychain only; never shown again.', { exact: true }).isVisible()).toBe(true);
    await field.fill('tok_abc def12345');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const problem = 'A merchant-token has no spaces or line breaks inside: paste it again, whole, from your integration settings.';
    await page.getByText(problem, { exact: true }).waitFor();
    expect(await page.getByText(problem).count()).toBe(1);
    expect(await page.content()).not.toMatch(/credentials:set-merchant-token|Invalid input|Not accepted/);
    expect(await page.getByTestId('keychain-status').isVisible()).toBe(true);
  });

  it('refuses to delete a profile with transactions, says why, and offers to keep or archive it; archived, it can be restored', async () => {
    await refuseDeleteThenArchive(page, EMULATOR_TWO.name, /removed from the OS keychain too/);
  });

  it('says why the active profile\'s Delete is disabled, on hover and to the keyboard, and does nothing on a click', async () => {
    const remove = row(page, 'Local emulator').getByRole('button', { name: 'Delete', exact: true });
    expect(await remove.getAttribute('aria-disabled')).toBe('true');
    const reason = 'The active profile cannot be deleted: activate another profile first.';
    expect(await remove.evaluate((el) => document.getElementById(el.getAttribute('aria-describedby') ?? '')?.textContent)).toBe(reason);
    // Reached with Tab from the button before it, as a keyboard user does.
    await row(page, 'Local emulator').getByRole('button', { name: 'Edit' }).focus();
    await page.keyboard.press('Tab');
    expect(await remove.evaluate((el) => el === document.activeElement)).toBe(true);
    await expect.poll(() => page.getByRole('tooltip').textContent()).toBe(reason);
    // Playwright waits for an aria-disabled button to be enabled: the click is forced, as a person's is.
    await remove.click({ force: true });
    await page.waitForTimeout(300);
    expect(await page.getByRole('dialog').count()).toBe(0);
  });

  it('asks before switching to a live profile, naming it live; staying changes nothing', async () => {
    await switchToLiveAndBack(page, LONG_LIVE.name, 'Local emulator');
  });

  it('asks too when the active profile is edited into a live one', async () => {
    const badge = page.getByTestId('environment-badge');
    await page.getByRole('radio', { name: `Activate ${SANDBOX.name}` }).click();
    await expect.poll(() => badge.getAttribute('data-environment')).toBe('sandbox');
    await row(page, SANDBOX.name).getByRole('button', { name: 'Edit' }).click();
    const form = page.getByRole('dialog', { name: `Edit ${SANDBOX.name}` });
    await form.getByLabel('Environment', { exact: true }).click();
    await page.getByRole('option', { name: /Live/ }).click();
    await form.getByLabel(/Live base URL/).fill('https://pay.example.com/api/v2');
    const confirm = form.getByRole('checkbox', { name: `“${SANDBOX.name}” is your active profile: switch it, and so you, to live (real money)` });
    await form.getByRole('button', { name: 'Save' }).click();
    await form.getByText('This is the active profile: saving it as live switches you to real money. Confirm it.', { exact: true }).waitFor();
    expect(await badge.getAttribute('data-environment')).toBe('sandbox');
    await confirm.check();
    await form.getByRole('button', { name: 'Save' }).click();
    await form.waitFor({ state: 'hidden' });
    await expect.poll(() => badge.getAttribute('data-environment')).toBe('live');
    await page.getByRole('radio', { name: 'Activate Local emulator' }).click();
    await expect.poll(() => badge.getAttribute('data-environment')).toBe('local');
  });
});

describe('profiles on a team server', () => {
  let database: TestDatabase;
  let server: TeamServerProcess;
  let temp: ReturnType<typeof tempDir>;
  let page: Page;

  beforeAll(async () => {
    temp = tempDir('paydesk-e2e-team-profiles-');
    database = await createTestDatabase();
    mkdirSync(path.join(temp.dir, 'server'), { recursive: true });
    server = await startTeamServer(await prepareTeamServer(database.url, path.join(temp.dir, 'server'), path.join(temp.dir, 'envelope.key')));
    const token = await teamToken(server.origin, 'alice');
    await teamCall(server.origin, token, 'profiles:create', LONG_LIVE);
    await teamCall(server.origin, token, 'profiles:create', SANDBOX);
    const two = await teamCall<{ id: string }>(server.origin, token, 'profiles:create', EMULATOR_TWO);
    await teamCall(server.origin, token, 'payins:create', payinForm('blik', { profileId: two.id }));
    page = await signInPage(browser, server.origin, 'alice');
    await page.getByRole('navigation').getByRole('link', { name: 'Settings' }).click();
  }, 120_000);

  afterAll(async () => {
    await page?.context().close();
    const code = await server?.stop();
    await database?.drop();
    temp?.cleanup();
    expect(code).toBe(0);
  });

  it('fits every Settings table in its card at 1280×800 and 1440×900, each profile\'s Edit and Delete in view', async () => {
    await page.getByTestId('team').waitFor();
    for (const viewport of VIEWPORTS) await expectSettingsFit(page, viewport);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, 'team-settings-profiles-1280');
  });

  it('says credentials are sealed on the server, not in a keychain', async () => {
    await row(page, LONG_LIVE.name).getByRole('button', { name: 'Credentials' }).click();
    await page.getByLabel('Set merchant-token').waitFor();
    const field = 'Sealed on the team server (AES-256-GCM under its envelope key); never shown again, never sent to a browser or desk.';
    expect(await page.getByText(field, { exact: true }).isVisible()).toBe(true);
    await page.getByLabel('Set merchant-token').fill('tok_team_sealed_12345');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('merchant-token sealed on the team server', { exact: true }).waitFor();
    expect(await page.getByRole('main').textContent()).not.toMatch(/keychain/i);
  });

  it('refuses to delete a profile with transactions, says why, and offers to keep or archive it', async () => {
    await refuseDeleteThenArchive(page, EMULATOR_TWO.name, /sealed on the team server, are removed too/);
  });

  it('asks before switching to a live profile, naming it live', async () => {
    await switchToLiveAndBack(page, LONG_LIVE.name, 'Local emulator');
  });
});
