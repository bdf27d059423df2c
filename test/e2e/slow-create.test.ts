/// <reference lib="dom" />
// A slow create, as the person who sent it sees it: against gateway doubles
// on 127.0.0.1 that stall, answer 503 or 429 with Retry-After, then 200 (or never answer well),
// the screen shows live the try under way against the policy's bound, the time since the first
// try, what happens next (a Retry-After wait, the same key again, giving up as "unknown") and the
// policy. The pay-in and tokenize tabs of the playground go through a sandbox profile over http;
// New payout through a live profile over https (its certificate trusted by the app's process).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGateway, type FakeGateway } from '../integration/gateway/fake-gateway';
import { tempDir } from '../helpers/temp-dir';
import { launchBrowser, openApp, rpc, screenshot, startWebApp, type WebApp } from './harness';

let app: WebApp;
let browser: Browser;
let sandboxGateway: FakeGateway;
let liveGateway: FakeGateway;
let temp: { dir: string; cleanup: () => void };
let sandboxId: string;
let liveId: string;

/** A throwaway certificate for 127.0.0.1, trusted by the app's process only (NODE_EXTRA_CA_CERTS). */
function localCertificate(dir: string): { key: string; cert: string; certFile: string } {
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8'), certFile };
}

async function profile(name: string, environment: 'sandbox' | 'live', baseUrl: string): Promise<string> {
  // A public notification URL: with the loopback listener's, Paydesk would poll these transactions'
  // status, and a poll would take one of the answers scripted for the creates.
  const created = await rpc<{ id: string }>(app, 'profiles:create', { name, environment, baseUrl, merchantId: 'm-slow', merchantSiteId: 's-slow', notificationPublicUrl: 'https://hooks.shop.example/paydesk/' });
  await rpc(app, 'credentials:set-merchant-token', { profileId: created.id, token: 'slow-gateway-token-1' });
  return created.id;
}

beforeAll(async () => {
  temp = tempDir('paydesk-e2e-slow-');
  const tls = localCertificate(temp.dir);
  sandboxGateway = await startFakeGateway();
  liveGateway = await startFakeGateway({ tls: { key: tls.key, cert: tls.cert } });
  app = await startWebApp(path.join(temp.dir, 'data'), [], { NODE_EXTRA_CA_CERTS: tls.certFile });
  browser = await launchBrowser();
  sandboxId = await profile('Slow sandbox', 'sandbox', sandboxGateway.baseUrl);
  liveId = await profile('Slow live', 'live', liveGateway.baseUrl);
  await rpc(app, 'credentials:generate-key', { profileId: sandboxId });
});

afterAll(async () => {
  await browser?.close();
  const code = await app?.stop();
  if (code !== 0) console.log(app?.output());
  await sandboxGateway?.close();
  await liveGateway?.close();
  temp?.cleanup();
  expect(code).toBe(0);
});

/** The keys the double received, in order (each try of one attempt carries the same one). */
const keysSent = (gateway: FakeGateway, from: number) => gateway.requests.slice(from).map((r) => r.headers['idempotency-key']);

async function openPlayground(tab: string): Promise<{ page: Page; panel: Locator }> {
  const page = await openApp(browser, app, { live: true });
  await page.getByRole('navigation').getByRole('link', { name: 'Sandbox playground' }).click();
  await page.getByRole('tab', { name: tab }).click();
  const panel = page.getByRole('tabpanel', { name: tab });
  await panel.waitFor();
  return { page, panel };
}

const secondsElapsed = async (progress: Locator): Promise<number> => Number(/(\d+) s elapsed/.exec((await progress.getByTestId('attempt-elapsed').textContent()) ?? '')?.[1] ?? -1);

