// Shared by the benchmarks: figures, percentiles, bounded timing loops, and the one line a
// benchmark child prints for bench/run.ts (`BENCH_RESULT {...}`). Progress goes to stderr.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Repositories } from '../src/main/ledger/repositories/index';
import { ExceptionLists } from '../src/main/services/reconciliation/exceptions';
import { MAX_CSV_ROWS } from '../src/main/services/reconciliation/reconciliation-service';
import { computeTotals } from '../src/main/services/reconciliation/totals';
import { exceptionKindSchema } from '../src/shared/contract';

export interface Target {
  /** '<': the value must stay under the limit; '>=': it must reach it. */
  op: '<' | '>=';
  value: number;
}

export interface Figure {
  name: string;
  value: number;
  unit: string;
  target?: Target;
  /** The baseline measured in the same process run (the bare HTTP server, say). */
  baseline?: number;
  /** Extra context for the table and docs (sizes, counts). */
  note?: string;
}

export const RESULT_PREFIX = 'BENCH_RESULT ';

export const root = path.resolve(import.meta.dirname, '..');
/** Seeded ledgers and scratch files; .tmp/ is gitignored. */
export const benchDir = path.join(root, '.tmp', 'bench');

export function ensureBenchDir(): string {
  mkdirSync(benchDir, { recursive: true });
  return benchDir;
}

export function report(figures: Figure[]): void {
  process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(figures)}\n`);
}

export function log(message: string): void {
  process.stderr.write(`  ${message}\n`);
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * p) - 1)] ?? 0;
}

export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** Runs `fn` `count` times, one after the other (stopping early after `maxMs`), after a warm-up; sorted latencies in ms. */
export async function sample(fn: (i: number) => unknown, count: number, maxMs = 20_000): Promise<number[]> {
  for (let i = 0; i < Math.min(50, count); i++) await fn(i);
  const out: number[] = [];
  const deadline = performance.now() + maxMs;
  for (let i = 0; i < count && performance.now() < deadline; i++) {
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
  }
  return out.sort((a, b) => a - b);
}

/** mulberry32: small, seeded, with usable low bits. */
export function prng(seed: number): (n: number) => number {
  let s = seed;
  return (n) => {
    s = (s + 0x6d2b79f5) | 0;
    let x = Math.imul(s ^ (s >>> 15), 1 | s);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) % n;
  };
}

/** `--name value` from argv, else the default. */
export function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

export function argText(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

export interface LoadResult {
  ok: number;
  failed: number;
  seconds: number;
  /** Acknowledged requests per second over all generators. */
  rate: number;
  p50_ms: number;
  /** The worst generator's p99. */
  p99_ms: number;
}

/**
 * Runs bench/load.ts in `generators` child processes (connections split between them), so the
 * sender does not share the measured server's event loop; returns their sums.
 */
export async function runLoad(args: { url: string; kind: string; connections: number; seconds: number; max?: number; generators?: number; extra?: string[] }): Promise<LoadResult> {
  const generators = Math.max(1, args.generators ?? 1);
  const { spawn } = await import('node:child_process');
  const one = (g: number) =>
    new Promise<Omit<LoadResult, 'rate'>>((resolve, reject) => {
      const share = Math.floor(args.connections / generators) + (g < args.connections % generators ? 1 : 0);
      const cli = ['--import', 'tsx', path.join(import.meta.dirname, 'load.ts'), '--url', args.url, '--kind', args.kind, '--connections', String(share),
        '--seconds', String(args.seconds), '--tag', `g${g}-${process.pid}-${Date.now()}`, ...(args.max ? ['--max', String(Math.ceil(args.max / generators))] : []), ...(args.extra ?? [])];
      const child = spawn(process.execPath, cli, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
      child.once('error', reject);
      child.once('exit', (code) => {
        try {
          resolve(JSON.parse(out.trim().split('\n').at(-1) ?? '') as Omit<LoadResult, 'rate'>);
        } catch {
          reject(new Error(`load generator exited with ${code}: ${out}`));
        }
      });
    });
  const parts = await Promise.all(Array.from({ length: generators }, (_, g) => one(g)));
  return {
    ok: parts.reduce((s, p) => s + p.ok, 0),
    failed: parts.reduce((s, p) => s + p.failed, 0),
    seconds: Math.max(...parts.map((p) => p.seconds)),
    rate: Math.round(parts.reduce((s, p) => s + p.ok / Math.max(p.seconds, 1e-3), 0)),
    p50_ms: Math.max(...parts.map((p) => p.p50_ms)),
    p99_ms: Math.max(...parts.map((p) => p.p99_ms)),
  };
}

/** Microseconds of this process's CPU (user + system) spent while `work` ran, and its result. */
export async function withCpu<T>(work: () => Promise<T>): Promise<{ result: T; cpuUs: number }> {
  const before = process.cpuUsage();
  const result = await work();
  const used = process.cpuUsage(before);
  return { result, cpuUs: used.user + used.system };
}

/**
 * The floor of an HTTP server's cost: a bare node:http server in this process answering
 * {"ok":true}, under the same generator (in its own processes) as the server it is beside; its
 * rate, its p99 and this process's CPU per request answered (µs), the server's cost alone. With
 * `runs` above 1 the load is run that many times and the fastest run is the floor (the cheapest
 * way, as the statements' floor is the best of two reads); `rates` lists every run's.
 */
export async function bareServerLoad(load: { connections: number; seconds: number; generators?: number; kind?: string; warmup?: number; runs?: number }): Promise<LoadResult & { cpuPerRequestUs: number; rates: number[] }> {
  const http = await import('node:http');
  const bare = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 11 });
      res.end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  const { port } = bare.address() as { port: number };
  const run = (seconds: number) => runLoad({ url: `http://127.0.0.1:${port}/n/bare`, kind: load.kind ?? 'notification', connections: load.connections, seconds, generators: load.generators ?? 1 });
  try {
    if (load.warmup) await run(load.warmup);
    const runs: (LoadResult & { cpuPerRequestUs: number })[] = [];
    for (let i = 0; i < Math.max(1, load.runs ?? 1); i++) {
      const { result, cpuUs } = await withCpu(() => run(load.seconds));
      runs.push({ ...result, cpuPerRequestUs: round(cpuUs / Math.max(1, result.ok + result.failed), 1) });
    }
    const best = runs.reduce((a, b) => (b.rate > a.rate ? b : a));
    return { ...best, rates: runs.map((r) => r.rate) };
  } finally {
    bare.closeAllConnections();
    await new Promise<void>((resolve) => bare.close(() => resolve()));
  }
}

/**
 * Full reconciliation as finance runs it, timed: the totals over everything, every exception
 * list's count and every row of each (the lists as of `asOf`). The note says how much it read.
 */
export async function timeFullReconciliation(repos: Pick<Repositories, 'exceptions' | 'totals'>, asOf: Date): Promise<{ seconds: number; note: string }> {
  const lists = new ExceptionLists(repos.exceptions, () => asOf);
  const t = performance.now();
  const totals = await computeTotals(repos.totals, {});
  const counts = await lists.counts({});
  let rows = 0;
  for (const kind of exceptionKindSchema.options) rows += (await lists.all({ kind }, MAX_CSV_ROWS)).items.length;
  return { seconds: (performance.now() - t) / 1000, note: `${totals.rows.length} totals rows, ${counts.length} lists, ${rows.toLocaleString('en')} exception rows` };
}
