// Team mode (issue 6), on the built team server (`node out/main/server.js`, what `npm run server`
// runs) and a PostgreSQL database of the benchmark's own, created here and dropped at the end:
//   1. --clients people signed in to one server as browsers (a session cookie each, and the
//      /events stream the web client reads); an admin renames a profile --changes times and each
//      rename's push reaches the others: the time from the request to each receipt (p50, p99).
//   2. Two instances on that database, one shared emulator (--emulator-url) and a round-robin
//      balancer in front of their notification listeners, as docs/team.md sets them up: a batch of
//      --rows payouts, the time to done, and each merchantReference once at the gateway and once in
//      the ledger.
//   3. The same with the instance running the batch killed with SIGKILL halfway: the other takes
//      it over once the dead one has not been heard from for --instance-timeout seconds.
//   node --import tsx bench/team.ts [--rows 1000] [--clients 20] [--changes 200] [--instance-timeout 2]
// No approval is involved: a fresh ledger has no approval policy, and a currency without a rule
// needs nothing (docs/team.md, "Approvals"); a batch that awaited one would fail the run.
// The servers, the emulator and the balancer are the team e2e tests' own harness, imported on
// purpose: the benchmark runs the team server exactly as those tests do.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { Dispatch } from '../src/main/ipc/dispatcher';
import type { BatchView } from '../src/shared/contract';
import { readEvents, startEmulatorProcess, startLoadBalancer, type EventReader } from '../test/e2e/scale-out-harness';
import { freePort } from '../test/e2e/harness';
import { prepareTeamServer, startTeamServer, TEAM_PASSWORD, teamCall, teamDispatch, teamToken, type TeamServerProcess, type TeamServerSetup } from '../test/e2e/team-harness';
import { cookieCall, signIn } from '../test/helpers/team';
import { createTestDatabase } from '../test/helpers/test-database';
import { batchRows, gatewayPayoutsByReference, getBatch, must, uploadBatch } from '../test/integration/batches/helpers';
import { arg, ensureBenchDir, log, percentile, report, round, type Figure } from './lib';

const rows = arg('rows', 1_000);
const clients = Math.max(2, arg('clients', 20));
const changes = arg('changes', 200);
const instanceTimeoutS = arg('instance-timeout', 2);
/** Renames before the measured ones: the first requests warm the server's code paths and pools. */
const WARM_UP_CHANGES = 10;
/** A push not received by then is counted as lost (and as this latency in the percentiles). */
const PUSH_TIMEOUT_MS = 5_000;
/** A batch's bound, from its upload: past it the time is reported as missed and the batch paused. */
const BATCH_TIMEOUT_MS = 60_000;
/** The whole run's bound: past it the benchmark cleans up and fails rather than hang bench/run.ts. */
const RUN_TIMEOUT_MS = 5 * 60_000;
/** Light on the servers measured: each poll is a signed-in request (a session lookup and the batch's view). */
const POLL_MS = 200;

// The machine's PostgreSQL (trust auth), unless the caller names another, as the tests find it.
process.env.PAYDESK_TEST_PG_ADMIN_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';

/** What the run started, undone in reverse order at the end, on failure and on a signal too. */
const cleanups: { name: string; undo: () => Promise<unknown> }[] = [];
const servers: TeamServerProcess[] = [];
/** The servers not yet seen to exit: the only pids the last-resort kill may touch. */
const live = new Set<TeamServerProcess>();

