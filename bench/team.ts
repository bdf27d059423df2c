// Team mode, on the built team server (`node out/main/server.js`, what `npm run server`
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
//   4. With --people N (0 by default): N people signed in to instance A as browsers (a
//      cookie session and an /events stream each) work at a human pace for --work-seconds: a pause of
//      1–3 s, then a filtered pay-ins page, a search, a payouts page, a re-read of their last payout;
//      one in five is finance and every second action of theirs is a payout (review, then create).
//      Meanwhile a batch of --rows payouts runs and the gateway's notifications reach the listener at
//      --notify-rate/s (200) through the balancer. RPC p99 of reads and of writes, and errors; the
//      floor: a bare node:http server answering every call with {"ok":true}, under the same N people
//      doing the same, right after.
//   5. With --people, after part 3 (the killed instance started again): the same people through a
//      round-robin balancer in front of both instances' app ports, one instance killed -9 halfway:
//      the survivor's p99 from the kill on, the calls the kill cut, each payout created held once;
//      and each person's event stream through the balancer, reopened as a browser's is (3 s after
//      a cut, from the last id): the streams the kill cut, how long each was down, every one back.
//   node --import tsx bench/team.ts [--rows 1000] [--clients 20] [--changes 200] [--instance-timeout 2]
//     [--people 0] [--work-seconds 30] [--notify-rate 200]
// No approval is involved: a fresh ledger has no approval policy, and a currency without a rule
// needs nothing (docs/team.md, "Approvals"); a batch that awaited one would fail the run.
// The servers, the emulator and the balancer are the team e2e tests' own harness, imported on
// purpose: the benchmark runs the team server exactly as those tests do.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { Dispatch } from '../src/main/ipc/dispatcher';
import type { BatchView } from '../src/shared/contract';
import { serverSentEvents } from '../src/main/services/team/team-link';
import { STREAM_GAP_EVENT } from '../src/shared/web-stream';
import { readEvents, startEmulatorProcess, startLoadBalancer, type EventReader } from '../test/e2e/scale-out-harness';
import { freePort } from '../test/e2e/harness';
import { prepareTeamServer, startTeamServer, TEAM_PASSWORD, teamCall, teamDispatch, teamToken, type TeamServerProcess, type TeamServerSetup } from '../test/e2e/team-harness';
import { browserSession, cookieCall } from '../test/helpers/team';
import { createTestDatabase } from '../test/helpers/test-database';
import { batchRows, gatewayPayoutsByReference, getBatch, uploadBatch } from '../test/integration/batches/helpers';
import { must } from '../test/helpers/calls';
import { payoutForm } from '../test/helpers/fixtures';
import { arg, ensureBenchDir, log, percentile, prng, report, round, runLoad, type Figure, type LoadResult } from './lib';

const rows = arg('rows', 1_000);
const clients = Math.max(2, arg('clients', 20));
const changes = arg('changes', 200);
const instanceTimeoutS = arg('instance-timeout', 2);
const people = arg('people', 0);
const workSeconds = arg('work-seconds', 30);
const notifyRate = arg('notify-rate', 200);
/** RPC p99 of reads and of writes under fifty people at work: the targets. */
const READ_P99_MS = 100;
const WRITE_P99_MS = 300;
/** Renames before the measured ones: the first requests warm the server's code paths and pools. */
const WARM_UP_CHANGES = 10;
/** A push not received by then is counted as lost (and as this latency in the percentiles). */
const PUSH_TIMEOUT_MS = 5_000;
/** A batch's bound, from its upload: past it the time is reported as missed and the batch paused. */
const BATCH_TIMEOUT_MS = 60_000;
/** The whole run's bound: past it the benchmark cleans up and fails rather than hang bench/run.ts. */
const RUN_TIMEOUT_MS = (5 + (people > 0 ? 3 + (2 * arg('work-seconds', 30)) / 60 : 0)) * 60_000;
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

async function browserCall<T>(origin: string, cookie: string, channel: string, input: unknown): Promise<T> {
  const { body } = await cookieCall(origin, cookie, channel, input);
  if (!body.ok) throw new Error(`${channel}: ${body.error.message}`);
  return body.value as T;
}

