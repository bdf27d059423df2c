// Two team-server instances on one PostgreSQL ledger, as docs/team.md sets them up
// (one shared emulator, a load balancer in front of their notification listeners, a data directory
// each). A batch of 1,000 payouts is run while the instance running it is killed with SIGKILL at
// seeded random moments (3 kills; PAYDESK_LONG=1: 6), each time started again as its operator
// would: at once, or once the other instance has taken the batch over (its heartbeat stopped).
// Then: every payout reached the gateway exactly once; an instance starting while the other runs
// the batch leaves it alone (the batch records one interruption per kill, none per start); every notification is stored once (kept
// once per dedupe key; a redelivery after a cut-off answer is a duplicate); the audit chain
// verifies; each takeover's history names the instance that took the batch over, when, and the one
// killed. And a person on instance A sees a change made through instance B within a second; a
// browser whose instance is killed goes on with the other: its stream resumes there, and its page
// reloads (the other instance cannot replay pushes it did not number) and shows what changed meanwhile.
import { mkdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dispatch } from '../../src/main/ipc/dispatcher';
import { openLedger } from '../../src/main/ledger/connection';
import { createRepositories } from '../../src/main/ledger/repositories/index';
import { describeBatchEvent } from '../../src/renderer/features/payouts/batch-events';
import { formatTime } from '../../src/renderer/features/transactions/format';
import type { BatchEventView, BatchView, Envelope } from '../../src/shared/contract';
import { batchRows, exactlyOnceProblems, gatewayPayoutsByReference, getBatch, uploadBatch } from '../integration/batches/helpers';
import { waitFor } from '../helpers/poll';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database';
import { tempDir } from '../helpers/temp-dir';
import { announceSeed, LONG, Rng, suiteSeed } from '../reliability/helpers/seed';
import { freePort, launchBrowser, screenshot } from './harness';
import { readEvents, startEmulatorProcess, startLoadBalancer, type EmulatorProcess, type LoadBalancer } from './scale-out-harness';
import { prepareTeamServer, signInPage, startTeamServer, TEAM_PASSWORD, teamCall, teamToken, type TeamServerProcess, type TeamServerSetup } from './team-harness';

const ROWS = 1_000;
const KILLS = LONG ? 6 : 3;
const INSTANCE_TIMEOUT_S = 3;

let database: TestDatabase;
let temp: ReturnType<typeof tempDir>;
let emulator: EmulatorProcess;
let balancer: LoadBalancer;
let emulatorFile: string;
const setups: TeamServerSetup[] = [];
const running: (TeamServerProcess | undefined)[] = [undefined, undefined];
const runs: TeamServerProcess[] = [];

beforeAll(async () => {
  temp = tempDir('paydesk-e2e-scale-out-');
  database = await createTestDatabase();
  emulatorFile = path.join(temp.dir, 'emulator.sqlite');
  emulator = await startEmulatorProcess(emulatorFile);
  for (const name of ['a', 'b']) mkdirSync(path.join(temp.dir, name), { recursive: true });
  const a = await prepareTeamServer(database.url, path.join(temp.dir, 'a'), path.join(temp.dir, 'envelope.key'));
  setups.push(a, { ...a, dataDir: path.join(temp.dir, 'b'), port: await freePort(), notifyPort: await freePort() });
  balancer = await startLoadBalancer(setups.map((s) => s.notifyPort));
}, 120_000);

afterAll(async () => {
  for (const run of runs) await run.stop();
  await balancer?.close();
  await emulator?.stop();
  await database?.drop();
  temp?.cleanup();
});

async function start(i: number): Promise<TeamServerProcess> {
  const server = await startTeamServer(setups[i] as TeamServerSetup, ['--emulator-url', emulator.adminUrl, '--instance-timeout', String(INSTANCE_TIMEOUT_S)]);
  running[i] = server;
  runs.push(server);
  return server;
}

const instanceId = (i: number) => readFileSync(path.join((setups[i] as TeamServerSetup).dataDir, 'instance-id'), 'utf8').trim();

/** A person's dispatch over an instance's HTTP, for the batch helpers; the instance may be down a moment. */
const dispatchTo = (i: number, token: () => string): Dispatch => async (channel, input) => {
  const server = running[i] as TeamServerProcess;
  const response = await fetch(`${server.origin}/rpc/${channel}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token()}` }, body: JSON.stringify({ input }) });
  return (await response.json()) as Envelope<unknown>;
};

async function query<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

