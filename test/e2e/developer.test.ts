/// <reference lib="dom" />
// The developer's journeys, as a user: the sandbox playground (pay-in with a scenario, the hosted
// redirect page, tokenization and a token charge, JWT tools) and the webhook inspector, against
// the embedded emulator in web mode.
import type { Browser, Locator, Page } from 'playwright-core';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openLedger } from '../../src/main/ledger/connection';
import { openApp as openAppIn, pick, rpc, screenshot, useWebApp, type WebApp } from './harness';

let app: WebApp;
let browser: Browser;
let dataDir: string;

useWebApp('dev', (web) => ({ app, browser, dataDir } = web));

interface Profile {
  id: string;
  environment: string;
  notificationUrl: string;
  credentials: { privateKey: { set: boolean } };
}

const localProfile = async (): Promise<Profile> => {
  const profiles = await rpc<Profile[]>(app, 'profiles:list');
  const local = profiles.find((p) => p.environment === 'local');
  if (!local) throw new Error('no local profile');
  return local;
};

async function openPlayground(tab: string): Promise<{ page: Page; panel: Locator }> {
  const page = await openAppIn(browser, app);
  await page.getByRole('navigation').getByRole('link', { name: 'Sandbox playground' }).click();
  await page.getByRole('tab', { name: tab }).click();
  const panel = page.getByRole('tabpanel', { name: tab });
  await panel.waitFor();
  return { page, panel };
}

/** A full-page screenshot from the top (the app frame's header is fixed). */
async function shot(page: Page, name: string): Promise<void> {
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshot(page, name);
}

/** Picks an option of a Mantine select by typing part of it (searchable) or opening the list. */
async function choose(page: Page, scope: Locator, label: string, option: RegExp, search?: string): Promise<void> {
  const input = scope.getByRole('combobox', { name: label, exact: true });
  await input.click();
  if (search !== undefined) await input.fill(search);
  await page.getByRole('option', { name: option }).click();
}

describe('sandbox playground: pay-ins', () => {
  it('sends a card pay-in with scenario 302 and shows the raw exchange, then the 302 notification and its verification', async () => {
    const { page, panel } = await openPlayground('Pay-in');
    // A valid request is there from the start; the scenario sets the e-mail tag.
    expect(await panel.getByRole('textbox', { name: 'cardNum', exact: true }).inputValue()).toBe('4111111111111111');
    await choose(page, panel, 'Scenario', /^302 — Declined due to risk decision/, '302');
    await expect.poll(() => panel.getByRole('textbox', { name: 'email', exact: true }).inputValue()).toBe('ana.lima+s302@example.com');

    // The JSON view edits the same request; the CVV never appears in it.
    await panel.getByText('JSON', { exact: true }).click();
    const json = panel.getByRole('textbox', { name: /Pay-in request \(JSON\)/ });
    await expect.poll(() => json.inputValue()).toContain('"email": "ana.lima+s302@example.com"');
    expect(await json.inputValue()).toContain('"amount": 10.00');
    expect(await json.inputValue()).not.toContain('cardCvv');
    await json.fill((await json.inputValue()).replace('"amount": 10.00', '"amount": 12.34'));
    await panel.getByText('Form', { exact: true }).click();
    await expect.poll(() => panel.getByRole('textbox', { name: 'amount', exact: true }).inputValue()).toBe('12.34');

    await panel.getByRole('button', { name: 'Send pay-in' }).click();
    const result = panel.getByTestId('send-result');
    await expect.poll(() => result.getAttribute('data-outcome')).toBe('succeeded');
    const request = (await panel.getByTestId('raw-request').textContent()) ?? '';
    expect(request).toContain('"email": "ana.lima+s302@example.com"');
    expect(request).toContain('"amount": 12.34');
    expect(request).toContain('411111******1111');
    expect(request).not.toContain('4111111111111111');
    expect(request).toContain('"cardCvv": "[redacted]"');
    const response = (await panel.getByTestId('raw-response').textContent()) ?? '';
    expect(response).toContain('"status_code": 100');
    expect(response).toContain('"redirect_url"');

    const live = panel.getByTestId('live-panel');
    const notification = live.locator('[data-testid="live-notification"][data-status="302"]');
    await notification.waitFor();
    expect(await notification.getAttribute('data-outcome')).toBe('applied');
    await expect.poll(() => live.locator('[data-verification]').first().getAttribute('data-verification')).toBe('verified');
    await expect.poll(() => live.getByTestId('live-status-meaning').textContent()).toBe('302: Declined due to risk decision');
    // The CVV is asked for again on the next request.
    expect(await panel.getByLabel('cardCvv', { exact: true }).inputValue()).toBe('');
    await shot(page, 'playground');
    await page.close();
  });

  it('sends a pay-in with no scenario, approves it on the hosted redirect page and sees the notification arrive', async () => {
    const { page, panel } = await openPlayground('Pay-in');
    await choose(page, panel, 'Payment method', /Open banking/);
    await expect.poll(() => panel.getByRole('textbox', { name: 'cardNum', exact: true }).count()).toBe(0);
    await panel.getByRole('button', { name: 'Send pay-in' }).click();
    await expect.poll(() => panel.getByTestId('send-result').getAttribute('data-outcome')).toBe('succeeded');
    await panel.getByTestId('live-waiting').waitFor();

    const [hosted] = await Promise.all([page.context().waitForEvent('page', { timeout: 10_000 }), panel.getByRole('button', { name: 'Open redirect page' }).click()]);
    await hosted.getByRole('button', { name: 'Approve (200)' }).click();
    const live = panel.getByTestId('live-panel');
    await live.locator('[data-testid="live-notification"][data-status="200"]').waitFor();
    await expect.poll(() => live.locator('[data-verification]').first().getAttribute('data-verification')).toBe('verified');
    await hosted.close();
    await page.close();
  });
});

