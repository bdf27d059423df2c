/// <reference lib="dom" />
// A batch that survived crashes says so on its page: the app in web mode runs a CSV batch, is
// killed with SIGKILL mid-batch, started again (the batch resumes by itself), then closed normally
// mid-batch and started again. The batch page shows its history: the start, the unexpected stop
// (when, what was in flight), the automatic resume, the close, the second resume, the end; and it
// explains why sent payouts still wait for their final state after the batch ends.
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BATCH_CHUNK_ROWS, type BatchView } from '../../src/shared/contract';
import { batchRows } from '../integration/batches/helpers';
import { waitFor } from '../helpers/poll';
import { tempDir } from '../helpers/temp-dir';
import { launchBrowser, openApp, rpc, screenshot, startWebApp, type WebApp } from './harness';

const ROWS = 500;
let app: WebApp | undefined;
let browser: Browser;
let temp: { dir: string; cleanup: () => void };
let dataDir: string;

beforeAll(async () => {
  temp = tempDir('paydesk-e2e-batch-history-');
  dataDir = path.join(temp.dir, 'data');
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  const code = await app?.stop();
  temp?.cleanup();
  expect(code).toBe(0);
});

const batch = (id: number) => rpc<BatchView>(app as WebApp, 'batches:get', { id });
/** Waits until more payouts than `after` are sent (the batch is under way in this run). */
const sentBeyond = (id: number, after: number) => waitFor(() => batch(id), (b) => b.counts.sent > after || b.state === 'done', `more than ${after} payouts sent`, 30_000);

describe('the batch page after crashes', () => {
  it('shows each interruption and resume in the batch history, and why payouts wait for verification', { timeout: 180_000 }, async () => {
    app = await startWebApp(dataDir);
    const rows = batchRows(ROWS, { prefix: `e2e-history-${Date.now()}` });
    const draft = await rpc<BatchView>(app, 'batches:create', { fileName: 'crashes.csv', rows: ROWS });
    for (let i = 0; i < rows.length; i += BATCH_CHUNK_ROWS) await rpc(app, 'batches:add-items', { id: draft.id, items: rows.slice(i, i + BATCH_CHUNK_ROWS) });
    await rpc(app, 'batches:start', { id: draft.id });

    // Killed mid-batch: nothing is closed, nothing recorded at the time.
    const beforeKill = await sentBeyond(draft.id, 0);
    expect(beforeKill.state).toBe('running');
    expect(await app.kill()).toBe('SIGKILL');

    // Started again: the batch goes on by itself; then closed normally while it runs.
    app = await startWebApp(dataDir);
    const beforeClose = await sentBeyond(draft.id, (await batch(draft.id)).counts.sent);
    expect(beforeClose.state).toBe('running');
    expect(await app.stop()).toBe(0);

    app = await startWebApp(dataDir);
    const done = await waitFor(() => batch(draft.id), (b) => b.state === 'done', 'the batch to finish', 120_000);
    expect(done.history.map((e) => `${e.kind}:${e.cause ?? e.actor}`)).toEqual([
      'started:user',
      'interrupted:unexpected',
      'resumed:system',
      'interrupted:closed',
      'resumed:system',
      'finished:system',
    ]);

    const page = await openApp(browser, app, { live: true });
    await page.evaluate((id) => {
      window.location.hash = `#/payouts?tab=batch&batch=${id}`;
    }, draft.id);
    const progress = page.getByTestId('batch-progress');
    await progress.waitFor();
    expect(await progress.getAttribute('data-batch-state')).toBe('done');
    expect(await progress.getByTestId('batch-interruptions').textContent()).toBe('2 interruptions');
    const history = progress.getByTestId('batch-history');
    await expect.poll(() => history.getByRole('heading').textContent()).toBe('History · survived 2 interruptions');
    const events = history.getByTestId('batch-event');
    expect(await events.evaluateAll((items) => items.map((i) => `${i.getAttribute('data-kind')}:${i.getAttribute('data-actor')}`))).toEqual([
      'started:user',
      'interrupted:system',
      'resumed:system',
      'interrupted:system',
      'resumed:system',
      'finished:system',
    ]);
    const crash = events.nth(1);
    expect(await crash.textContent()).toContain('Interrupted: Paydesk stopped without closing (killed, crashed or power lost)');
    // The time is in the user's locale (and time zone), to the second.
    expect(await crash.textContent()).toMatch(/It stopped after .*\d:\d\d:\d\d.*, the batch's last recorded activity, and was found at the next start\. \d+ payouts? in flight \(sent, answer not recorded\), \d+ payouts? not sent yet/);
    expect(await events.nth(2).textContent()).toContain('Resumed automatically when Paydesk started again');
    expect(await events.nth(3).textContent()).toContain('Interrupted: Paydesk was closed while the batch was running');
    expect(await events.nth(5).textContent()).toContain('Finished: every payout was sent and answered');

    // Why sent payouts still wait after the end: a notification, confirmed by a status read.
    const finalStates = progress.getByTestId('batch-final-states');
    const explanation = (await finalStates.textContent()) ?? '';
    expect(explanation).toContain("comes later from the gateway's v2_payout_notification");
    expect(explanation).toContain('Paydesk confirms each one with a status read before it shows the final state');
    expect(explanation).toMatch(/So far: \d+ paid \(P200\) · \d+ failed · \d+ waiting for their final state/);
    await history.scrollIntoViewIfNeeded();
    await screenshot(page, 'batch-history-after-crashes');

    // The list of recent batches says it too.
    expect(await page.getByRole('table', { name: 'Recent batches' }).textContent()).toContain('survived 2 interruptions');
    await page.close();
  });
});
