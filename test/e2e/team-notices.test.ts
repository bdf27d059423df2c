/// <reference lib="dom" />
// End to end in Chromium on the built team server (PostgreSQL), e-mail going to a real
// SMTP server on loopback (STARTTLS, authentication) that the test reads: an approver chooses
// e-mail on the notices' settings screen (a refusal shown beside its field first), the other
// approver and the maker through calls; a maker submits a payout above the approval policy; both
// approvers' bells show it and their e-mails arrive within a few seconds, live, without a reload;
// one opens the inbox and its notice's link opens the approval; one approves; the maker's bell and
// mailbox show the decision; nobody is told twice (mails and notices counted per person); the
// admin sees the e-mail channel working, then failing on a refused mailbox (the screen audited
// with axe in both themes, a choice's box hovered and focused); an approver reads the thresholds.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Inbox, NoticeChoices } from '../../src/shared/contract';
import { payoutForm as samplePayout } from '../helpers/fixtures';
import { startSmtpInbox, type SmtpInbox } from '../helpers/smtp-inbox';
import { makeTestCertificate, type TestCertificate } from '../helpers/test-tls';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database';
import { tempDir } from '../helpers/temp-dir';
import { describeViolations, wcagViolations } from './axe';
import { launchBrowser } from './harness';
import { prepareTeamServer, signInPage, startTeamServer, TEAM_PASSWORD, teamCall, teamToken, type TeamServerProcess } from './team-harness';

let database: TestDatabase;
let server: TeamServerProcess;
let browser: Browser;
let temp: ReturnType<typeof tempDir>;
let cert: TestCertificate;
let smtp: SmtpInbox;

beforeAll(async () => {
  temp = tempDir('paydesk-e2e-notices-');
  cert = makeTestCertificate();
  smtp = await startSmtpInbox(cert);
  database = await createTestDatabase();
  mkdirSync(path.join(temp.dir, 'server'), { recursive: true });
  const setup = await prepareTeamServer(database.url, path.join(temp.dir, 'server'), path.join(temp.dir, 'envelope.key'));
  server = await startTeamServer(setup, ['--smtp-url', smtp.url, '--smtp-require-tls', '--smtp-from', 'Paydesk <paydesk@example.com>'], { NODE_EXTRA_CA_CERTS: cert.certFile });
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  const code = await server?.stop();
  await database?.drop();
  await smtp?.close();
  cert?.cleanup();
  temp?.cleanup();
  expect(code).toBe(0);
});

const bellCount = (page: Page) => page.getByTestId('notice-bell').getAttribute('aria-label');
const noticesOf = async (username: string) => (await teamCall<Inbox>(server.origin, await teamToken(server.origin, username), 'notices:list', { limit: 50 })).items;

/** A person chooses e-mail for a request of approval on the notices' screen, as they would: from the bell. */
async function chooseEmailOnScreen(page: Page, address: string): Promise<void> {
  await page.getByTestId('notice-bell').click();
  await page.getByRole('link', { name: 'Notice settings' }).click();
  const form = page.getByRole('form', { name: 'Your notice choices' });
  // Only the kinds told to an approver are offered: theirs to decide, not finance's payouts or an admin's security.
  const kinds = form.getByRole('table', { name: 'Kinds of notice and their channels' }).locator('tbody tr td:first-child');
  await kinds.first().waitFor();
  expect(await kinds.allTextContents()).toEqual(['A payout or batch awaits your approval', 'Reminder: an approval still awaits you', "A person's role changed"]);
  expect(await page.getByText('Listed are the kinds told to your role (Approver).').isVisible()).toBe(true);
  await form.getByRole('checkbox', { name: 'A payout or batch awaits your approval: by e-mail' }).check();
  // E-mail chosen without an address: refused, the reason beside the address's field.
  await form.getByRole('button', { name: 'Save my choices' }).click();
  const field = form.getByRole('textbox', { name: 'Your e-mail address' });
  await expect.poll(() => field.getAttribute('aria-invalid')).toBe('true');
  expect(await form.getByText('needed for the e-mail choices').isVisible()).toBe(true);
  // An approver reads the thresholds, with why they cannot change them, and sees no channel's state (admins').
  expect(await page.getByRole('form', { name: 'Thresholds' }).count()).toBe(0);
  expect(await page.getByRole('table', { name: 'Thresholds' }).count()).toBe(1);
  expect(await page.getByTestId('notice-thresholds').getByTestId('role-note').isVisible()).toBe(true);
  expect(await page.getByTestId('notice-channels').count()).toBe(0);
  const refused = await wcagViolations(page);
  expect(refused.map((violation) => violation.id), describeViolations(refused)).toEqual([]);
  await field.fill(address);
  await form.getByRole('button', { name: 'Save my choices' }).click();
  await page.getByText('Your notice choices are saved').waitFor();
  expect(await field.getAttribute('aria-invalid')).not.toBe('true');
}