function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no end within ${ms / 1000} s`)), ms)));
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

const began = performance.now();
/** Progress with the time since the start, to see where a slow run spends it. */
function step(message: string): void {
  log(`${round((performance.now() - began) / 1000, 1)} s: ${message}`);
}

let cleaning: Promise<void> | undefined;
function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    for (const { name, undo } of cleanups.reverse()) await within(undo(), 20_000, name).catch((error: unknown) => log(`clean-up of ${name} failed: ${(error as Error).message}`));
  })();
  return cleaning;
}

/** SIGTERM, and SIGKILL if the server has not stopped in 10 s (it may be mid-batch). */
async function stopServer(server: TeamServerProcess): Promise<void> {
  await within(server.stop(), 10_000, `server ${server.pid}`).catch(() => server.kill());
  live.delete(server);
}

async function killServer(server: TeamServerProcess): Promise<void> {
  await server.kill();
  live.delete(server);
}

// A last resort for an exit that skipped the clean-up: no server is left running.
process.on('exit', () => {
  for (const server of live) {
    try {
      process.kill(server.pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void cleanUp().finally(() => process.exit(1)));
const watchdog = setTimeout(() => {
  log(`the run took over ${RUN_TIMEOUT_MS / 60_000} min: stopping`);
  void cleanUp().finally(() => process.exit(1));
}, RUN_TIMEOUT_MS);
watchdog.unref();

async function sleep(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `read` every POLL_MS until `done` holds or `ms` pass: the last value read, and whether it held. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms: number): Promise<{ value: T; met: boolean }> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return { value, met: true };
    if (Date.now() > deadline) return { value, met: false };
    await sleep(POLL_MS);
  }
}

interface Cluster {
  emulatorFile: string;
  /** Starts instance i (0: A, 1: B), stopped at the clean-up. */
  start(i: number): Promise<TeamServerProcess>;
  instanceId(i: number): string;
  query<T extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<T[]>;
}

/** The database, the key and first admin, the shared emulator, the notification balancer, and instance A running. */
async function prepareCluster(): Promise<Cluster> {
  const dir = mkdtempSync(path.join(ensureBenchDir(), 'team-'));
  cleanups.push({ name: 'the scratch directory', undo: async () => rmSync(dir, { recursive: true, force: true }) });
  const database = await createTestDatabase();
  cleanups.push({ name: `database ${database.name}`, undo: database.drop });
  const emulatorFile = path.join(dir, 'emulator.sqlite');
  const emulator = await startEmulatorProcess(emulatorFile);
  cleanups.push({ name: 'the emulator', undo: emulator.stop });
  const a = await prepareTeamServer(database.url, path.join(dir, 'a'), path.join(dir, 'envelope.key'));
  const setups = [a, { ...a, dataDir: path.join(dir, 'b'), port: await freePort(), notifyPort: await freePort() }];
  const balancer = await startLoadBalancer(setups.map((s) => s.notifyPort));
  cleanups.push({ name: 'the balancer', undo: balancer.close });
  step('database, emulator, key and first admin ready');
  const cluster: Cluster = {
    emulatorFile,
    async start(i) {
      const server = await startTeamServer(setups[i] as TeamServerSetup, ['--emulator-url', emulator.adminUrl, '--instance-timeout', String(instanceTimeoutS)]);
      servers.push(server);
      live.add(server);
      cleanups.push({ name: `instance ${'AB'[i]}`, undo: () => stopServer(server) });
      return server;
    },
    instanceId: (i) => readFileSync(path.join((setups[i] as TeamServerSetup).dataDir, 'instance-id'), 'utf8').trim(),
    async query(text, values = []) {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        return (await client.query(text, values)).rows;
      } finally {
        await client.end();
      }
    },
  };
  await cluster.start(0);
  const admin = await teamToken((servers[0] as TeamServerProcess).origin, 'alice');
  // The gateway's notifications reach whichever instance the balancer picks, as in production.
  const profiles = await teamCall<{ id: string; environment: string }[]>((servers[0] as TeamServerProcess).origin, admin, 'profiles:list');
  const local = profiles.find((p) => p.environment === 'local') as { id: string };
  await teamCall((servers[0] as TeamServerProcess).origin, admin, 'profiles:update', { id: local.id, patch: { notificationPublicUrl: `${balancer.origin}/` } });
  step('instance A started');
  return cluster;
}

/** A browser's session: signed in with the form's call, its cookie kept. */
async function browserSession(origin: string, username: string): Promise<string> {
  const answer = await signIn(origin, { username, password: TEAM_PASSWORD });
  if (!answer.cookie) throw new Error(`sign-in of ${username}: ${JSON.stringify(answer.body)}`);
  return answer.cookie;
}

async function browserCall<T>(origin: string, cookie: string, channel: string, input: unknown): Promise<T> {
  const { body } = await cookieCall(origin, cookie, channel, input);
  if (!body.ok) throw new Error(`${channel}: ${body.error.message}`);
  return body.value as T;
}

const ROLES = ['finance', 'support', 'approver', 'developer', 'admin'] as const;

/** Part 1: one admin's profile renames, timed to each other person's stream. */
async function measurePushes(origin: string): Promise<Figure[]> {
  const adminCookie = await browserSession(origin, 'alice');
  const people = Array.from({ length: clients - 1 }, (_, i) => `person${i + 1}`);
  for (const [i, username] of people.entries()) {
    await browserCall(origin, adminCookie, 'team:create-user', { username, displayName: `Person ${i + 1}`, role: ROLES[i % ROLES.length], password: TEAM_PASSWORD });
  }
  const others: EventReader[] = [];
  for (const username of people) others.push(await readEvents(origin, { cookie: await browserSession(origin, username) }));
  const own = await readEvents(origin, { cookie: adminCookie });
  step(`${clients} browsers signed in, their streams open`);
  const profile = await browserCall<{ id: string }>(origin, adminCookie, 'profiles:create', { name: 'Bench shop', environment: 'sandbox', baseUrl: 'https://sandbox.example.com/api/', merchantId: 'm-bench', merchantSiteId: 's-bench' });

  const latencies: number[] = [];
  let lost = 0;
  const started = performance.now();
  try {
    for (let i = 0; i < WARM_UP_CHANGES + changes; i++) {
      const name = `Bench shop ${i}`;
      const renamed = (data: unknown) => Array.isArray(data) && data.some((p: { name?: string }) => p.name === name);
      // Listening before the request: a push may arrive before its answer does.
      const arrivals = others.map((stream) => stream.next('profiles:profiles-changed', renamed, PUSH_TIMEOUT_MS).catch(() => null));
      const sent = Date.now();
      await browserCall(origin, adminCookie, 'profiles:update', { id: profile.id, patch: { name } });
      const received = await Promise.all(arrivals);
      if (i < WARM_UP_CHANGES) continue;
      for (const at of received) latencies.push(at === null ? PUSH_TIMEOUT_MS : at - sent);
      lost += received.filter((at) => at === null).length;
    }
  } finally {
    for (const stream of [...others, own]) stream.close();
  }
  latencies.sort((a, b) => a - b);
  const note = `${changes} profile renames by an admin × ${clients - 1} other browsers' /events streams = ${latencies.length} receipts, ${lost} lost (counted as ${PUSH_TIMEOUT_MS} ms), ${round((performance.now() - started) / 1000, 1)} s`;
  log(`pushes: p50 ${percentile(latencies, 0.5)} ms, p99 ${percentile(latencies, 0.99)} ms, max ${latencies.at(-1) ?? 0} ms; ${note}`);
  return [
    { name: `team push to ${clients - 1} other clients, p99`, value: percentile(latencies, 0.99), unit: 'ms', target: { op: '<', value: 500 }, note },
    { name: `team push to ${clients - 1} other clients, p50`, value: percentile(latencies, 0.5), unit: 'ms', note: `max ${latencies.at(-1) ?? 0} ms` },
  ];
}

