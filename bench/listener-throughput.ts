// Notification listener ingest: 64 concurrent senders on loopback (in separate generator
// processes), every notification committed durably (WAL, synchronous=FULL) before its 200. The
// baseline, a bare node:http server answering {"ok":true}, runs in this same process right after,
// under the same generator, so their ratio holds on a noisy machine. Afterwards the ledger must
// hold exactly one row per acknowledged, distinct notification.
//   node --import tsx bench/listener-throughput.ts [--connections 64] [--seconds 5] [--generators 1]
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { commitsAreDurable, openLedger } from '../src/main/ledger/connection';
import { ProfilesRepository } from '../src/main/ledger/repositories/profiles';
import { startListener } from '../src/main/listener/server';
import { arg, ensureBenchDir, log, report, round, runLoad, type Figure } from './lib';

const connections = arg('connections', 64);
const seconds = arg('seconds', 5);
const generators = arg('generators', 1);
const dir = mkdtempSync(path.join(ensureBenchDir(), 'listener-'));
const db = await openLedger({ file: path.join(dir, 'ledger.sqlite') });
const profile = await new ProfilesRepository(db).create({ name: 'bench', environment: 'local', baseUrl: 'http://127.0.0.1:9/api/v2', merchantId: 'm', merchantSiteId: 's' });
const listener = await startListener({ db });
const durable = await commitsAreDurable(db);
const ingest = await runLoad({ url: listener.url(profile.listenerPathSecret), kind: 'notification', connections, seconds, generators });
await listener.close();
const stats = listener.stats();
const rows = (await db.get<{ n: number; distinct_refs: number }>('SELECT count(*) AS n, count(DISTINCT request_ref) AS distinct_refs FROM notifications')) ?? { n: 0, distinct_refs: 0 };
await db.close();
rmSync(dir, { recursive: true, force: true });
log(`listener: ${JSON.stringify(ingest)}; ${stats.batches} commits (${round(stats.stored / Math.max(1, stats.batches), 1)} per commit)`);

const bare = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': 11 });
    res.end('{"ok":true}');
  });
});
await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
const baseline = await runLoad({ url: `http://127.0.0.1:${(bare.address() as AddressInfo).port}/n/bare`, kind: 'notification', connections, seconds, generators });
bare.closeAllConnections();
await new Promise<void>((resolve) => bare.close(() => resolve()));
log(`bare node:http: ${JSON.stringify(baseline)}`);

const figures: Figure[] = [
  { name: 'listener ingest (durable)', value: ingest.rate, unit: 'notifications/s', target: { op: '>=', value: 20_000 }, baseline: baseline.rate,
    note: `${connections} senders, ${generators} generator process(es), ${ingest.ok.toLocaleString('en')} acknowledged, ${ingest.failed} failed, synchronous=${durable ? 'FULL' : 'not FULL'}, ${round(stats.stored / Math.max(1, stats.batches), 1)} per commit` },
  { name: 'listener ingest / bare node:http', value: round((100 * ingest.rate) / Math.max(1, baseline.rate), 1), unit: '%', target: { op: '>=', value: 60 }, note: `bare server ${baseline.rate}/s, p99 ${baseline.p99_ms} ms` },
  { name: 'listener acknowledgement', value: ingest.p99_ms, unit: 'ms p99', target: { op: '<', value: 10 }, note: `p50 ${ingest.p50_ms} ms` },
  // Each acknowledged notification carries its own reference: a missing row or a second one for a reference counts.
  { name: 'listener notifications without exactly one row', value: Math.abs(ingest.ok - rows.distinct_refs) + (rows.n - rows.distinct_refs), unit: 'notifications', target: { op: '<', value: 1 },
    note: `${rows.n} rows, ${rows.distinct_refs} distinct, ${ingest.ok} acknowledged` },
];
report(figures);
