// Throughput of the notification listener with durable group commit (synchronous=FULL, WAL).
//   npx tsx bench/listener-throughput.ts [connections=64] [seconds=5]
// The sender runs in a child process; every 200 means the notification was committed first.
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openLedger } from '../src/main/ledger/connection';
import { ProfilesRepository } from '../src/main/ledger/repositories/profiles';
import { startListener } from '../src/main/listener/server';

const connections = Number(process.argv[2] ?? 64);
const seconds = Number(process.argv[3] ?? 5);
const dir = mkdtempSync(path.join(os.tmpdir(), 'paydesk-listener-bench-'));
const file = path.join(dir, 'ledger.sqlite');
const db = openLedger({ file });
const profile = new ProfilesRepository(db).create({ name: 'bench', environment: 'local', baseUrl: 'http://x/api/v2', merchantId: 'm', merchantSiteId: 's' });
if (process.env.BENCH_SYNC) db.pragma(`synchronous = ${process.env.BENCH_SYNC}`);
if (process.env.BENCH_CKPT) db.pragma(`wal_autocheckpoint = ${process.env.BENCH_CKPT}`);
const listener = await startListener({ db });

const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'notification-load.ts'), listener.url(profile.listenerPathSecret), String(connections), String(seconds)], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
let output = '';
child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
await new Promise((resolve) => child.once('exit', resolve));
const result = JSON.parse(output) as { ok: number; failed: number; seconds: number; p50_ms: string; p99_ms: string };
await listener.close();
const rows = (new Database(file, { readonly: true }).prepare('SELECT count(*) AS n FROM notifications').get() as { n: number }).n;
const stats = listener.stats();
console.log(
  `${connections} connections, ${result.seconds.toFixed(1)} s: ${result.ok} acknowledged (${Math.round(result.ok / result.seconds)}/s), ` +
    `${result.failed} failed, p50 ${result.p50_ms} ms, p99 ${result.p99_ms} ms; ${rows} rows, ${stats.batches} commits ` +
    `(${(stats.stored / Math.max(1, stats.batches)).toFixed(1)} per commit)`,
);
db.close();
rmSync(dir, { recursive: true, force: true });