describe('sandbox playground: samples', () => {
  it('pre-fills each method with one coherent customer: an interac pay-in is Canadian, an fps payout British, and both are accepted', async () => {
    const { page, panel } = await openPlayground('Pay-in');
    const value = (scope: Locator, name: string) => scope.getByRole('textbox', { name, exact: true }).inputValue();
    await choose(page, panel, 'Payment method', /Interac/);
    await expect.poll(() => value(panel, 'country')).toBe('CAN');
    expect(await value(panel, 'currency')).toBe('CAD');
    expect(await value(panel, 'mobile')).toMatch(/^\+1\d{10}$/);
    expect([await value(panel, 'city'), await value(panel, 'zipCode')]).toEqual(['Toronto', 'M5H 2N2']);
    await panel.getByRole('button', { name: 'Send pay-in' }).click();
    await expect.poll(() => panel.getByTestId('send-result').getAttribute('data-outcome')).toBe('succeeded');
    await shot(page, 'playground-interac');

    await page.getByRole('tab', { name: 'Payout' }).click();
    const payout = page.getByRole('tabpanel', { name: 'Payout' });
    await choose(page, payout, 'Payout method', /Faster Payments/);
    await expect.poll(() => value(payout, 'currency')).toBe('GBP');
    expect(await value(payout, 'country')).toBe('GBR');
    expect(await value(payout, 'customer.phone')).toMatch(/^\+44/);
    expect(await value(payout, 'paymentDetails.sortCode')).toMatch(/^\d{6}$/);
    await payout.getByRole('button', { name: 'Send payout' }).click();
    await expect.poll(() => payout.getByTestId('send-result').getAttribute('data-outcome')).toBe('succeeded');
    await page.close();
  });
});

