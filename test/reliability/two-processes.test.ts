// Two Paydesk processes on one PostgreSQL ledger can never send the same intent twice. Each child is a whole core with its own pool,
// driven through the contract (helpers/peer-child.ts); both reach the one emulator through one
// proxy, which counts what arrives, and each child counts what it sent itself:
//   (a) one starts a batch and the other resumes it as soon as the first has sent, so both run it: their claims compete
//       (FOR UPDATE SKIP LOCKED), both send, and every payout reaches the gateway exactly once,
//       under one key, sent once in all;
//   (b) an attempt whose outcome is unknown (its sends never reached the gateway) is resumed by
//       both at the same moment, then another is settled by both settlers at once: each goes out
//       at most once (the attempt's compare-and-set under its row lock), and the gateway holds it once.
// PostgreSQL only: a SQLite ledger is one file for one desk.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../../src/emulator/index';
import { BATCH_CHUNK_ROWS, type BatchView, type Envelope, type SubmitResult } from '../../src/shared/contract';
import { payoutForm } from '../helpers/fixtures';
import { testDatabaseFor, testEngine } from '../helpers/ledger';
import { until, waitFor } from '../helpers/poll';
import { tempDir } from '../helpers/temp-dir';
import { batchRows, exactlyOnceProblems } from '../integration/batches/helpers';
import { killAllStarted, startChild, type RunningChild } from './helpers/child';
import { startLatencyProxy, type LatencyProxy } from './helpers/latency-proxy';
import type { PeerChildConfig } from './helpers/peer-child';
import { countBy, gatewayState, ledgerIntegrityProblems, withLedger } from './helpers/stores';

const PEER_SCRIPT = path.join(import.meta.dirname, 'helpers/peer-child.ts');
/** Made in beforeAll: nothing is left behind on the SQLite run, where the suite is skipped. */
let temp: ReturnType<typeof tempDir>;
const title = testEngine === 'postgres' ? 'two processes on one PostgreSQL ledger' : 'two processes on one PostgreSQL ledger (PostgreSQL run only)';

interface Peer {
  name: string;
  child: RunningChild;
  call<T>(channel: string, input?: unknown): Promise<Envelope<T>>;
  must<T>(channel: string, input?: unknown): Promise<T>;
}

let emulator: EmulatorHandle | undefined;
let proxy: LatencyProxy | undefined;
let emulatorFile = '';
let database = '';
const peers: Peer[] = [];
let calls = 0;
/** How long the proxy holds each create's answer (ms). */
let hold = 100;

// Both desks' gateway is the proxy: the ledger's "Local emulator" profile, which both share, holds
// the address of the desk that started last, so two addresses would not tell the desks apart.
/** Starts a desk's process; its core opens on open(). */
function spawnPeer(name: string, run: number): Peer & { open: () => Promise<void> } {
  const handle = emulator as EmulatorHandle;
  const gateway = proxy as LatencyProxy;
  const config: PeerChildConfig = {
    dataDir: path.join(temp.dir, `desk-${name}`),
    database,
    logFile: path.join(temp.dir, `${name}.log`),
    gateway: { baseUrl: gateway.baseUrl, adminUrl: handle.adminUrl, hostedUrl: handle.hostedUrl, merchant: handle.merchant },
    gatewayTimeoutMs: 3_000,
    concurrency: 4,
  };
  const configFile = path.join(temp.dir, `${name}.json`);
  writeFileSync(configFile, JSON.stringify(config));
  const child = startChild(configFile, run, PEER_SCRIPT, { stdin: true });
  const call = async <T>(channel: string, input?: unknown): Promise<Envelope<T>> => {
    const id = ++calls;
    child.send({ id, channel, input });
    return (await child.waitFor((line) => line.event === 'answer' && line.id === id, 20_000)).envelope as Envelope<T>;
  };
  const must = async <T>(channel: string, input?: unknown): Promise<T> => {
    const envelope = await call<T>(channel, input);
    if (!envelope.ok) throw new Error(`${name}: ${channel} failed: ${envelope.error.code} ${envelope.error.message}`);
    return envelope.value;
  };
  const open = async () => {
    child.send({ channel: '#open' });
    await child.waitFor((line) => line.event === 'ready', 30_000);
  };
  const peer = { name, child, call, must, open };
  peers.push(peer);
  return peer;
}

const ledger = () => ({ url: database });
/** Create calls that reached the gateway under this key. */
const arrived = (key: string) => proxy?.sendsPerKey.get(key) ?? 0;
/** Create calls each desk put on the wire, per key. */
const sentBy = (peer: Peer) => peer.must<Record<string, number>>('#sends');