const ROLES = ['finance', 'support', 'approver', 'developer', 'admin'] as const;

/** Part 1: one admin's profile renames, timed to each other person's stream. */
async function measurePushes(origin: string): Promise<Figure[]> {
  const adminCookie = await browserSession(origin, 'alice', TEAM_PASSWORD);
  const people = Array.from({ length: clients - 1 }, (_, i) => `person${i + 1}`);
  for (const [i, username] of people.entries()) {
    await browserCall(origin, adminCookie, 'team:create-user', { username, displayName: `Person ${i + 1}`, role: ROLES[i % ROLES.length], password: TEAM_PASSWORD });
  }
  const others: EventReader[] = [];
  for (const username of people) others.push(await readEvents(origin, { cookie: await browserSession(origin, username, TEAM_PASSWORD) }));
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

/**
 * A person's /events stream, read for one thing: each 'payouts:payout-changed' push of a payout
 * created by another person at work (`created`: reference → when its create was sent, and by whom);
 * the time from that send to this receipt goes into `pushes`. Lighter than the harness's
 * EventReader, whose waiters would rescan every push of the running batch in this process.
 */
async function timePushes(origin: string, cookie: string, me: number, created: Map<string, { sent: number; by: number }>, pushes: number[]): Promise<() => void> {
  const controller = new AbortController();
  const response = await fetch(`${origin}/events`, { headers: { cookie }, signal: controller.signal });
  if (!response.ok || !response.body) throw new Error(`${origin}/events answered ${response.status}`);
  const seen = new Set<string>();
  const body = response.body;
  void (async () => {
    try {
      for await (const frame of serverSentEvents(body)) {
        if (frame.event !== 'payouts:payout-changed') continue;
        const reference = /"merchantReference":"([^"]+)"/.exec(frame.data)?.[1];
        const origin = reference === undefined ? undefined : created.get(reference);
        if (reference === undefined || origin === undefined || origin.by === me || seen.has(reference)) continue;
        seen.add(reference);
        pushes.push(performance.now() - origin.sent);
      }
    } catch {
      // closed
    }
  })();
  return () => controller.abort();
}

/** How long Chromium's EventSource waits before it reopens a dropped stream (the server sends no `retry:`). */
const RECONNECT_MS = 3_000;

interface FollowedStream {
  /** Whether the stream is open now. */
  readonly open: boolean;
  /** Each time it was down: ms from the cut to its reopening. */
  readonly downtimes: number[];
  /** Gap events received: the pushes it resumed from were another instance's (a page would reload). */
  readonly gaps: number;
  close(): void;
}

/**
 * A person's /events stream kept open as a browser's EventSource keeps it: when it is cut, reopened
 * RECONNECT_MS later from the last id received (Last-Event-ID), at most 20 times. Resolves once the
 * first opening is answered.
 */
async function followStream(origin: string, cookie: string): Promise<FollowedStream> {
  const controller = new AbortController();
  const state: { -readonly [K in keyof FollowedStream]: FollowedStream[K] } = { open: false, downtimes: [], gaps: 0, close: () => controller.abort() };
  let lastId: string | null = null;
  let cutAt: number | null = null;
  let opened!: () => void;
  const first = new Promise<void>((resolve) => (opened = resolve));
  void (async () => {
    for (let attempt = 0; attempt < 20 && !controller.signal.aborted; attempt++) {
      try {
        const response: Response = await fetch(`${origin}/events`, { headers: { cookie, ...(lastId ? { 'last-event-id': lastId } : {}) }, signal: controller.signal });
        if (!response.ok || !response.body) throw new Error(`${origin}/events answered ${response.status}`);
        state.open = true;
        opened();
        if (cutAt !== null) state.downtimes.push(performance.now() - cutAt);
        cutAt = null;
        for await (const frame of serverSentEvents(response.body)) {
          if (frame.id) lastId = frame.id;
          if (frame.event === STREAM_GAP_EVENT) state.gaps++;
        }
      } catch {
        // cut, refused, or closed by close()
      }
      if (controller.signal.aborted) return;
      if (state.open) cutAt = performance.now();
      state.open = false;
      await sleep(RECONNECT_MS);
    }
  })();
  await within(first, 10_000, `${origin}/events`);
  return state;
}