describe('sandbox playground: tokenization and token charge', () => {
  it('asks for a JWT key, tokenizes a card once consent is given, and charges the token with a CVV that is gone afterwards', async () => {
    const { page, panel } = await openPlayground('Tokenize & charge');
    // No key yet: the page says so and leads to Settings, where the user generates one.
    await panel.getByTestId('no-jwt-key').first().waitFor();
    expect(await panel.getByRole('button', { name: 'Tokenize card' }).isDisabled()).toBe(true);
    await panel.getByRole('button', { name: 'Open Settings' }).first().click();
    await page.getByRole('heading', { level: 2, name: 'Settings' }).waitFor();
    await page.locator('tr[data-profile="Local emulator"]').getByRole('button', { name: 'Credentials' }).click();
    await page.getByRole('button', { name: 'Generate Ed25519 key' }).click();
    await page.getByTestId('public-key').getByText('registered with the local emulator').waitFor();
    await page.getByRole('navigation').getByRole('link', { name: 'Sandbox playground' }).click();
    await page.getByRole('tab', { name: 'Tokenize & charge' }).click();
    await expect.poll(() => panel.getByTestId('no-jwt-key').count()).toBe(0);

    // Consent is required before anything is sent.
    const tokenize = panel.getByRole('button', { name: 'Tokenize card' });
    expect(await tokenize.isDisabled()).toBe(true);
    await panel.getByRole('checkbox', { name: /consent/ }).check();
    await tokenize.click();
    await expect.poll(() => panel.getByTestId('send-result').first().getAttribute('data-outcome')).toBe('succeeded');
    expect(await panel.getByTestId('raw-request').first().textContent()).not.toContain('4111111111111111');
    await panel.locator('[data-testid="live-notification"][data-status="200"]').first().waitFor();

    // The vaulted token appears (brand, first 6 / last 4, expiry) and is selected for the charge.
    const token = panel.getByTestId('vaulted-tokens').locator('tbody tr').first();
    await expect.poll(() => token.textContent()).toContain('411111******1111');
    expect(await token.textContent()).toContain('visa');
    await expect.poll(() => token.getByRole('radio').isChecked()).toBe(true);
    await expect.poll(() => panel.getByTestId('charge-token').textContent()).toContain('411111******1111');

    const cvv = panel.getByLabel('CVV', { exact: true });
    const charge = panel.getByRole('button', { name: 'Pay with token' });
    expect(await charge.isDisabled()).toBe(true);
    await cvv.fill('9071');
    await charge.click();
    // Cleared the moment the charge starts, whatever the answer.
    await expect.poll(() => cvv.inputValue()).toBe('');
    const chargeResult = panel.getByTestId('send-result').nth(1);
    await expect.poll(() => chargeResult.getAttribute('data-outcome')).toBe('succeeded');
    expect(await chargeResult.getByTestId('raw-request').textContent()).toContain('"cardCvv": "[redacted]"');
    await panel.getByTestId('live-panel').nth(1).waitFor();
    // Nowhere in the page (ids aside, whose hex digits could contain any 4 digits by chance).
    const text = (await page.content()).replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '');
    expect(text).not.toMatch(/(^|\D)9071(\D|$)/);
    await shot(page, 'tokenize');
    await page.close();
  });
});