describe('notices in the browser on a team server', () => {
  it('tells each approver on their bell and by e-mail within seconds, opens the request from the inbox, tells the maker the approval, nobody twice', async () => {
    const adminToken = await teamToken(server.origin, 'alice');
    await teamCall(server.origin, adminToken, 'approvals:set-policy', { environment: 'local', currency: 'EUR', mode: 'threshold', payoutAbove: '100', batchAbove: null });
    for (const [username, displayName, role] of [['fay', 'Fay Finance', 'finance'], ['abe', 'Abe Approver', 'approver'], ['bea', 'Bea Approver', 'approver']] as const) {
      await teamCall(server.origin, adminToken, 'team:create-user', { username, displayName, role, password: TEAM_PASSWORD });
    }
    const [fay, abe, bea] = [await signInPage(browser, server.origin, 'fay'), await signInPage(browser, server.origin, 'abe'), await signInPage(browser, server.origin, 'bea')];
    for (const page of [fay, abe, bea]) expect(await bellCount(page)).toBe('Notices');
    await chooseEmailOnScreen(abe, 'abe@example.com');
    expect(await teamCall<NoticeChoices>(server.origin, await teamToken(server.origin, 'abe'), 'notices:get-choices')).toEqual({ email: 'abe@example.com', chatUrl: null, choices: [{ kind: 'approval.requested', channel: 'email' }] });
    await teamCall(server.origin, await teamToken(server.origin, 'bea'), 'notices:set-choices', { email: 'bea@example.com', chatUrl: null, choices: [{ kind: 'approval.requested', channel: 'email' }] });
    await teamCall(server.origin, await teamToken(server.origin, 'fay'), 'notices:set-choices', { email: 'fay@example.com', chatUrl: null, choices: [{ kind: 'approval.approved', channel: 'email' }] });
    await abe.evaluate(() => (window.location.hash = '#/payins'));

    const fayToken = await teamToken(server.origin, 'fay');
    const profileId = (await teamCall<{ id: string; environment: string }[]>(server.origin, fayToken, 'profiles:list')).find((p) => p.environment === 'local')!.id;
    const form = samplePayout('open_banking', { amount: '180.00', reference: 'notice-e2e-1', profileId });
    const review = await teamCall<{ reviewId: string }>(server.origin, fayToken, 'payouts:review', form);
    const submittedAt = Date.now();
    const approval = await teamCall<{ id: number }>(server.origin, fayToken, 'approvals:request-payout', { ...form, reviewId: review.reviewId, confirmed: true });

    for (const page of [abe, bea]) await expect.poll(() => bellCount(page), { timeout: 5_000 }).toBe('Notices: 1 unread');
    for (const address of ['abe@example.com', 'bea@example.com']) await expect.poll(() => smtp.to(address).length, { timeout: 5_000 }).toBe(1);
    expect(Date.now() - submittedAt).toBeLessThan(5_000);
    expect(smtp.to('abe@example.com')[0]?.raw).toMatch(/notice-e2e-1/);
    expect(await bellCount(fay)).toBe('Notices');

    await abe.getByTestId('notice-bell').click();
    const notice = abe.getByTestId('notice-inbox').getByTestId('notice');
    await expect.poll(() => notice.textContent()).toMatch(/Approval needed: Payout notice-e2e-1 of 180\.00 EUR/);
    await notice.click();
    await expect.poll(() => abe.evaluate(() => window.location.hash)).toBe(`#/approvals/${approval.id}`);
    await expect.poll(() => bellCount(abe)).toBe('Notices');
    // Bea's own notice is still unread: reading is each person's own.
    expect(await bellCount(bea)).toBe('Notices: 1 unread');

    await teamCall(server.origin, await teamToken(server.origin, 'bea'), 'approvals:approve', { id: approval.id });
    await expect.poll(() => bellCount(fay), { timeout: 5_000 }).toBe('Notices: 1 unread');
    await fay.getByTestId('notice-bell').click();
    await expect.poll(() => fay.getByTestId('notice-inbox').getByTestId('notice').textContent()).toMatch(/Approved: Payout notice-e2e-1.*Bea Approver approved your request/);
    await expect.poll(() => smtp.to('fay@example.com').length, { timeout: 5_000 }).toBe(1);
    expect(smtp.to('fay@example.com')[0]?.raw).toMatch(/notice-e2e-1/);
    // Nobody is told twice: the sender has run again since (every 2 s), and nothing more came.
    await new Promise((resolve) => setTimeout(resolve, 4_500));
    expect(await bellCount(fay)).toBe('Notices: 1 unread');
    expect(await bellCount(bea)).toBe('Notices: 1 unread');
    expect(await bellCount(abe)).toBe('Notices');
    expect(smtp.mails.map((mail) => mail.to).sort()).toEqual(['abe@example.com', 'bea@example.com', 'fay@example.com']);
    expect(new Set(smtp.mails.map((mail) => mail.messageId)).size).toBe(3);
    for (const [username, kinds] of [['abe', ['approval.requested']], ['bea', ['approval.requested']], ['fay', ['approval.approved']], ['alice', []]] as const) {
      expect((await noticesOf(username)).map((notice) => notice.kind), username).toEqual(kinds);
    }

    // The admin sees the e-mail channel working, with its last message's time.
    const alice = await signInPage(browser, server.origin, 'alice');
    await alice.goto(`${server.origin}/#/settings/notices`);
    const email = alice.getByRole('table', { name: 'Notice channels' }).locator('tr[data-channel="email"]');
    await expect.poll(() => email.getAttribute('data-state')).toBe('working');

    // A mailbox the SMTP server refuses: the admin sees the channel failing, with its error and time.
    await teamCall(server.origin, await teamToken(server.origin, 'bea'), 'notices:set-choices', { email: 'bea@refused.example', chatUrl: null, choices: [{ kind: 'approval.requested', channel: 'email' }] });
    const second = samplePayout('open_banking', { amount: '190.00', reference: 'notice-e2e-2', profileId });
    await teamCall(server.origin, fayToken, 'approvals:request-payout', { ...second, reviewId: (await teamCall<{ reviewId: string }>(server.origin, fayToken, 'payouts:review', second)).reviewId, confirmed: true });
    await expect.poll(() => email.getAttribute('data-state'), { timeout: 15_000 }).toBe('failing');
    expect(await email.getByTestId('channel-error').textContent()).toMatch(/550|mailbox/);
    // The screen passes the WCAG 2.1 AA audit with a failing channel, in either theme.
    const adminToken2 = await teamToken(server.origin, 'alice');
    for (const theme of ['light', 'dark'] as const) {
      await teamCall(server.origin, adminToken2, 'settings:update', { theme });
      await alice.reload();
      await alice.waitForFunction((scheme) => document.documentElement.dataset.mantineColorScheme === scheme, theme);
      await email.getByTestId('channel-error').waitFor();
      const violations = await wcagViolations(alice);
      expect(violations.map((violation) => violation.id), `${theme}: ${describeViolations(violations)}`).toEqual([]);
      // A choice's box under the pointer, then with the keyboard's focus (Tab from the webhook field).
      const choices = alice.getByTestId('notice-choices');
      const box = choices.getByRole('checkbox').first();
      await box.hover();
      const hovered = await wcagViolations(alice, choices);
      expect(hovered.map((violation) => violation.id), `${theme}, hovered: ${describeViolations(hovered)}`).toEqual([]);
      await alice.mouse.move(0, 0);
      await choices.getByRole('textbox', { name: 'Your chat incoming-webhook URL' }).focus();
      await alice.keyboard.press('Tab');
      expect(await box.evaluate((element) => element === document.activeElement)).toBe(true);
      const focused = await wcagViolations(alice, choices);
      expect(focused.map((violation) => violation.id), `${theme}, focused: ${describeViolations(focused)}`).toEqual([]);
    }
    // ~37 s alone on an idle machine (four browsers, a 4.5 s quiet wait, the audit in both themes at
    // rest, hovered and focused); beside the other e2e files in CI it once passed 60 s.
  }, 150_000);
});
