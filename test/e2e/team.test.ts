/// <reference lib="dom" />
// The team server end to end: the built team server on PostgreSQL, its first admin from the command line,
// two people in two browsers. Alice (admin) adds Bob (finance) from Settings; Bob sends a payout from
// his browser and Alice's list shows it within a second, live; Carol (support) is not offered what
// her role may not do, and the server refuses it anyway; Alice ends Carol's session and Carol's page
// is back at the sign-in form; a desk signs in to the server and shows the team's ledger. The sign-in
// page and the team settings pass axe (WCAG 2.1 AA) in both themes. Approvals: an admin sets an
// approval policy in Settings; a finance person's payout above it is submitted, not sent; an
// approver opens it in Approvals (axe in both themes, with data), approves it (it is sent) and
// rejects another with a reason, which the maker sees live; the maker's own approval is refused by
// the server. Two approvers in two browsers click Approve together; it is sent once,
// and the other sees who approved it first and when, and the request as approved.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Inbox } from '../../src/shared/contract';
import { payoutForm as samplePayout } from '../helpers/fixtures';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database';
import { tempDir } from '../helpers/temp-dir';
import { describeViolations, wcagViolations } from './axe';
import { launchBrowser, openApp, screenshot, startWebApp, type WebApp } from './harness';
import { prepareTeamServer, signInPage, startTeamServer, TEAM_PASSWORD, teamCall, teamToken, type TeamServerProcess } from './team-harness';

let database: TestDatabase;
let server: TeamServerProcess;
let browser: Browser;
let temp: ReturnType<typeof tempDir>;
let desk: WebApp | undefined;
const IBAN = 'DE89370400440532013000';

beforeAll(async () => {
  temp = tempDir('paydesk-e2e-team-');
  database = await createTestDatabase();
  mkdirSync(path.join(temp.dir, 'server'), { recursive: true });
  const setup = await prepareTeamServer(database.url, path.join(temp.dir, 'server'), path.join(temp.dir, 'envelope.key'));
  server = await startTeamServer(setup);
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await desk?.stop();
  const code = await server?.stop();
  await database?.drop();
  temp?.cleanup();
  expect(code).toBe(0);
});

async function setTheme(page: Page, theme: 'light' | 'dark') {
  await page.evaluate(async (t) => {
    await fetch('/rpc/settings:update', { method: 'POST', headers: { 'content-type': 'application/json', 'x-paydesk-csrf': '1' }, body: JSON.stringify({ input: { theme: t } }) });
  }, theme);
  await expect.poll(() => page.locator('html').getAttribute('data-mantine-color-scheme')).toBe(theme);
}

/** New payout by open banking, filled in and reviewed as a person does; the review on screen. */
async function reviewPayout(page: Page, reference: string, amount: string) {
  await page.getByRole('navigation').getByRole('link', { name: 'Payouts' }).click();
  await page.getByRole('tab', { name: 'New payout' }).click();
  await page.locator('.mantine-SegmentedControl-root').getByText('Open banking', { exact: true }).click();
  const field = (label: string) => page.getByRole('textbox', { name: label, exact: true });
  for (const [label, value] of Object.entries({ Amount: amount, Currency: 'EUR', Country: 'DEU', 'Merchant reference': reference, 'First name': 'Ana', 'Last name': 'Lima', 'E-mail': 'ana@example.com', IBAN, BIC: 'COBADEFFXXX', 'Account holder': 'Ana Lima' })) await field(label).fill(value);
  await page.getByRole('button', { name: 'Review payout' }).click();
  const review = page.getByTestId('payout-review');
  await review.waitFor();
  return review;
}