interface BatchRun {
  seconds: number;
  /** False: the batch was not done within BATCH_TIMEOUT_MS (then paused, and `seconds` is that bound). */
  finished: boolean;
  batch: BatchView;
  /** References the gateway or the ledger holds more than once. */
  duplicates: string[];
  /** References held exactly once at the gateway and once in the ledger. */
  settled: number;
  ledgerRows: number;
  /** The kill, and how long after it the other instance had the batch. */
  takeover?: { killed: string; seconds: number };
}

/** Which of the two instances runs the batch now (batches.run_by), if either. */
async function runner(cluster: Cluster, batchId: number): Promise<number | undefined> {
  const [row] = await cluster.query<{ run_by: string | null }>('SELECT run_by FROM batches WHERE id = $1', [batchId]);
  return [0, 1].find((i) => cluster.instanceId(i) === row?.run_by);
}

/** How often the gateway and the ledger hold each reference. */
async function holdings(cluster: Cluster, references: string[]): Promise<Pick<BatchRun, 'duplicates' | 'settled' | 'ledgerRows'>> {
  const gateway = gatewayPayoutsByReference(cluster.emulatorFile);
  const rows = await cluster.query<{ merchant_reference: string; n: number }>('SELECT merchant_reference, count(*)::int AS n FROM payouts WHERE merchant_reference = ANY($1) GROUP BY merchant_reference', [references]);
  const ledger = new Map(rows.map((r) => [r.merchant_reference, r.n]));
  return {
    duplicates: references.filter((ref) => (gateway.get(ref) ?? 0) > 1 || (ledger.get(ref) ?? 0) > 1).map((ref) => `${ref}: gateway ${gateway.get(ref) ?? 0}, ledger ${ledger.get(ref) ?? 0}`),
    settled: references.filter((ref) => gateway.get(ref) === 1 && ledger.get(ref) === 1).length,
    ledgerRows: rows.reduce((sum, r) => sum + r.n, 0),
  };
}

/**
 * Kills the instance running the batch once half of it is sent (or a third of the batch's bound has
 * passed, so a slow batch is still cut mid-way within its bound); resolves when the other instance has it.
 */
async function killHalfway(cluster: Cluster, watch: Dispatch, batchId: number): Promise<{ watcher: number; takeover: NonNullable<BatchRun['takeover']> }> {
  const half = await until(() => getBatch(watch, batchId), (v) => v.counts.sent >= rows / 2 || v.state === 'done', BATCH_TIMEOUT_MS / 3);
  const victim = await runner(cluster, batchId);
  if (half.value.state === 'done' || victim === undefined) throw new Error(`no running batch to kill halfway (${half.value.state}, ${half.value.counts.sent} sent)`);
  const killedAt = performance.now();
  await killServer(servers[victim] as TeamServerProcess);
  const watcher = 1 - victim;
  const moved = await until(() => runner(cluster, batchId), (i) => i === watcher, BATCH_TIMEOUT_MS);
  if (!moved.met) throw new Error(`instance ${'AB'[watcher]} did not take the batch over within ${BATCH_TIMEOUT_MS / 1000} s`);
  return { watcher, takeover: { killed: `instance ${'AB'[victim]} after ${half.value.counts.sent} sent`, seconds: (performance.now() - killedAt) / 1000 } };
}