describe('a slow create shows its tries live', () => {
  it('playground pay-in: a stalled 503, a 429 with Retry-After, then 200 — the try number, the wait and the policy update as they happen', async () => {
    await rpc(app, 'profiles:activate', { id: sandboxId });
    const from = sandboxGateway.requests.length;
    sandboxGateway.script(
      { type: 'respond', status: 503, delayMs: 2_500, body: { status: 'error', reason_code: 'GATEWAY_UNAVAILABLE' } },
      { type: 'respond', status: 429, delayMs: 1_500, headers: { 'retry-after': '3' }, body: { status: 'error', reason_code: 'TRANSIENT_ERROR' } },
      { type: 'respond', status: 200, delayMs: 1_000, body: { status: 'success', status_code: 100, payin_id: 'pi-slow-1', redirect_url: 'https://pay.example/r/1' } },
    );
    const { page, panel } = await openPlayground('Pay-in');
    await panel.getByRole('button', { name: 'Send pay-in' }).click();

    const progress = panel.getByTestId('attempt-progress');
    // Try 1 is stalled by the gateway: its number against the bound, the policy, the time moving.
    await expect.poll(() => progress.getByTestId('attempt-try').textContent()).toBe('Try 1 of at most 5');
    const policy = (await progress.getByTestId('attempt-policy').textContent()) ?? '';
    expect(policy).toContain('sent again with the same Idempotency-Key');
    expect(policy).toContain('up to 5 tries, none starting later than 60 s after the first');
    expect(policy).toContain("the pay-in's outcome becomes “unknown”, not failed");
    expect(await progress.getByTestId('attempt-now').textContent()).toMatch(/^Try 1 sent(:| \d+ s ago: still) waiting for the gateway's answer \(each try waits up to 20 s\)\.$/);
    await expect.poll(() => secondsElapsed(progress), { timeout: 4_000 }).toBeGreaterThanOrEqual(1);
    await screenshot(page, 'slow-create-payin-try-1');

    // The 503 came back; after the backoff, try 2 goes out, saying what try 1 got.
    await expect.poll(() => progress.getByTestId('attempt-try').textContent(), { timeout: 6_000 }).toBe('Try 2 of at most 5');
    await expect.poll(() => progress.getByTestId('attempt-last-answer').textContent()).toBe('Last answer: HTTP 503 GATEWAY_UNAVAILABLE');

    // The 429 asks for 3 s: the screen says so and counts down to try 3.
    await expect.poll(() => progress.getByTestId('attempt-now').textContent(), { timeout: 4_000 }).toMatch(/try 3 starts in [1-3] s \(the gateway's Retry-After asked for 3 s\)/);
    expect(await progress.getAttribute('data-phase')).toBe('waiting');
    expect(await progress.getByTestId('attempt-now').textContent()).toContain('Retrying with the same Idempotency-Key and the same request');
    await screenshot(page, 'slow-create-payin-retry-after');
    const waited = await secondsElapsed(progress);
    expect(waited).toBeGreaterThanOrEqual(4);

    await expect.poll(() => progress.getByTestId('attempt-try').textContent(), { timeout: 6_000 }).toBe('Try 3 of at most 5');
    expect(await secondsElapsed(progress)).toBeGreaterThanOrEqual(waited);

    // Answered: the result replaces the progress, with the tries it took.
    const result = panel.getByTestId('send-result');
    await result.waitFor({ timeout: 10_000 });
    expect(await result.getAttribute('data-outcome')).toBe('succeeded');
    await expect.poll(() => result.textContent()).toContain('3 tries');
    expect(await progress.count()).toBe(0);
    const keys = keysSent(sandboxGateway, from);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
    await page.close();
  });

  it('playground tokenization: five 503s — it counts up to the last try, then gives up as "unknown"', async () => {
    await rpc(app, 'profiles:activate', { id: sandboxId });
    const from = sandboxGateway.requests.length;
    sandboxGateway.script(...Array.from({ length: 5 }, () => ({ type: 'respond' as const, status: 503, delayMs: 300, body: { status: 'error' } })));
    const { page, panel } = await openPlayground('Tokenize & charge');
    await panel.getByRole('checkbox', { name: /consent/ }).check();
    await panel.getByRole('button', { name: 'Tokenize card' }).click();

    const progress = panel.getByTestId('attempt-progress');
    await expect.poll(() => progress.getByTestId('attempt-try').textContent()).toMatch(/^Try [12] of at most 5$/);
    expect(await progress.getByTestId('attempt-policy').textContent()).toContain("the tokenization's outcome becomes “unknown”");
    // Backoff 0.5, 1, 2, 4 s between the tries: the last one is in view for a while.
    await expect.poll(() => progress.getByTestId('attempt-try').textContent(), { timeout: 12_000 }).toBe('Try 5 of at most 5');
    await screenshot(page, 'slow-create-tokenize-last-try');

    const result = panel.getByTestId('send-result');
    await result.waitFor({ timeout: 10_000 });
    expect(await result.getAttribute('data-outcome')).toBe('unknown');
    expect(await result.textContent()).toContain('no further try (max_tries) after 5 tries');
    const keys = keysSent(sandboxGateway, from);
    expect(keys).toHaveLength(5);
    expect(new Set(keys).size).toBe(1);
    await page.close();
  });

  it("a reload mid-send: the pay-in's own page picks the send up where it stands and follows it to the end", async () => {
    await rpc(app, 'profiles:activate', { id: sandboxId });
    sandboxGateway.script(
      { type: 'respond', status: 503, delayMs: 3_000, body: { status: 'error' } },
      { type: 'respond', status: 200, delayMs: 3_000, body: { status: 'success', status_code: 100, payin_id: 'pi-slow-2', redirect_url: 'https://pay.example/r/2' } },
    );
    const { page, panel } = await openPlayground('Pay-in');
    const requestId = await panel.getByRole('textbox', { name: 'request_id', exact: true }).inputValue();
    await panel.getByRole('button', { name: 'Send pay-in' }).click();
    await expect.poll(() => panel.getByTestId('attempt-try').textContent()).toBe('Try 1 of at most 5');

    // The page is reloaded: the send goes on in main; its pay-in's page catches up with it.
    await page.reload();
    await page.getByRole('heading', { name: 'Paydesk' }).waitFor();
    const { payin } = await rpc<{ payin: { id: number; attempt: { state: string } } }>(app, 'payins:get', { profileId: sandboxId, requestId });
    expect(payin.attempt.state).toBe('sending');
    await page.evaluate((id) => {
      window.location.hash = `#/payins/${id}`;
    }, payin.id);
    const progress = page.getByTestId('transaction-detail').getByTestId('attempt-progress');
    await expect.poll(() => progress.getByTestId('attempt-try').textContent()).toMatch(/^Try [12] of at most 5$/);
    expect(await progress.getByTestId('attempt-policy').textContent()).toContain("the pay-in's outcome becomes “unknown”");
    await expect.poll(() => progress.getByTestId('attempt-try').textContent(), { timeout: 6_000 }).toBe('Try 2 of at most 5');
    expect(await progress.getByTestId('attempt-last-answer').textContent()).toBe('Last answer: HTTP 503');
    await screenshot(page, 'slow-create-detail-after-reload');
    // Answered: the page shows the pay-in's status and no progress any more.
    await expect.poll(() => progress.count(), { timeout: 8_000 }).toBe(0);
    await page.close();
  });

  it('New payout on a live profile: the review shows the stalled try, then the next, with the payout policy', async () => {
    await rpc(app, 'profiles:activate', { id: liveId, confirmed: true });
    const from = liveGateway.requests.length;
    liveGateway.script(
      { type: 'respond', status: 503, delayMs: 2_500, body: { status: 'error', status_code: 'C501' } },
      { type: 'respond', status: 200, delayMs: 2_000, body: { status: 'success', status_code: 'P100', payout_id: 'po-slow-1', created_at: '2026-03-01T10:00:00Z' } },
    );
    const page = await openApp(browser, app, { live: true });
    await page.getByRole('navigation').getByRole('link', { name: 'Payouts' }).click();
    await page.getByRole('tab', { name: 'New payout' }).click();
    await page.locator('.mantine-SegmentedControl-root').getByText('Open banking', { exact: true }).click();
    const values: Record<string, string> = { Amount: '12.50', Currency: 'EUR', Country: 'DEU', 'First name': 'Ana', 'Last name': 'Lima', 'E-mail': 'ana@example.com', IBAN: 'DE89370400440532013000', BIC: 'COBADEFFXXX', 'Account holder': 'Ana Lima' };
    for (const [label, value] of Object.entries(values)) await page.getByRole('textbox', { name: label, exact: true }).fill(value);
    await page.getByRole('button', { name: 'Review payout' }).click();
    const review = page.getByTestId('payout-review');
    await review.waitFor();
    await review.getByRole('checkbox').check();
    await review.getByRole('button', { name: 'Send LIVE payout' }).click();

    const progress = page.getByTestId('attempt-progress');
    await expect.poll(() => progress.getByTestId('attempt-try').textContent()).toBe('Try 1 of at most 5');
    expect(await progress.getByTestId('attempt-policy').textContent()).toContain("the payout's outcome becomes “unknown”, not failed");
    await screenshot(page, 'slow-create-new-payout-try-1');
    await expect.poll(() => progress.getByTestId('attempt-try').textContent(), { timeout: 6_000 }).toBe('Try 2 of at most 5');
    expect(await progress.getByTestId('attempt-last-answer').textContent()).toBe('Last answer: HTTP 503');

    const result = page.getByTestId('payout-result');
    await result.waitFor({ timeout: 10_000 });
    expect(await result.getAttribute('data-outcome')).toBe('succeeded');
    expect(await progress.count()).toBe(0);
    const keys = keysSent(liveGateway, from);
    expect(keys).toHaveLength(2);
    expect(new Set(keys).size).toBe(1);
    await page.close();
  });
});