describe('two team-server instances on one PostgreSQL ledger', () => {
  it('shows a person on instance A a change made through instance B within a second', async () => {
    const [a, b] = [await start(0), await start(1)];
    const aliceOnA = await teamToken(a.origin, 'alice');
    const aliceOnB = await teamToken(b.origin, 'alice');
    const stream = await readEvents(a.origin, aliceOnA);
    try {
      for (const theme of ['dark', 'light', 'dark'] as const) {
        const arrived = stream.next('settings:settings-changed', (data) => (data as { theme?: string }).theme === theme, 5_000);
        const sent = Date.now();
        await teamCall(b.origin, aliceOnB, 'settings:update', { theme });
        const latency = (await arrived) - sent;
        console.log(`scale-out: alice's ${theme} theme set through B reached her stream on A after ${latency} ms`);
        expect(latency).toBeLessThan(1_000);
      }
    } finally {
      stream.close();
    }
  }, 60_000);

  it('moves a browser whose instance is killed to the other: its stream resumes there, the page reloads and shows what changed meanwhile, and the pushes arrive again', async () => {
    const [a, b] = running as [TeamServerProcess, TeamServerProcess];
    // Active-passive in front of the app ports: everything to A while it takes connections, then to B.
    const front = await startLoadBalancer([a, b].map((server) => Number(new URL(server.origin).port)), 'first');
    const browser = await launchBrowser();
    try {
      await teamCall(b.origin, await teamToken(b.origin, 'alice'), 'settings:update', { theme: 'light' });
      const page = await signInPage(browser, front.origin, 'alice');
      const scheme = () => page.locator('html').getAttribute('data-mantine-color-scheme');
      await expect.poll(scheme).toBe('light');
      expect(front.passed.get(Number(new URL(b.origin).port)) ?? 0).toBe(0);
      // This document's mark: gone once the page has reloaded.
      await page.evaluate(() => ((window as unknown as { before?: boolean }).before = true));
      const reloaded = page.waitForEvent('load', { timeout: 20_000 });
      await a.kill();
      running[0] = undefined;
      // A change made while the page's stream was down: its push went nowhere this page could hear.
      await teamCall(b.origin, await teamToken(b.origin, 'alice'), 'settings:update', { theme: 'dark' });
      // The browser's EventSource reconnects (to B, through the balancer) with A's last push id: B
      // cannot replay what it never numbered, so it tells the page, which reloads and reads afresh.
      await reloaded;
      expect(await page.evaluate(() => (window as unknown as { before?: boolean }).before)).toBeUndefined();
      await page.getByTestId('signed-in-person').waitFor();
      await expect.poll(scheme).toBe('dark');
      // And the pushes reach it again: a change through B shows without a reload.
      await page.evaluate(() => ((window as unknown as { before?: boolean }).before = true));
      await teamCall(b.origin, await teamToken(b.origin, 'alice'), 'settings:update', { theme: 'light' });
      await expect.poll(scheme, { timeout: 5_000 }).toBe('light');
      expect(await page.evaluate(() => (window as unknown as { before?: boolean }).before)).toBe(true);
      await screenshot(page, 'team-scale-out-after-failover');
    } finally {
      await browser.close();
      await front.close();
      if (!running[0]) await start(0);
    }
  }, 90_000);

  it(`runs a batch of ${ROWS} payouts while the instance running it is killed ${KILLS} times: each payout at the gateway once, each notification stored once, the audit chain whole`, async () => {
    const seed = suiteSeed();
    const seedText = announceSeed('team-scale-out', seed);
    const rng = new Rng(seed);
    const began = Date.now();
    const admin = await teamToken((running[0] as TeamServerProcess).origin, 'alice');
    // Notifications reach whichever instance the load balancer picks.
    const profiles = await teamCall<{ id: string; environment: string }[]>((running[0] as TeamServerProcess).origin, admin, 'profiles:list');
    const local = profiles.find((p) => p.environment === 'local') as { id: string };
    await teamCall((running[0] as TeamServerProcess).origin, admin, 'profiles:update', { id: local.id, patch: { notificationPublicUrl: `${balancer.origin}/` } });
    await teamCall((running[0] as TeamServerProcess).origin, admin, 'team:create-user', { username: 'bob', displayName: 'Bob Finance', role: 'finance', password: TEAM_PASSWORD });
    const tokens = [await teamToken((running[0] as TeamServerProcess).origin, 'bob'), await teamToken((running[1] as TeamServerProcess).origin, 'bob')];
    const bob = (i: number) => dispatchTo(i, () => tokens[i] as string);

    const rows = batchRows(ROWS, { prefix: `scale-out-${seed}` });
    const batch = await uploadBatch(bob(0), rows, { fileName: 'scale-out.csv' });
    const kills: string[] = [];
    /** Each takeover: the instance that took the batch over, and the one killed. */
    const takeovers: { by: string; from: string }[] = [];
    for (let k = 0; k < KILLS; k++) {
      const runner = instanceId(0) === (await query<{ run_by: string }>('SELECT run_by FROM batches WHERE id = $1', [batch.id]))[0]?.run_by ? 0 : 1;
      const other = 1 - runner;
      const sentBefore = (await getBatch(bob(other), batch.id)).counts.sent;
      const target = Math.min(ROWS - 100, sentBefore + rng.int(20, Math.floor(ROWS / (KILLS + 1))));
      await waitFor(() => getBatch(bob(other), batch.id), (b) => b.counts.sent >= target, `${target} payouts sent before kill ${k + 1}`, 60_000);
      await (running[runner] as TeamServerProcess).kill();
      running[runner] = undefined;
      // Every other kill, the operator is slow: the other instance takes the batch over first.
      const takenOver = k % 2 === 1;
      if (takenOver) {
        await waitFor(async () => (await query<{ run_by: string }>('SELECT run_by FROM batches WHERE id = $1', [batch.id]))[0]?.run_by, (by) => by === instanceId(other), `instance ${other} to take the batch over`, 30_000);
        takeovers.push({ by: instanceId(other), from: instanceId(runner) });
      }
      // Then the killed instance starts again (after a takeover, while the other runs the batch).
      tokens[runner] = await teamToken((await start(runner)).origin, 'bob');
      kills.push(`kill ${k + 1}: instance ${runner === 0 ? 'A' : 'B'} after ${target} sent${takenOver ? ', taken over by the other before its restart' : ', restarted at once'}`);
    }

    const done = await waitFor(() => getBatch(bob(0), batch.id), (b: BatchView) => b.state === 'done', 'the batch to finish', 120_000);
    expect(done.counts, seedText).toMatchObject({ sent: ROWS, sending: 0, unknown: 0, pending: 0 });
    // One interruption per kill: a start while the other instance ran the batch took nothing of it.
    expect(done.history.filter((event) => event.kind === 'interrupted').length, seedText).toBe(KILLS);
    // Each takeover is told as one, naming the instance that took the batch over, when, and the one killed.
    for (const { by, from } of takeovers) {
      const resumed = done.history.find((event) => event.kind === 'resumed' && event.instance?.id === by && event.runnerBefore?.id === from);
      expect(resumed, `${seedText}: the takeover by ${by}`).toBeDefined();
      expect(describeBatchEvent(resumed as BatchEventView).title).toBe(`Taken over by instance ${by.slice(0, 8)} (${os.hostname()}) at ${formatTime((resumed as BatchEventView).at)}: instance ${from.slice(0, 8)} (${os.hostname()}) had stopped`);
    }
    expect(done.history.map((event) => describeBatchEvent(event).title).join(' | '), seedText).not.toMatch(/Paydesk started again/);
    const references = rows.map((r) => String(r.form.merchantReference));
    expect(exactlyOnceProblems(gatewayPayoutsByReference(emulatorFile), references), seedText).toEqual([]);

    // Every payout's final notification arrives (through either instance), and each is kept once.
    await waitFor(
      async () => (await query<{ n: number }>("SELECT count(DISTINCT payout_row_id)::int AS n FROM notifications WHERE payout_row_id IS NOT NULL AND status_code = 'P200' AND outcome <> 'duplicate'"))[0]?.n,
      (n) => n === ROWS,
      'every payout\'s final notification',
      60_000,
    );
    const twice = await query('SELECT dedupe_key, count(*)::int AS kept FROM notifications WHERE outcome <> \'duplicate\' GROUP BY dedupe_key HAVING count(*) > 1');
    expect(twice, seedText).toEqual([]);
    const byInstance = [...balancer.passed.values()];
    expect(byInstance.length, 'notifications reached both instances').toBe(2);

    for (const server of running) await server?.stop();
    running.fill(undefined);
    const ledger = await openLedger({ url: database.url });
    try {
      expect(await createRepositories(ledger).audit.verify(), seedText).toMatchObject({ ok: true });
    } finally {
      await ledger.close();
    }
    const deadlocks = runs.filter((run) => /deadlock detected/.test(run.output())).length;
    console.log(`team-scale-out: ${ROWS} payouts, ${kills.length} kills (${kills.join('; ')}), notifications through the balancer ${byInstance.join(' / ')}, ${deadlocks} runs logging a deadlock, ${Date.now() - began} ms`);
  }, 300_000);
});