describe('sandbox playground: JWT tools', () => {
  it('signs a decrypt JWT, flags a tampered copy as "signature invalid" with its iat skew, and survives hostile input', async () => {
    if (!(await localProfile()).credentials.privateKey.set) await rpc(app, 'credentials:generate-key', { profileId: (await localProfile()).id });
    const { page, panel } = await openPlayground('JWT tools');
    // With a key, the decoder says it checks the signature against it (without one it says it cannot: below).
    expect(await panel.getByText('Paste any string.').textContent()).toMatch(/The signature is checked against the public key of "Local emulator"/);
    await panel.getByRole('textbox', { name: '…or a token reference' }).fill('tok_e2e_reference');
    await panel.getByRole('button', { name: 'Sign JWT' }).click();
    const signed = panel.getByTestId('signed-jwt');
    await signed.waitFor();
    const jwt = ((await signed.getByTestId('signed-jwt-value').textContent()) ?? '').trim();
    expect(jwt.split('.')).toHaveLength(3);
    await expect.poll(() => panel.getByTestId('jwt-signature').first().textContent()).toBe('signature valid');

    // Someone edits the payload and keeps the signature.
    const [header, payload, signature] = jwt.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...claims, token: 'tok_forged' })).toString('base64url');
    const decode = panel.getByRole('textbox', { name: 'JWT', exact: true });
    await decode.fill(`${header}.${forged}.${signature}`);
    await panel.getByRole('button', { name: 'Decode', exact: true }).click();
    const decoded = panel.getByTestId('decoded-jwt').last();
    await expect.poll(() => decoded.getByTestId('jwt-signature').textContent()).toBe('signature invalid');
    expect(await decoded.getByTestId('jwt-signature-why').textContent()).toMatch(/does not verify/);
    const iat = decoded.getByTestId('jwt-iat');
    expect(Math.abs(Number(await iat.getAttribute('data-skew')))).toBeLessThanOrEqual(5);
    expect(await iat.textContent()).toMatch(/^iat skew [+-]?\d+ s · within ±120 s$/);
    expect(await decoded.textContent()).toContain('tok_forged');
    await shot(page, 'jwt-tools');

    // A tokenize JWT carries the card number, so main keeps it: only the masked decoded view comes back.
    await panel.getByText('op=tokenize (card)', { exact: true }).click();
    await panel.getByRole('button', { name: 'Sign JWT' }).click();
    await panel.getByTestId('jwt-withheld').waitFor();
    const masked = (await panel.getByTestId('decoded-jwt').first().textContent()) ?? '';
    expect(masked).toContain('"cardholder_number": "411111******1111"');
    expect(masked).not.toContain('4111111111111111');
    expect(await panel.getByTestId('signed-jwt').count()).toBe(0);

    // Hostile input: described, never a crash.
    await decode.fill('<script>alert(1)</script>');
    await panel.getByRole('button', { name: 'Decode', exact: true }).click();
    await expect.poll(() => panel.getByTestId('jwt-signature-why').last().textContent()).toMatch(/^Not a well-formed compact JWS: .+\. There is no signature to check, with or without a key\.$/);
    // Nothing could be checked, so nothing is called invalid.
    expect(await panel.getByTestId('jwt-signature').last().textContent()).toBe('malformed: cannot be checked');
    await decode.fill('x'.repeat(70_000));
    await panel.getByRole('button', { name: 'Decode', exact: true }).click();
    await expect.poll(() => panel.getByRole('alert').filter({ hasText: 'Could not decode' }).textContent()).toMatch(/65536/);
    expect(await page.getByRole('heading', { level: 2, name: 'Sandbox playground' }).isVisible()).toBe(true);
    // A profile without a key: the decoder does not claim to check a signature.
    const keyless = await rpc<{ id: string }>(app, 'profiles:create', { name: 'Keyless sandbox', environment: 'sandbox', baseUrl: 'https://sandbox.example/api/', merchantId: 'm-keyless', merchantSiteId: 's-keyless' });
    await rpc(app, 'profiles:activate', { id: keyless.id });
    try {
      const other = await openPlayground('JWT tools');
      await expect.poll(() => other.panel.getByText('Paste any string.').textContent()).toMatch(/"Keyless sandbox" has no JWT key, so no signature can be checked/);
      await other.page.close();
    } finally {
      await rpc(app, 'profiles:activate', { id: (await localProfile()).id });
      await rpc(app, 'profiles:delete', { id: keyless.id });
    }
    await page.close();
  });
});

