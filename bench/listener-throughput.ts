// Notification listener: its cost, not its rate. 64 concurrent senders on loopback
// (in separate generator processes), every notification committed durably (WAL, synchronous=FULL)
// before its 200. The figure is this process's CPU time (user + system) per notification
// acknowledged: the listener runs here, the generator elsewhere, so on a machine shared with other
// work it says what a notification costs where the rate says how much CPU the listener was given.
// The floor, a bare node:http server answering {"ok":true}, runs in this same process right after,
// under the same generator: its CPU per request. Afterwards the ledger must hold exactly one row
// per acknowledged, distinct notification. (PostgreSQL: bench/postgres.ts, the same figures.)
// Each server is warmed up for --warmup seconds, unmeasured, before its load.
//   node --import tsx bench/listener-throughput.ts [--connections 64] [--seconds 5] [--generators 1] [--warmup 1]
import { mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { commitsAreDurable, openLedger } from '../src/main/ledger/connection';
import { ProfilesRepository } from '../src/main/ledger/repositories/profiles';
import { startListener } from '../src/main/listener/server';
import { arg, bareServerLoad, ensureBenchDir, log, report, round, runLoad, withCpu, type Figure } from './lib';

/** The targets: CPU per durable notification at most 2.2× the bare server's per request; the acknowledgement's p99. */
const CPU_RATIO_TARGET = 2.2;
const ACK_P99_MS = 10;

const connections = arg('connections', 64);
const seconds = arg('seconds', 5);
const generators = arg('generators', 1);
const warmup = arg('warmup', 1);
const dir = mkdtempSync(path.join(ensureBenchDir(), 'listener-'));
const db = await openLedger({ file: path.join(dir, 'ledger.sqlite') });
const profile = await new ProfilesRepository(db).create({ name: 'bench', environment: 'local', baseUrl: 'http://127.0.0.1:9/api/v2', merchantId: 'm', merchantSiteId: 's' });
const listener = await startListener({ db });
const durable = await commitsAreDurable(db);
// Warmed up first (the JIT, the ledger's first pages), unmeasured; its notifications are counted in the rows' check.
const warm = await runLoad({ url: listener.url(profile.listenerPathSecret), kind: 'notification', connections, seconds: warmup, generators });
const { result: ingest, cpuUs } = await withCpu(() => runLoad({ url: listener.url(profile.listenerPathSecret), kind: 'notification', connections, seconds, generators }));
await listener.close();
const stats = listener.stats();
const rows = (await db.get<{ n: number; distinct_refs: number }>('SELECT count(*) AS n, count(DISTINCT request_ref) AS distinct_refs FROM notifications')) ?? { n: 0, distinct_refs: 0 };
await db.close();
rmSync(dir, { recursive: true, force: true });
const cpuPerNotification = round(cpuUs / Math.max(1, ingest.ok), 1);
log(`listener: ${JSON.stringify(ingest)}; ${stats.batches} commits (${round(stats.stored / Math.max(1, stats.batches), 1)} per commit), ${cpuPerNotification} µs CPU each`);

const bare = await bareServerLoad({ connections, seconds, generators, warmup });
log(`bare node:http: ${JSON.stringify(bare)}`);

const figures: Figure[] = [
  { name: 'listener CPU per durable notification (SQLite)', value: cpuPerNotification, unit: 'µs', baseline: bare.cpuPerRequestUs,
    note: `this process's user + system time during the load ÷ ${ingest.ok.toLocaleString('en')} acknowledged; baseline: the bare node:http server's per request, same generator, same run` },
  { name: 'listener CPU per notification ÷ bare server CPU per request (SQLite)', value: round(cpuPerNotification / Math.max(0.1, bare.cpuPerRequestUs), 2), unit: '×', target: { op: '<', value: CPU_RATIO_TARGET },
    note: `${cpuPerNotification} µs ÷ ${bare.cpuPerRequestUs} µs (target ≤ ${CPU_RATIO_TARGET}×)` },
  { name: 'listener ingest (durable)', value: ingest.rate, unit: 'notifications/s', baseline: bare.rate,
    note: `no target (the target "60 % of a bare server" is retired); ${connections} senders, ${generators} generator process(es), ${ingest.ok.toLocaleString('en')} acknowledged, ${ingest.failed} failed, synchronous=${durable ? 'FULL' : 'not FULL'}, ${round(stats.stored / Math.max(1, stats.batches), 1)} per commit` },
  { name: 'listener acknowledgement', value: ingest.p99_ms, unit: 'ms p99', target: { op: '<', value: ACK_P99_MS }, baseline: bare.p99_ms, note: `p50 ${ingest.p50_ms} ms; baseline: the bare server's p99` },
  // Each acknowledged notification carries its own reference: a missing row or a second one for a reference counts.
  { name: 'listener notifications without exactly one row', value: Math.abs(warm.ok + ingest.ok - rows.distinct_refs) + (rows.n - rows.distinct_refs), unit: 'notifications', target: { op: '<', value: 1 },
    note: `${rows.n} rows, ${rows.distinct_refs} distinct, ${warm.ok + ingest.ok} acknowledged (${warm.ok} in the warm-up)` },
];
report(figures);