/** Parts 2 and 3: a batch uploaded through instance A, timed from its upload to done. */
async function runBatch(cluster: Cluster, label: string, kill: boolean): Promise<BatchRun> {
  const [a, b] = servers as [TeamServerProcess, TeamServerProcess];
  const bobs: [Dispatch, Dispatch] = [teamDispatch(a.origin, await teamToken(a.origin, 'bob')), teamDispatch(b.origin, await teamToken(b.origin, 'bob'))];
  const form = batchRows(rows, { prefix: `bench-team-${label}-${Date.now()}` });
  const t = performance.now();
  const started = await uploadBatch(bobs[0], form, { fileName: `${label}.csv` });
  if (started.state !== 'running') throw new Error(`the batch did not start (${started.state}): it should need no approval`);
  step(`batch ${label}: uploaded and started in ${round((performance.now() - t) / 1000, 2)} s`);
  const killed = kill ? await killHalfway(cluster, bobs[1], started.id) : undefined;
  const watch = killed?.watcher === 1 ? bobs[1] : bobs[0];
  const end = await until(() => getBatch(watch, started.id), (v) => v.state === 'done', BATCH_TIMEOUT_MS - (performance.now() - t));
  const seconds = (performance.now() - t) / 1000;
  // Not done in time: paused, so it does not run into the next measurement.
  const batch = end.met ? end.value : await must<BatchView>(watch, 'batches:pause', { id: started.id });
  const held = await holdings(cluster, form.map((r) => String(r.form.merchantReference)));
  log(`batch ${label}: ${end.met ? 'done' : `not done, paused`} after ${round(seconds, 2)} s, counts ${JSON.stringify(batch.counts)}, ${held.settled} settled, ${held.duplicates.length} duplicated, ${held.ledgerRows} ledger payouts${killed ? `; killed ${killed.takeover.killed}, taken over ${round(killed.takeover.seconds, 2)} s later` : ''}`);
  return { seconds, finished: end.met, batch, ...held, ...(killed ? { takeover: killed.takeover } : {}) };
}

function batchFigures(run: BatchRun, title: string): Figure[] {
  const { counts } = run.batch;
  const interruptions = run.batch.history.filter((event) => event.kind === 'interrupted').length;
  const kill = run.takeover ? `; killed ${run.takeover.killed}, the other had it ${round(run.takeover.seconds, 2)} s later (--instance-timeout ${instanceTimeoutS}), ${interruptions} interruption(s) recorded` : '';
  return [
    { name: `${title}: time`, value: round(run.seconds, 2), unit: 's', target: { op: '<', value: 10 }, note: `${run.finished ? 'from the upload to done' : `NOT done within ${BATCH_TIMEOUT_MS / 1000} s (then paused)`}${kill}` },
    { name: `${title}: references duplicated`, value: run.duplicates.length, unit: 'payouts', target: { op: '<', value: 1 }, note: run.duplicates.slice(0, 3).join('; ') || `none held twice at the gateway or in the ledger (${run.ledgerRows} ledger rows)` },
    { name: `${title}: payouts settled`, value: run.settled, unit: 'payouts', target: { op: '>=', value: rows }, note: `references held exactly once at the gateway and in the ledger; items sent ${counts.sent}, refused ${counts.refused}, unknown ${counts.unknown}, sending ${counts.sending}, pending ${counts.pending}` },
  ];
}

try {
  const cluster = await prepareCluster();
  const [a] = servers as [TeamServerProcess];
  const figures = await measurePushes(a.origin);
  const admin = await teamToken(a.origin, 'alice');
  await teamCall(a.origin, admin, 'team:create-user', { username: 'bob', displayName: 'Bob Finance', role: 'finance', password: TEAM_PASSWORD });
  await cluster.start(1);
  step('instance B started');
  const n = rows.toLocaleString('en');
  figures.push(...batchFigures(await runBatch(cluster, 'two', false), `2 instances, batch of ${n}`));
  figures.push(...batchFigures(await runBatch(cluster, 'kill', true), `2 instances, one killed -9, batch of ${n}`));
  await cleanUp();
  step('cleaned up');
  report(figures);
} catch (error) {
  log(`failed: ${(error as Error).stack ?? String(error)}`);
  for (const server of servers) log(`instance ${server.pid}, its last output:\n${server.output().slice(-2_000)}`);
  await cleanUp();
  process.exitCode = 1;
}