/** One RPC as a browser sends it (cookie, CSRF header), timed; whether it answered ok. */
async function timedCall(origin: string, cookie: string, channel: string, input: unknown, calls?: WorkDone['calls']): Promise<{ ms: number; ok: boolean; value: unknown }> {
  const t = performance.now();
  const answer = await cookieCall(origin, cookie, channel, input).then(
    ({ body }) => ({ ok: body.ok, value: body.ok ? body.value : body.error.message }),
    (error: unknown) => ({ ok: false, value: (error as Error).message }),
  );
  const end = performance.now();
  calls?.push({ at: end, ms: end - t, ok: answer.ok });
  return { ms: end - t, ...answer };
}

interface WorkDone {
  reads: number[];
  writes: number[];
  errors: string[];
  /** Every call: when it ended (performance.now()), its time, whether it answered ok. */
  calls: { at: number; ms: number; ok: boolean }[];
  /** The merchantReference of every payout a person tried to create. */
  references: string[];
}

/** `sessions` people working for `seconds` at a human pace against `origin` (the team server, or the bare floor). */
async function work(origin: string, sessions: { cookie: string; finance: boolean }[], profileId: string, seconds: number, label: string, sentAt?: Map<string, { sent: number; by: number }>): Promise<WorkDone> {
  const done: WorkDone = { reads: [], writes: [], errors: [], calls: [], references: [] };
  const deadline = performance.now() + seconds * 1000;
  const random = prng(label.length + sessions.length);
  const person = async (who: { cookie: string; finance: boolean }, i: number) => {
    let lastReference: string | null = null;
    let n = 0;
    // A person's first action comes at a random moment of the first pause, so they do not start together.
    await sleep(random(2_000));
    while (performance.now() < deadline) {
      n++;
      const read = async (channel: string, input: unknown) => {
        const answer = await timedCall(origin, who.cookie, channel, input, done.calls);
        done.reads.push(answer.ms);
        if (!answer.ok) done.errors.push(`${channel}: ${String(answer.value)}`);
      };
      if (who.finance && n % 2 === 0) {
        const form = payoutForm('open_banking', { amount: '10.00', reference: `people-${label}-${i}-${n}`, profileId });
        const review = await timedCall(origin, who.cookie, 'payouts:review', form, done.calls);
        done.reads.push(review.ms);
        const reviewId = (review.value as { reviewId?: string } | null)?.reviewId ?? 'floor';
        if (!review.ok) done.errors.push(`payouts:review: ${String(review.value)}`);
        else {
          done.references.push(String(form.merchantReference));
          sentAt?.set(String(form.merchantReference), { sent: performance.now(), by: i });
          const created = await timedCall(origin, who.cookie, 'payouts:create', { ...form, reviewId, confirmed: true }, done.calls);
          done.writes.push(created.ms);
          if (!created.ok) done.errors.push(`payouts:create: ${String(created.value)}`);
          lastReference = String(form.merchantReference);
        }
      } else {
        switch (n % 4) {
          case 0:
          case 1:
            await read('payins:list', { profileId, statusCodes: ['200', '517'], methods: ['credit_card', 'open_banking'], limit: 50 });
            break;
          case 2:
            await read('payins:list', { profileId, search: `req-${random(1_000)}`, limit: 50 });
            break;
          default:
            await read('payouts:list', { profileId, ...(lastReference ? { search: lastReference } : {}), limit: 50 });
        }
      }
      await sleep(1_000 + random(2_000));
    }
  };
  await Promise.all(sessions.map(person));
  done.reads.sort((a, b) => a - b);
  done.writes.sort((a, b) => a - b);
  return done;
}