describe.skipIf(testEngine !== 'postgres')(title, () => {
  let a: Peer;
  let b: Peer;

  beforeAll(async () => {
    temp = tempDir('paydesk-two-processes-');
    emulatorFile = path.join(temp.dir, 'gateway.sqlite');
    emulator = await startEmulator({ dataFile: emulatorFile, quiet: true, scenarioTiming: { payinCompleteMs: 50, payoutProcessingMs: 50, payoutFinalMs: 150 } });
    // Each answer to a create is held 100 ms: two processes' sends overlap, as over a real network.
    proxy = await startLatencyProxy(new URL(emulator.baseUrl).origin, () => hold);
    database = (await testDatabaseFor(path.join(temp.dir, 'team'))) as string;
    // Both processes load side by side; their cores open one after the other, so each start-up's
    // recovery finds a quiet ledger (what desks starting at once, or mid-batch, do to each other is
    // not this test's subject).
    const [first, second] = [spawnPeer('a', 0), spawnPeer('b', 1)];
    await first.open();
    await second.open();
    [a, b] = [first, second];
  }, 60_000);

  afterAll(async () => {
    await Promise.all(peers.map((p) => p.child.kill('SIGTERM')));
    await killAllStarted();
    await proxy?.close();
    await emulator?.close();
    temp.cleanup();
  });

  it('(a) both run one batch: every payout reaches the gateway exactly once, each intent sent once', { timeout: 40_000 }, async () => {
    const rows = batchRows(24, { prefix: `shared-${Date.now()}` });
    const draft = await a.must<BatchView>('batches:create', { fileName: 'shared.csv', rows: rows.length });
    for (let i = 0; i < rows.length; i += BATCH_CHUNK_ROWS) await a.must('batches:add-items', { id: draft.id, items: rows.slice(i, i + BATCH_CHUNK_ROWS) });

    // A starts it; B resumes it once A's first sends reached the gateway (so A took part), while
    // their answers are held 2 s (so items are still pending for B). A resume takes the batch over:
    // resumed any sooner, B could take every item before A's runner claimed its first.
    hold = 2_000;
    const sentBefore = proxy?.sendsPerKey.size ?? 0;
    try {
      const started = a.must<BatchView>('batches:start', { id: draft.id });
      await until(() => (proxy?.sendsPerKey.size ?? 0) > sentBefore, "A's first sends to reach the gateway", 5_000);
      const resumed = await b.must<BatchView>('batches:resume', { id: draft.id });
      expect(resumed.state, 'B joined a running batch').toBe('running');
      await started;
    } finally {
      hold = 100;
    }

    const done = await waitFor(
      () => a.must<BatchView>('batches:get', { id: draft.id }),
      (view) => view.state === 'done' && view.counts.pending + view.counts.sending + view.counts.unknown === 0,
      'the batch to finish with every item settled',
      25_000,
    );
    expect(done.counts).toMatchObject({ sent: 24, refused: 0, cancelled: 0 });

    // The gateway holds each payout once, under one key.
    const state = gatewayState(emulatorFile);
    const references = rows.map((r) => String(r.form.merchantReference));
    expect(exactlyOnceProblems(countBy(state.payouts, (p) => p.merchant_reference), references)).toEqual([]);
    const keysPerReference = countBy(state.keys, (k) => k.reference ?? '(none)');
    expect(references.filter((ref) => keysPerReference.get(ref) !== 1)).toEqual([]);

    // Each item's key went out exactly once in all (counted by each desk, and at the gateway), and both desks sent some.
    const itemKeys = await withLedger(ledger(), (db) => db.all<{ idempotency_key: string }>('SELECT idempotency_key FROM batch_items WHERE batch_id = ?', [draft.id]));
    const keys = itemKeys.map((k) => k.idempotency_key);
    expect(new Set(keys).size).toBe(24);
    const [byA, byB] = [await sentBy(a), await sentBy(b)];
    const sends = (key: string) => (byA[key] ?? 0) + (byB[key] ?? 0);
    expect(keys.filter((key) => sends(key) !== 1 || arrived(key) !== 1).map((key) => `${key}: sent ${sends(key)} times, arrived ${arrived(key)}`)).toEqual([]);
    const [fromA, fromB] = [keys.filter((key) => byA[key]).length, keys.filter((key) => byB[key]).length];
    expect({ fromA: fromA > 0, fromB: fromB > 0, total: fromA + fromB }, `A sent ${fromA}, B sent ${fromB}`).toEqual({ fromA: true, fromB: true, total: 24 });

    // One intent (attempt, payout row, audit entry) per item, and the audit chain intact.
    const counts = await withLedger(ledger(), async (db) => ({
      attempts: (await db.get<{ n: number }>("SELECT count(*)::int AS n FROM attempts WHERE kind = 'payout' AND idempotency_key IN (SELECT idempotency_key FROM batch_items WHERE batch_id = ?)", [draft.id]))?.n,
      payouts: (await db.get<{ n: number }>('SELECT count(*)::int AS n FROM payouts WHERE id IN (SELECT payout_row_id FROM batch_items WHERE batch_id = ?)', [draft.id]))?.n,
      creates: (await db.get<{ n: number }>("SELECT count(*)::int AS n FROM audit_log WHERE action = 'payout.create' AND subject IN (SELECT merchant_reference FROM batch_items WHERE batch_id = ?)", [draft.id]))?.n,
      // Neither desk took the other's items in flight for a crash's leftovers to resume.
      resumes: (await db.get<{ n: number }>("SELECT count(*)::int AS n FROM audit_log WHERE action = 'payout.resume'"))?.n,
    }));
    expect(counts).toEqual({ attempts: 24, payouts: 24, creates: 24, resumes: 0 });
    expect(await ledgerIntegrityProblems(ledger())).toEqual([]);
  });

  /** A payout whose create never reached the gateway: its attempt is unknown, nothing at the gateway. */
  async function unknownPayout(reference: string): Promise<string> {
    (proxy as LatencyProxy).dropCreates = true;
    try {
      const result = await a.must<SubmitResult>('payouts:create', payoutForm('open_banking', { reference, amount: '12.34' }));
      expect(result.outcome, result.message).toBe('unknown');
      return result.attempt.idempotencyKey;
    } finally {
      (proxy as LatencyProxy).dropCreates = false;
    }
  }

  /** Both desks at the same moment: what each put on the wire under `key` meanwhile, and what arrived. */
  async function together<T>(key: string, work: () => Promise<T>): Promise<{ result: T; sentByA: number; sentByB: number; arrived: number }> {
    const before = { a: (await sentBy(a))[key] ?? 0, b: (await sentBy(b))[key] ?? 0, arrived: arrived(key) };
    const result = await work();
    return { result, sentByA: ((await sentBy(a))[key] ?? 0) - before.a, sentByB: ((await sentBy(b))[key] ?? 0) - before.b, arrived: arrived(key) - before.arrived };
  }

  it('(b) an unknown attempt resumed by both at once, and settled by both settlers at once, is sent once', { timeout: 30_000 }, async () => {
    const first = `unknown-resumed-${Date.now()}`;
    const key = await unknownPayout(first);
    expect(arrived(key)).toBe(0);
    expect(gatewayState(emulatorFile).payouts.filter((p) => p.merchant_reference === first)).toEqual([]);

    // Each answer is held 100 ms, so one desk's send is in flight while the other asks.
    const resumed = await together(key, () => Promise.all([a.must<SubmitResult>('attempts:resume', { key }), b.must<SubmitResult>('attempts:resume', { key })]));
    expect({ sent: resumed.sentByA + resumed.sentByB, arrived: resumed.arrived }, `A sent ${resumed.sentByA}, B sent ${resumed.sentByB}`).toEqual({ sent: 1, arrived: 1 });
    // One sent it; the other found it in flight (busy), or already settled if it asked after.
    expect([['busy', 'succeeded'], ['succeeded', 'succeeded']]).toContainEqual(resumed.result.map((r) => r.outcome).sort());
    expect(gatewayState(emulatorFile).payouts.filter((p) => p.merchant_reference === first)).toHaveLength(1);

    // The background path: both desks' settlers make a pass at once.
    const second = `unknown-settled-${Date.now()}`;
    const other = await unknownPayout(second);
    type Pass = { tried: number; settled: number };
    const settled = await together(other, () => Promise.all([a.must<Pass>('attempts:settle-unknown', {}), b.must<Pass>('attempts:settle-unknown', {})]));
    expect({ sent: settled.sentByA + settled.sentByB, arrived: settled.arrived }, `A sent ${settled.sentByA}, B sent ${settled.sentByB}`).toEqual({ sent: 1, arrived: 1 });
    expect(settled.result.reduce((n, pass) => n + pass.settled, 0)).toBeGreaterThanOrEqual(1);
    expect(gatewayState(emulatorFile).payouts.filter((p) => p.merchant_reference === second)).toHaveLength(1);

    const states = await withLedger(ledger(), (db) => db.all<{ state: string }>('SELECT state FROM attempts WHERE idempotency_key IN (?, ?)', [key, other]));
    expect(states.map((row) => row.state)).toEqual(['succeeded', 'succeeded']);
    expect(await ledgerIntegrityProblems(ledger())).toEqual([]);
  });
});