describe('a team on one server', () => {
  it('signs people in, with roles, and shows each what the other does within a second', async () => {
    // The sign-in page, in both themes (it follows the browser's).
    for (const colorScheme of ['light', 'dark'] as const) {
      const context = await browser.newContext({ colorScheme, viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      await page.goto(server.origin);
      await page.getByLabel('User name').waitFor();
      expect(describeViolations(await wcagViolations(page)), `sign-in page, ${colorScheme}`).toBe('');
      await context.close();
    }

    const alice = await signInPage(browser, server.origin, 'alice');
    expect(await alice.getByTestId('signed-in-role').textContent()).toBe('Admin');
    await alice.getByRole('navigation').getByRole('link', { name: 'Settings' }).click();
    const team = alice.getByTestId('team');
    await team.waitFor();
    await team.getByRole('button', { name: 'Add a person' }).click();
    const dialog = alice.getByRole('dialog', { name: 'Add a person' });
    await dialog.getByLabel('User name').fill('bob');
    await dialog.getByLabel('Full name').fill('Bob Finance');
    await dialog.getByRole('combobox', { name: 'Role' }).click();
    await alice.getByRole('option', { name: /^Finance/ }).click();
    await dialog.getByRole('textbox', { name: 'First password' }).fill(TEAM_PASSWORD);
    await dialog.getByRole('button', { name: 'Add' }).click();
    await expect.poll(() => team.getByTestId('team-people').locator('[data-username="bob"]').count()).toBe(1);
    for (const theme of ['light', 'dark'] as const) {
      await setTheme(alice, theme);
      expect(describeViolations(await wcagViolations(alice)), `team settings, ${theme}`).toBe('');
    }
    await screenshot(alice, 'team-settings');

    const bob = await signInPage(browser, server.origin, 'bob');
    expect(await bob.getByTestId('signed-in-role').textContent()).toBe('Finance');
    // Bob's theme is his own: Alice's dark theme did not follow him.
    expect(await bob.locator('html').getAttribute('data-mantine-color-scheme')).not.toBe('dark');

    // Alice watches the payouts list; Bob sends a payout from his browser.
    await alice.getByRole('navigation').getByRole('link', { name: 'Payouts' }).click();
    await alice.getByRole('table', { name: 'Payouts' }).waitFor();
    await bob.getByRole('navigation').getByRole('link', { name: 'Payouts' }).click();
    const review = await reviewPayout(bob, 'team-e2e-1', '88.10');
    await review.getByRole('button', { name: 'Send payout' }).click();
    const row = alice.locator('[data-row-key]', { hasText: 'team-e2e-1' });
    // When Bob's screen has the gateway's answer, Alice's has the payout within a second (pushed by the server).
    const [answeredAt, seenAt] = await Promise.all([bob.getByTestId('payout-result').waitFor({ timeout: 15_000 }).then(() => Date.now()), row.waitFor({ timeout: 15_000 }).then(() => Date.now())]);
    console.log(`team: Bob's payout in Alice's list ${seenAt - answeredAt} ms after his screen had its answer`);
    expect(seenAt - answeredAt).toBeLessThan(1_000);
    // A change pushed by the server reaches the other person within a second: the status moves on both screens.
    await expect.poll(() => row.locator('[data-status]').getAttribute('data-status'), { timeout: 15_000 }).toBe('P200');
    await screenshot(alice, 'team-payouts-live');

    // The audit log names Bob.
    const token = await teamToken(server.origin, 'alice');
    const payouts = await teamCall<{ items: { id: number; merchantReference: string }[] }>(server.origin, token, 'payouts:list', {});
    const mine = payouts.items.find((p) => p.merchantReference === 'team-e2e-1')!;
    const evidence = await teamCall<{ json: string }>(server.origin, token, 'evidence:export', { subject: 'payout', id: mine.id });
    expect(evidence.json).toMatch(/"actor":\s*"bob"/);
    await bob.context().close();
    await alice.context().close();
  });

  it('offers a support agent only what their role allows, refuses the rest on the server, and signs them out when an admin ends their session', async () => {
    const adminToken = await teamToken(server.origin, 'alice');
    await teamCall(server.origin, adminToken, 'team:create-user', { username: 'carol', displayName: 'Carol Support', role: 'support', password: TEAM_PASSWORD });
    const carol = await signInPage(browser, server.origin, 'carol');
    const nav = carol.getByRole('navigation');
    expect(await nav.getByRole('link', { name: 'Sandbox playground' }).count()).toBe(0);
    await nav.getByRole('link', { name: 'Payouts' }).click();
    await carol.getByRole('table', { name: 'Payouts' }).waitFor();
    expect(await carol.getByRole('tab', { name: 'New payout' }).count()).toBe(0);
    expect(await carol.getByTestId('role-note').first().textContent()).toMatch(/Your role \(Support\) may not do this: it is for Admin, Finance, Developer/);
    // The server is the guard: her session, used directly, is refused too.
    const refused = await carol.evaluate(async () => (await fetch('/rpc/payouts:create', { method: 'POST', headers: { 'content-type': 'application/json', 'x-paydesk-csrf': '1' }, body: JSON.stringify({ input: {} }) })).json());
    expect(refused).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    await screenshot(carol, 'team-support-payouts');

    const sessions = await teamCall<{ sessions: { id: string; username: string }[] }>(server.origin, adminToken, 'team:list-sessions');
    for (const session of sessions.sessions.filter((s) => s.username === 'carol')) await teamCall(server.origin, adminToken, 'team:revoke-session', { id: session.id });
    // Her page notices (its event stream is ended) and shows the sign-in form again.
    await carol.getByLabel('User name').waitFor({ timeout: 15_000 });
    await carol.context().close();
  });

  it('lets a desk sign in to the server and show the team\'s ledger', async () => {
    desk = await startWebApp(path.join(temp.dir, 'desk'));
    const page = await openApp(browser, desk);
    await page.goto(`${desk.url}#/settings`);
    const section = page.getByTestId('team-server');
    await section.waitFor();
    await section.getByLabel('Server address').fill(server.origin);
    await section.getByLabel('User name').fill('bob');
    await section.getByRole('textbox', { name: 'Password' }).fill(TEAM_PASSWORD);
    await section.getByRole('button', { name: 'Sign in to the team server' }).click();
    await page.getByTestId('team-server-connected').waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('signed-in-person').textContent()).toBe('Bob Finance');
    await page.getByRole('navigation').getByRole('link', { name: 'Payouts' }).click();
    await page.locator('[data-row-key]', { hasText: 'team-e2e-1' }).waitFor();
    await screenshot(page, 'desk-on-team-server');
    await page.getByRole('button', { name: 'Leave team server' }).click();
    await expect.poll(async () => page.getByTestId('signed-in').count(), { timeout: 15_000 }).toBe(0);
    await page.close();
  });

  it('holds a payout above the approval policy for an approver, who approves one and rejects another; the maker sees it live and cannot approve their own', async () => {
    const adminToken = await teamToken(server.origin, 'alice');
    await teamCall(server.origin, adminToken, 'team:create-user', { username: 'fran', displayName: 'Fran Finance', role: 'finance', password: TEAM_PASSWORD });
    await teamCall(server.origin, adminToken, 'team:create-user', { username: 'erin', displayName: 'Erin Approver', role: 'approver', password: TEAM_PASSWORD });

    // The admin sets the policy in Settings.
    const alice = await signInPage(browser, server.origin, 'alice');
    await alice.getByRole('navigation').getByRole('link', { name: 'Settings' }).click();
    const policies = alice.getByTestId('approval-policies');
    await policies.waitFor();
    await policies.getByRole('combobox', { name: 'Environment' }).click();
    await alice.getByRole('option', { name: 'Local emulator' }).click();
    await policies.getByRole('textbox', { name: 'Currency' }).fill('EUR');
    await policies.getByRole('textbox', { name: 'Payouts above' }).fill('100');
    await policies.getByRole('button', { name: 'Save policy' }).click();
    await expect.poll(() => policies.locator('[data-policy="EUR/local"]').textContent()).toMatch(/payouts above 100\.00/);
    await alice.context().close();

    // Fran's payout above it is submitted, not sent.
    const fran = await signInPage(browser, server.origin, 'fran');
    const review = await reviewPayout(fran, 'team-approve-1', '150.00');
    expect(await review.getByTestId('review-approval').textContent()).toMatch(/Local emulator EUR: payouts above 100\.00 need approval/);
    await review.getByRole('button', { name: 'Submit for approval' }).click();
    const submitted = fran.getByTestId('submitted-for-approval');
    await submitted.waitFor();
    const approvalId = Number(await submitted.getAttribute('data-approval-id'));
    await screenshot(fran, 'approval-submitted');
    // The maker's own approval, made directly, is refused by the server.
    const refused = await fran.evaluate(async (id) => (await fetch('/rpc/approvals:approve', { method: 'POST', headers: { 'content-type': 'application/json', 'x-paydesk-csrf': '1' }, body: JSON.stringify({ input: { id } }) })).json(), approvalId);
    expect(refused).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    // A second one, to be rejected.
    await fran.getByRole('button', { name: 'Another payout' }).click();
    const second = await reviewPayout(fran, 'team-reject-1', '175.00');
    await second.getByRole('button', { name: 'Submit for approval' }).click();
    const secondId = Number(await fran.getByTestId('submitted-for-approval').getAttribute('data-approval-id'));
    // Fran watches what she submitted.
    await fran.getByRole('navigation').getByRole('link', { name: 'Approvals' }).click();
    await fran.locator('.mantine-SegmentedControl-root').getByText('Submitted by me', { exact: true }).click();
    await fran.locator(`[data-approval-id="${secondId}"]`).waitFor();

    // Erin, the approver, opens the first from her queue: the review's facts and the maker.
    const erin = await signInPage(browser, server.origin, 'erin');
    await erin.getByRole('navigation').getByRole('link', { name: 'Approvals' }).click();
    await erin.locator(`[data-approval-id="${approvalId}"]`).getByRole('button', { name: `Open approval ${approvalId}` }).click();
    const detail = erin.getByTestId('approval-detail');
    await detail.waitFor();
    expect(await detail.getByTestId('review-amount').textContent()).toMatch(/150\.00/);
    expect(await detail.getByTestId('review-iban').textContent()).toMatch(/DE••.*3000/);
    expect(await detail.getByTestId('approval-maker').textContent()).toBe('Fran Finance');
    for (const theme of ['light', 'dark'] as const) {
      await setTheme(erin, theme);
      expect(describeViolations(await wcagViolations(erin)), `approval detail, ${theme}`).toBe('');
    }
    await setTheme(erin, 'light');
    await screenshot(erin, 'approval-detail');
    await detail.getByTestId('approval-confirm').check();
    await detail.getByRole('button', { name: 'Approve and send' }).click();
    await detail.getByTestId('approval-sent').waitFor({ timeout: 15_000 });
    await expect.poll(() => detail.getByTestId('approval-state').textContent()).toBe('Approved');

    // The second: rejected with a reason; Fran's list shows it at once.
    await erin.goto(`${server.origin}/#/approvals/${secondId}`);
    const other = erin.getByTestId('approval-detail');
    await other.waitFor();
    await other.getByRole('textbox', { name: 'Reason (to reject)' }).fill('Beneficiary not on file');
    await other.getByRole('button', { name: 'Reject' }).click();
    await expect.poll(() => fran.locator(`[data-approval-id="${secondId}"]`).getAttribute('data-state'), { timeout: 5_000 }).toBe('rejected');
    await screenshot(fran, 'approvals-mine');

    // Sent once for the approved one; never for the rejected one.
    const token = await teamToken(server.origin, 'erin');
    const payouts = await teamCall<{ items: { merchantReference: string }[] }>(server.origin, token, 'payouts:list', {});
    expect(payouts.items.filter((p) => p.merchantReference === 'team-approve-1')).toHaveLength(1);
    expect(payouts.items.filter((p) => p.merchantReference === 'team-reject-1')).toHaveLength(0);
    await fran.context().close();
    await erin.context().close();
  });

  it('sends a payout two approvers approve together once; the other sees who approved it and when, and the request as approved', async () => {
    const adminToken = await teamToken(server.origin, 'alice');
    await teamCall(server.origin, adminToken, 'approvals:set-policy', { environment: 'local', currency: 'EUR', mode: 'threshold', payoutAbove: '100', batchAbove: null });
    for (const [username, displayName, role] of [['hal', 'Hal Finance', 'finance'], ['ida', 'Ida Approver', 'approver'], ['jan', 'Jan Approver', 'approver']] as const) {
      await teamCall(server.origin, adminToken, 'team:create-user', { username, displayName, role, password: TEAM_PASSWORD });
    }
    const halToken = await teamToken(server.origin, 'hal');
    const profileId = (await teamCall<{ id: string; environment: string }[]>(server.origin, halToken, 'profiles:list')).find((p) => p.environment === 'local')!.id;
    const form = samplePayout('open_banking', { amount: '160.00', reference: 'team-race-1', profileId });
    const review = await teamCall<{ reviewId: string }>(server.origin, halToken, 'payouts:review', form);
    const approval = await teamCall<{ id: number }>(server.origin, halToken, 'approvals:request-payout', { ...form, reviewId: review.reviewId, confirmed: true });

    // Ida and Jan, each in a browser of their own, open it and both click Approve at once.
    const pages = { 'Ida Approver': await signInPage(browser, server.origin, 'ida'), 'Jan Approver': await signInPage(browser, server.origin, 'jan') };
    const details = Object.values(pages).map((page) => page.getByTestId('approval-detail'));
    for (const page of Object.values(pages)) await page.goto(`${server.origin}/#/approvals/${approval.id}`);
    for (const detail of details) {
      await detail.waitFor();
      await detail.getByTestId('approval-confirm').check();
    }
    await Promise.all(details.map((detail) => detail.getByRole('button', { name: 'Approve and send' }).click()));
    // One sends it; the other is told, in words, who approved it first and when.
    await expect.poll(async () => (await Promise.all(details.map((d) => d.getByTestId('approval-sent').count()))).sort(), { timeout: 15_000 }).toEqual([0, 1]);
    const winnerIndex = (await details[0]!.getByTestId('approval-sent').count()) === 1 ? 0 : 1;
    const winner = Object.keys(pages)[winnerIndex]!;
    const loserPage = Object.values(pages)[1 - winnerIndex]!;
    const loser = details[1 - winnerIndex]!;
    const refusal = loser.getByTestId('approval-error');
    await refusal.waitFor();
    expect(await refusal.textContent()).toMatch(new RegExp(`already approved by ${winner} at \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2} UTC .*your approval changed nothing and sent nothing`));
    expect(await refusal.textContent()).not.toMatch(/internal|unexpected|merchantReference/i);
    // The request as it now is: approved, by the other, with no buttons left to press.
    await expect.poll(() => loser.getByTestId('approval-state').textContent()).toBe('Approved');
    expect(await loser.getByText(winner, { exact: true }).count()).toBe(1);
    expect(await loser.getByRole('button', { name: 'Approve and send' }).count()).toBe(0);
    await screenshot(loserPage, 'approval-race-loser');

    const payouts = await teamCall<{ items: { merchantReference: string }[] }>(server.origin, halToken, 'payouts:list', {});
    expect(payouts.items.filter((p) => p.merchantReference === 'team-race-1')).toHaveLength(1);
    for (const page of Object.values(pages)) await page.context().close();
  });

  it('takes Withdraw away from a maker whose role is changed from finance to approver, on the open screen and after a reload; the server refuses it in the same words', async () => {
    const adminToken = await teamToken(server.origin, 'alice');
    const gina = await teamCall<{ id: string }>(server.origin, adminToken, 'team:create-user', { username: 'gina', displayName: 'Gina Finance', role: 'finance', password: TEAM_PASSWORD });
    await teamCall(server.origin, adminToken, 'approvals:set-policy', { environment: 'local', currency: 'EUR', mode: 'threshold', payoutAbove: '100', batchAbove: null });
    const page = await signInPage(browser, server.origin, 'gina');
    const review = await reviewPayout(page, 'team-withdraw-1', '165.00');
    await review.getByRole('button', { name: 'Submit for approval' }).click();
    const approvalId = Number(await page.getByTestId('submitted-for-approval').getAttribute('data-approval-id'));
    await page.goto(`${server.origin}/#/approvals/${approvalId}`);
    const detail = page.getByTestId('approval-detail');
    await detail.getByRole('button', { name: 'Withdraw' }).waitFor();

    // An admin makes Gina an approver while her screen is open: the push of her session takes the button away.
    await teamCall(server.origin, adminToken, 'team:update-user', { id: gina.id, role: 'approver' });
    await expect.poll(() => page.getByTestId('signed-in-role').textContent(), { timeout: 5_000 }).toBe('Approver');
    await expect.poll(() => detail.getByRole('button', { name: 'Withdraw' }).count(), { timeout: 5_000 }).toBe(0);
    expect(await detail.getByTestId('withdraw-note').textContent()).toBe('Withdrawing it is for Admin, Finance, Developer; your role is Approver.');
    await screenshot(page, 'approval-withdraw-after-role-change');
    await page.reload();
    await detail.getByTestId('withdraw-note').waitFor();
    expect(await detail.getByRole('button', { name: 'Withdraw' }).count()).toBe(0);
    // The server: the same refusal, in a person's words.
    const refused = await page.evaluate(async (id) => (await fetch('/rpc/approvals:withdraw', { method: 'POST', headers: { 'content-type': 'application/json', 'x-paydesk-csrf': '1' }, body: JSON.stringify({ input: { id } }) })).json(), approvalId);
    expect(refused).toMatchObject({ ok: false, error: { code: 'forbidden', message: 'Your role (Approver) may not do this: it is for Admin, Finance, Developer.' } });
    await page.context().close();
  });
  it("opens Settings at Team from a role change's notice for an admin, and at their own sign-in for the person whose role changed, below the header", async () => {
    const adminToken = await teamToken(server.origin, 'alice');
    const hank = await teamCall<{ id: string }>(server.origin, adminToken, 'team:create-user', { username: 'hank', displayName: 'Hank Support', role: 'support', password: TEAM_PASSWORD });
    await teamCall(server.origin, adminToken, 'team:update-user', { id: hank.id, role: 'developer' });
    const linkOf = async (username: string) =>
      (await teamCall<Inbox>(server.origin, await teamToken(server.origin, username), 'notices:list', { limit: 50 })).items.find((n) => n.title === 'Role changed: hank is now developer')?.link;
    for (const [username, section, title] of [['alice', 'team', 'Team'], ['hank', 'sign-in-settings', 'Your sign-in']] as const) {
      await expect.poll(() => linkOf(username), { timeout: 10_000 }).toBe('#/settings?section=team');
      const page = await signInPage(browser, server.origin, username);
      await page.goto(`${server.origin}/${(await linkOf(username))!}`);
      const card = page.getByTestId(section);
      await card.getByRole('heading', { name: title, exact: true }).waitFor();
      // What loads above it (the person's own sessions) has loaded, and has not pushed it away.
      await page.getByTestId('sign-in-settings').getByTestId('team-sessions').locator('tbody tr').first().waitFor();
      const header = (await page.locator('header').first().boundingBox())!;
      const heading = (await card.getByRole('heading', { name: title, exact: true }).boundingBox())!;
      expect(heading.y, `${username}: the ${title} heading below the header`).toBeGreaterThanOrEqual(header.y + header.height);
      expect(heading.y, `${username}: the ${title} heading at the top of the window`).toBeLessThan(header.y + header.height + 80);
      if (username === 'alice') expect(await page.evaluate(() => window.scrollY), 'Team lies below the first screen: the window scrolled').toBeGreaterThan(0);
      await screenshot(page, `settings-section-team-${username}`);
      await page.context().close();
    }
  });
});