/** Part 4: --people at work on instance A, with a batch running and notifications at --notify-rate/s; then the bare floor. */
async function measurePeopleAtWork(origin: string): Promise<{ figures: Figure[]; sessions: { cookie: string; finance: boolean }[]; profileId: string; floorP99: number }> {
  const adminCookie = await browserSession(origin, 'alice', TEAM_PASSWORD);
  const profiles = await browserCall<{ id: string; environment: string; notificationUrl: string }[]>(origin, adminCookie, 'profiles:list', undefined);
  const local = profiles.find((p) => p.environment === 'local') as { id: string; notificationUrl: string };
  const sessions: { cookie: string; finance: boolean }[] = [];
  const streams: (() => void)[] = [];
  const created = new Map<string, { sent: number; by: number }>();
  const pushes: number[] = [];
  for (let i = 0; i < people; i++) {
    const username = `worker${i + 1}`;
    const finance = i % 5 === 0;
    await browserCall(origin, adminCookie, 'team:create-user', { username, displayName: `Worker ${i + 1}`, role: finance ? 'finance' : (['support', 'approver', 'developer'] as const)[i % 3], password: TEAM_PASSWORD });
    const cookie = await browserSession(origin, username, TEAM_PASSWORD);
    streams.push(await timePushes(origin, cookie, i, created, pushes));
    sessions.push({ cookie, finance });
  }
  step(`${people} people signed in, their streams open`);
  const bob = teamDispatch(origin, await teamToken(origin, 'bob'));
  const form = batchRows(rows, { prefix: `bench-people-${Date.now()}` });
  let result: WorkDone;
  let notified: LoadResult;
  let batchState = 'not started';
  try {
    const batch = await uploadBatch(bob, form, { fileName: 'people.csv' });
    batchState = batch.state;
    const notifications = new URL(local.notificationUrl);
    notifications.hostname = '127.0.0.1';
    [result, notified] = await Promise.all([
      work(origin, sessions, local.id, workSeconds, 'team', created),
      // Enough connections that the pace holds while acknowledgements take up to ~80 ms (each connection waits for its answer).
      runLoad({ url: notifications.toString(), kind: 'notification', connections: Math.max(4, Math.ceil(notifyRate / 12)), seconds: workSeconds, extra: ['--rate', String(notifyRate)] }),
    ]);
    const end = await until(() => getBatch(bob, batch.id), (v) => v.state === 'done', BATCH_TIMEOUT_MS);
    batchState = end.met ? 'done' : `${end.value.state} (paused)`;
    if (!end.met) await must<BatchView>(bob, 'batches:pause', { id: batch.id });
    // The last pushes of the last payouts: a little time to arrive.
    await sleep(1_000);
  } finally {
    for (const close of streams) close();
  }
  // Each payout created is one push to each other person: one never received counts as PUSH_TIMEOUT_MS.
  const expected = [...created.values()].length * (people - 1);
  const lostPushes = Math.max(0, expected - pushes.length);
  const pushTimes = [...pushes, ...Array.from({ length: lostPushes }, () => PUSH_TIMEOUT_MS)].sort((x, y) => x - y);
  step(`people at work: ${result.reads.length} reads, ${result.writes.length} writes, ${result.errors.length} errors; ${notified.ok} notifications (${notified.failed} failed); batch ${batchState}`);
  const floor = await bareFloor(sessions.length, workSeconds, sessions.map((s) => s.finance));
  const note = `${people} people (${sessions.filter((s) => s.finance).length} finance) for ${workSeconds} s, 1–3 s between actions; a batch of ${rows.toLocaleString('en')} (${batchState}); ${notified.ok} notifications paced at ${notifyRate}/s, ${round(notified.ok / workSeconds)}/s achieved (${notified.failed} failed, p99 ${notified.p99_ms} ms)`;
  const figures: Figure[] = [
    { name: `${people} people at work: push of a payout to the other ${people - 1}`, value: round(percentile(pushTimes, 0.99), 1), unit: 'ms p99', target: { op: '<', value: 500 },
      note: `${created.size} payouts created × ${people - 1} others = ${expected} pushes expected, ${pushes.length} received (${lostPushes} lost, counted as ${PUSH_TIMEOUT_MS} ms), p50 ${round(percentile(pushTimes, 0.5), 1)} ms; from the create's send to the receipt of its 'payouts:payout-changed'` },
    { name: `${people} people at work: RPC reads`, value: round(percentile(result.reads, 0.99), 1), unit: 'ms p99', target: { op: '<', value: READ_P99_MS }, baseline: round(percentile(floor.reads, 0.99), 2),
      note: `${result.reads.length} reads, p50 ${round(percentile(result.reads, 0.5), 1)} ms; ${note}; baseline: a bare node:http server under the same people` },
    { name: `${people} people at work: RPC writes (payout created)`, value: round(percentile(result.writes, 0.99), 1), unit: 'ms p99', target: { op: '<', value: WRITE_P99_MS }, baseline: round(percentile(floor.writes, 0.99), 2),
      note: `${result.writes.length} payouts created, p50 ${round(percentile(result.writes, 0.5), 1)} ms; baseline: the bare server` },
    // A run in which no payout was created has not measured writes: that counts as an error too.
    { name: `${people} people at work: errors`, value: result.errors.length + (result.writes.length === 0 ? 1 : 0), unit: 'calls', target: { op: '<', value: 1 },
      note: [...result.errors.slice(0, 3), ...(result.writes.length === 0 ? ['no payout was created: writes not measured'] : [])].join('; ') || 'none' },
  ];
  return { figures, sessions, profileId: local.id, floorP99: round(percentile([...floor.reads, ...floor.writes].sort((a, b) => a - b), 0.99), 2) };
}