describe('webhook inspector', () => {
  it('lists notifications with outcomes, shows a malformed one live with its raw body and headers, filters, and replays one', async () => {
    const page = await openAppIn(browser, app);
    await page.getByRole('navigation').getByRole('link', { name: 'Webhook inspector' }).click();
    const table = page.getByRole('table', { name: 'Notifications' });
    const rows = table.locator('[role="row"][data-row-key]');
    // From the journeys above: the 302 and 200 pay-in notifications and the tokenization one.
    await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(3);
    expect(await table.locator('[data-outcome="applied"]').count()).toBeGreaterThanOrEqual(3);

    // Someone posts garbage to the listener: it is kept, answered 400, and listed at once.
    const { notificationUrl } = await localProfile();
    const posted = await fetch(notificationUrl, { method: 'POST', headers: { 'content-type': 'application/json', 'x-e2e': 'garbage' }, body: 'this is not json' });
    expect(posted.status).toBe(400);
    const top = rows.first();
    await expect.poll(() => top.locator('[data-outcome]').last().getAttribute('data-outcome')).toBe('malformed');
    await top.click();
    const detail = page.getByTestId('notification-detail');
    await expect.poll(() => detail.getByTestId('notification-body').textContent()).toContain('this is not json');
    expect(await detail.textContent()).toContain('HTTP 400');
    expect(await detail.getByTestId('notification-headers').textContent()).toContain('garbage');
    expect(await detail.getByTestId('notification-outcome-detail').textContent()).toMatch(/not JSON/);

    // Filter by outcome (chips: clicking the label toggles its checkbox).
    const chip = async (outcome: string, checked: boolean) => {
      await page.getByRole('group', { name: 'Outcome' }).locator('label').filter({ hasText: new RegExp(`^${outcome}$`) }).click();
      await expect.poll(() => page.getByRole('checkbox', { name: outcome }).isChecked()).toBe(checked);
    };
    await chip('malformed', true);
    await expect.poll(async () => [...new Set(await table.locator('[data-outcome]').evaluateAll((els) => els.map((e) => e.getAttribute('data-outcome'))))]).toEqual(['malformed']);
    await chip('malformed', false);
    await chip('applied', true);
    await expect.poll(async () => [...new Set(await table.locator('[data-outcome]').evaluateAll((els) => els.map((e) => e.getAttribute('data-outcome'))))]).toEqual(['applied']);

    // Replay an applied pay-in notification: stored again as a copy, which changes nothing (duplicate).
    await rows.filter({ hasText: 'pay-in' }).first().click();
    await page.getByRole('button', { name: 'Replay into the ledger' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Replay', exact: true }).click();
    const replayed = page.getByTestId('replay-result');
    await expect.poll(() => replayed.locator('[data-outcome]').getAttribute('data-outcome')).toBe('duplicate');
    await chip('applied', false);
    await expect.poll(() => rows.first().locator('[data-outcome]').last().getAttribute('data-outcome')).toBe('duplicate');
    await shot(page, 'webhooks');
    await page.close();
  });

  it('shows a notification of an event outside the spec as an unknown event, never as a pay-in, and a replay does not apply it', async () => {
    // The listener keeps such a body as malformed; a later Paydesk might have stored one with its
    // event: written into the ledger file here, as that version would have.
    const { id: profileId } = await localProfile();
    const db = await openLedger({ file: path.join(dataDir, 'ledger.sqlite') });
    const body = Buffer.from(JSON.stringify({ event: 'v3_refund_notification', payin_id: 'p-refund', request_id: 'r-refund', status_code: 200 }));
    const at = new Date().toISOString();
    try {
      await db.run(
        `INSERT INTO notifications (profile_id, received_at, raw_headers, body, body_size, answer_status, event, transaction_ref, request_ref, status_code, outcome, processed_at)
         VALUES (?, ?, '[]', ?, ?, 200, 'v3_refund_notification', 'p-refund', 'r-refund', '200', 'orphan', ?)`,
        [profileId, at, body, body.length, at],
      );
    } finally {
      await db.close();
    }

    const page = await openAppIn(browser, app);
    await page.getByRole('navigation').getByRole('link', { name: 'Webhook inspector' }).click();
    const row = page.getByRole('table', { name: 'Notifications' }).locator('[role="row"][data-row-key]').filter({ hasText: 'p-refund' });
    expect(await row.locator('[data-category="unknown_event"]').textContent()).toBe('200 · unknown event');
    expect(await row.locator('[data-category="success"]').count()).toBe(0);
    await row.click();
    const detail = page.getByTestId('notification-detail');
    await expect.poll(() => detail.locator('[data-category="unknown_event"]').count()).toBe(1);
    // Its facts name no pay-in field: the event says nothing about whose ids these are.
    expect(await detail.getByRole('table').first().textContent()).not.toMatch(/payin_id|request_id/);
    await page.getByRole('button', { name: 'Replay into the ledger' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Replay', exact: true }).click();
    const replayed = page.getByTestId('replay-result');
    await expect.poll(() => replayed.locator('[data-outcome]').getAttribute('data-outcome')).toBe('malformed');
    expect(await replayed.textContent()).toContain('unknown event v3_refund_notification');
    await page.close();
  });

  it('shows its total, finds notifications by the start of a reference and by status, and combines every filter, live', async () => {
    const { notificationUrl } = await localProfile();
    const tag = `srch-${Math.random().toString(36).slice(2, 8)}`;
    const post = async (body: Record<string, unknown>) => expect((await fetch(notificationUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).status).toBe(200);
    const payin = (n: number, status: number) => ({ event: 'v2_payin_notification', status: 'success', status_code: status, request_id: `${tag}-in-${n}`, payin_id: `pid-${tag}-${n}`, amount: '10.00', currency: 'EUR' });
    // None of these is in the ledger: each is kept as an orphan, as a real gateway's early notification would be.
    await post(payin(1, 302));
    await post(payin(2, 200));
    await post({ event: 'v2_payout_notification', status: 'success', status_code: 'P200', merchantReference: `${tag}-out-1`, payout_id: `po-${tag}-1`, amount: '5.00', currency: 'EUR' });
    const count = async (filters: Record<string, unknown>) => (await rpc<{ total: number }>(app, 'notifications:count', filters)).total;
    await expect.poll(() => count({ search: tag, outcomes: ['orphan'] })).toBe(3);

    const page = await openAppIn(browser, app);
    await page.getByRole('navigation').getByRole('link', { name: 'Webhook inspector' }).click();
    const total = page.getByTestId('notifications-total');
    const rows = page.getByRole('table', { name: 'Notifications' }).locator('[role="row"][data-row-key]');
    const everything = await count({});
    await expect.poll(() => total.textContent()).toBe(`${everything} notifications`);
    const shown = async () => (await rows.allTextContents()).map((text) => /(pid|po)-srch-\w+-\d/.exec(text)?.[0] ?? text);

    // By the start of a request_id / merchantReference; the payout's is found by its payout_id.
    await page.getByRole('textbox', { name: 'Search' }).fill(tag);
    await expect.poll(() => total.textContent()).toBe('3 notifications match');
    await expect.poll(shown).toEqual([`po-${tag}-1`, `pid-${tag}-2`, `pid-${tag}-1`]);
    // Status and search together, then event and search.
    await pick(page, 'Status', /^302 · /);
    await expect.poll(() => total.textContent()).toBe('1 notification match');
    await expect.poll(shown).toEqual([`pid-${tag}-1`]);
    await page.getByRole('combobox', { name: 'Status', exact: true }).click();
    await page.getByRole('option', { name: /^302 · / }).click();
    await page.keyboard.press('Escape');
    await pick(page, 'Event', /^v2_payout_notification$/);
    await expect.poll(() => total.textContent()).toBe('1 notification match');
    await expect.poll(shown).toEqual([`po-${tag}-1`]);
    await page.getByRole('textbox', { name: 'Search' }).fill(`po-${tag}`);
    await expect.poll(shown).toEqual([`po-${tag}-1`]);

    // Live: one that fits joins (and counts), one that does not stays out.
    await page.getByRole('textbox', { name: 'Search' }).fill(tag);
    // Backspace takes the chosen event off (its pill covers the field), then the other is picked.
    await page.getByRole('combobox', { name: 'Event', exact: true }).focus();
    await page.keyboard.press('Backspace');
    await pick(page, 'Event', /^v2_payin_notification$/);
    await expect.poll(() => total.textContent()).toBe('2 notifications match');
    await post(payin(3, 200));
    await post({ ...payin(4, 200), request_id: `other-${tag}`, payin_id: `other-${tag}` });
    await expect.poll(() => total.textContent()).toBe('3 notifications match');
    await expect.poll(shown).toEqual([`pid-${tag}-3`, `pid-${tag}-2`, `pid-${tag}-1`]);

    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => total.textContent()).toBe(`${everything + 2} notifications`);
    expect(await page.getByRole('textbox', { name: 'Search' }).inputValue()).toBe('');
    await page.close();
  });
});