/**
 * Part 5: the same people through a round-robin balancer in front of both instances' app ports
 * (each call to the next instance, a refused connection to the other: sessions are the
 * database's), the first of them killed -9 halfway through --work-seconds. The survivor's p99 from the
 * kill on, the calls the kill cut, and each payout a person created held once at the gateway and
 * in the ledger.
 */
async function measureTakeover(cluster: Cluster, sessions: { cookie: string; finance: boolean }[], profileId: string, floorP99: number): Promise<Figure[]> {
  const [a, b] = servers.slice(-2) as [TeamServerProcess, TeamServerProcess];
  const balancer = await startLoadBalancer([a, b].map((server) => Number(new URL(server.origin).port)));
  cleanups.push({ name: 'the app balancer', undo: balancer.close });
  // Each person's stream through the balancer (round robin: about half of them land on A).
  const streams = await Promise.all(sessions.map((session) => followStream(balancer.origin, session.cookie)));
  let killedAt = Number.POSITIVE_INFINITY;
  const killer = (async () => {
    await sleep((workSeconds * 1000) / 2);
    killedAt = performance.now();
    await killServer(a);
    step(`people through the balancer: the instance at ${a.origin} killed -9`);
  })();
  const result = await work(balancer.origin, sessions, profileId, workSeconds, 'takeover');
  await killer;
  // A stream cut at the end of the work still has its retry to make.
  await until(async () => streams.filter((stream) => !stream.open).length, (down) => down === 0, RECONNECT_MS + 5_000);
  for (const stream of streams) stream.close();
  const cutStreams = streams.filter((stream) => stream.downtimes.length > 0 || !stream.open);
  const downtimes = streams.flatMap((stream) => stream.downtimes).sort((x, y) => x - y);
  const notBack = streams.filter((stream) => !stream.open).length;
  const gaps = streams.reduce((sum, stream) => sum + stream.gaps, 0);
  const after = result.calls.filter((c) => c.at > killedAt);
  const survivor = after.filter((c) => c.ok).map((c) => c.ms).sort((x, y) => x - y);
  const cut = result.calls.filter((c) => !c.ok).length;
  const reviewedElsewhere = result.errors.filter((error) => /has expired or is unknown|was given for another/.test(error)).length;
  const held = await holdings(cluster, result.references);
  step(`takeover: ${result.calls.length} calls, ${after.length} after the kill, ${cut} failed; ${result.references.length} payouts tried, ${held.settled} settled, ${held.duplicates.length} duplicated`);
  const note = `${sessions.length} people through a round-robin balancer over 2 instances for ${workSeconds} s, one killed -9 at ${workSeconds / 2} s`;
  return [
    { name: `${sessions.length} people, 2 instances, one killed -9: survivor's RPC p99 from the kill`, value: round(percentile(survivor, 0.99), 1), unit: 'ms p99', baseline: floorP99,
      note: `${survivor.length} calls answered after the kill, p50 ${round(percentile(survivor, 0.5), 1)} ms; ${note}; baseline: the bare server's p99 under the same people (part 4)` },
    { name: `${sessions.length} people, 2 instances, one killed -9: calls failed`, value: cut, unit: 'calls',
      note: `cut by the kill (in flight on A) or refused; ${result.errors.slice(0, 2).join('; ') || 'none'}` },
    { name: `${sessions.length} people, 2 instances, one killed -9: sends refused for a review made on the other instance`, value: reviewedElsewhere, unit: 'sends', target: { op: '<', value: 1 },
      note: 'a round-robin balancer has no affinity: a payout reviewed on one instance (or on the killed one) is sent through the other, which honours the review kept in the ledger (docs/team.md)' },
    { name: `${sessions.length} people, 2 instances, one killed -9: event streams not reconnected`, value: notBack, unit: 'streams', target: { op: '<', value: 1 },
      note: `${cutStreams.length} of ${streams.length} streams cut by the kill (on A through the balancer), ${downtimes.length} reopened on the survivor: down p50 ${round(percentile(downtimes, 0.5))} ms, max ${round(downtimes.at(-1) ?? 0)} ms (a browser's ${RECONNECT_MS / 1000} s retry included); ${gaps} told they have a gap (resumed from A's pushes: their pages reload)` },
    { name: `${sessions.length} people, 2 instances, one killed -9: payouts duplicated`, value: held.duplicates.length, unit: 'payouts', target: { op: '<', value: 1 },
      note: held.duplicates.slice(0, 3).join('; ') || `${result.references.length} payouts tried, ${held.settled} held exactly once at the gateway and in the ledger, none twice` },
  ];
}

/** The floor of part 4: a bare node:http server answering every call {"ok":true,"value":null}, under the same people doing the same. */
async function bareFloor(count: number, seconds: number, finance: boolean[]): Promise<WorkDone> {
  const { createServer } = await import('node:http');
  const body = '{"ok":true,"value":null}';
  const bare = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length }).end(body));
  });
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  try {
    const origin = `http://127.0.0.1:${(bare.address() as { port: number }).port}`;
    return await work(origin, Array.from({ length: count }, (_, i) => ({ cookie: 'paydesk_session=bare', finance: finance[i] ?? false })), 'bare-profile', seconds, 'bare');
  } finally {
    bare.closeAllConnections();
    await new Promise<void>((resolve) => bare.close(() => resolve()));
  }
}

try {
  const cluster = await prepareCluster();
  const [a] = servers as [TeamServerProcess];
  const figures = await measurePushes(a.origin);
  const admin = await teamToken(a.origin, 'alice');
  await teamCall(a.origin, admin, 'team:create-user', { username: 'bob', displayName: 'Bob Finance', role: 'finance', password: TEAM_PASSWORD });
  const atWork = people > 0 ? await measurePeopleAtWork(a.origin) : undefined;
  if (atWork) figures.push(...atWork.figures);
  await cluster.start(1);
  step('instance B started');
  const n = rows.toLocaleString('en');
  figures.push(...batchFigures(await runBatch(cluster, 'two', false), `2 instances, batch of ${n}`));
  figures.push(...batchFigures(await runBatch(cluster, 'kill', true), `2 instances, one killed -9, batch of ${n}`));
  if (atWork) {
    // The instance the batch's kill took down, started again on its data directory.
    const dead = servers.findIndex((server) => !live.has(server));
    if (dead >= 0) await cluster.start(dead);
    step('both instances running again');
    figures.push(...(await measureTakeover(cluster, atWork.sessions, atWork.profileId, atWork.floorP99)));
  }
  await cleanUp();
  step('cleaned up');
  report(figures);
} catch (error) {
  log(`failed: ${(error as Error).stack ?? String(error)}`);
  for (const server of servers) log(`instance ${server.pid}, its last output:\n${server.output().slice(-2_000)}`);
  await cleanUp();
  process.exitCode = 1;
}
