// The notification listener and the emulator under slow-client (slow-loris:
// headers or a body trickled a byte at a time, reconnecting when cut) and oversized-body attacks
// stay responsive to a normal client during the attack: every normal request is answered, p99
// latency under 500 ms. The attack runs in another process (helpers/attacker.ts), on 127.0.0.1,
// for a bounded time; the servers run with the timeouts shortened (2 s for headers, 4 s for a
// request) so the test can also see them cut the slow connections. Default: 200 slow connections
// and 4 oversized loops for 5 s per server; PAYDESK_LONG=1: 1,000 connections, 8 loops, 20 s.
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../../src/emulator/index';
import { DEFAULT_LIMITS } from '../../src/main/listener/server';
import { payinNotification } from '../helpers/http';
import { listenerFixture, type ListenerFixture } from '../helpers/listener';
import { LONG } from './helpers/arbitraries';
import type { AttackPlan, AttackReport } from './helpers/attacker';

const TIMEOUTS = { headersTimeoutMs: 2_000, requestTimeoutMs: 4_000 };
const CHECK_INTERVAL_MS = 250;
const ATTACK = LONG ? { slow: 1_000, loops: 8, durationMs: 20_000 } : { slow: 200, loops: 4, durationMs: 5_000 };
const P99_LIMIT_MS = 500;

let listener: ListenerFixture | undefined;
let emulator: EmulatorHandle | undefined;

afterAll(async () => {
  await listener?.close();
  await emulator?.close();
});

function runAttack(plan: AttackPlan): { report: Promise<AttackReport>; kill: () => void } {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'helpers/attacker.ts'), JSON.stringify(plan)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const report = new Promise<AttackReport>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('the attacker did not report within its time'));
    }, plan.durationMs + 30_000);
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', (line) => {
      clearTimeout(timer);
      resolve(JSON.parse(line) as AttackReport);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the attacker exited with ${code} before reporting`));
    });
  });
  return { report, kill: () => child.kill('SIGKILL') };
}

interface Measured {
  latencies: number[];
  failures: string[];
}

/** A normal client: one request after another, each on a new connection (as the gateway sends), for `ms`. */
async function normalClient(ms: number, once: () => Promise<number>, expected: number): Promise<Measured> {
  const latencies: number[] = [];
  const failures: string[] = [];
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const started = performance.now();
    try {
      const status = await once();
      if (status !== expected) failures.push(`HTTP ${status}`);
    } catch (error) {
      failures.push(String(error));
    }
    latencies.push(performance.now() - started);
    await new Promise((r) => setTimeout(r, 20));
  }
  return { latencies, failures };
}

function request(port: number, pathname: string, body: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: pathname, method: 'POST', agent: false, timeout: 5_000, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 5 s')));
    req.on('error', reject);
    req.end(body);
  });
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * (sorted.length - 1)))] ?? 0;
};

function judge(name: string, measured: Measured, report: AttackReport, sizesAllowed: string[], checkIntervalMs: number): void {
  const p99 = percentile(measured.latencies, 0.99);
  const max = Math.max(...measured.latencies);
  console.log(
    `${name}: ${measured.latencies.length} normal requests, p50 ${percentile(measured.latencies, 0.5).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${max.toFixed(1)} ms; ` +
      `${report.slowOpened} slow connections (${report.closedByServer.headers} slow-header and ${report.closedByServer.body} slow-body cut by the server, longest ${report.longestMs.headers} / ${report.longestMs.body} ms), ` +
      `${report.oversizedSent} oversized bodies ${JSON.stringify(report.oversizedStatuses)}`,
  );
  expect(measured.failures, `${name}: normal requests that failed`).toEqual([]);
  expect(measured.latencies.length, `${name}: normal requests made`).toBeGreaterThan(ATTACK.durationMs / 200);
  expect(p99, `${name}: p99 latency of the normal client`).toBeLessThan(P99_LIMIT_MS);
  // The server cut the slow connections itself, within its timeouts (plus the check interval and slack).
  expect(report.closedByServer.headers, `${name}: slow-header connections cut`).toBeGreaterThan(0);
  expect(report.closedByServer.body, `${name}: slow-body connections cut`).toBeGreaterThan(0);
  expect(report.longestMs.headers, `${name}: longest slow-header connection`).toBeLessThan(TIMEOUTS.headersTimeoutMs + checkIntervalMs + 1_000);
  expect(report.longestMs.body, `${name}: longest slow-body connection`).toBeLessThan(TIMEOUTS.requestTimeoutMs + checkIntervalMs + 1_000);
  expect(report.oversizedSent, `${name}: oversized bodies sent`).toBeGreaterThan(0);
  for (const status of Object.keys(report.oversizedStatuses)) expect(sizesAllowed, `${name}: oversized body answered ${status}`).toContain(status);
}

describe('slow clients and oversized bodies do not starve a normal client', () => {
  it('listener: keeps acknowledging notifications during the attack', async () => {
    listener = await listenerFixture({ ...TIMEOUTS, timeoutCheckIntervalMs: CHECK_INTERVAL_MS });
    const { port, pathname } = (() => {
      const url = new URL(listener.url);
      return { port: Number(url.port), pathname: url.pathname };
    })();
    const attack = runAttack({
      port,
      path: pathname,
      headers: {},
      slowHeaders: ATTACK.slow / 2,
      slowBodies: ATTACK.slow / 2,
      oversizedLoops: ATTACK.loops,
      // Past the hard cap (cut at once), and between the body limit and the cap (read, kept truncated, 413).
      oversizedBytes: [DEFAULT_LIMITS.hardBodyCapBytes + 1, 8 * 1024 * 1024, DEFAULT_LIMITS.maxBodyBytes + 1],
      trickleMs: 200,
      durationMs: ATTACK.durationMs,
    });
    await new Promise((r) => setTimeout(r, 300)); // the attack is under way
    let n = 0;
    const measured = await normalClient(ATTACK.durationMs - 600, () => request(port, pathname, payinNotification(`normal-${n++}`)), 200);
    const report = await attack.report;
    judge('listener', measured, report, ['413', 'closed'], CHECK_INTERVAL_MS);
    // Every acknowledged normal notification is in the ledger.
    const stored = (await listener.reader.get<{ n: number }>("SELECT count(*) AS n FROM notifications WHERE transaction_ref LIKE 'normal-%'"))!;
    expect(stored.n).toBe(n);
    expect(await request(port, pathname, payinNotification('after-attack'))).toBe(200);
    const kept = (await listener.reader.get<{ n: number; bytes: number }>("SELECT count(*) AS n, coalesce(sum(length(body)), 0) AS bytes FROM notifications WHERE outcome = 'malformed'"))!;
    console.log(`listener: the attack left ${kept.n} malformed rows holding ${(kept.bytes / 1024 / 1024).toFixed(1)} MiB of body bytes in the ledger`);
  }, ATTACK.durationMs + 60_000);

  it('emulator: keeps answering the API during the attack', async () => {
    emulator = await startEmulator({ quiet: true, http: TIMEOUTS, rateLimit: { burst: 100_000, refillPerSecond: 100_000 } });
    const port = Number(new URL(emulator.baseUrl).port);
    const token = emulator.merchant.merchant_token;
    const attack = runAttack({
      port,
      path: '/api/v2/payment/create',
      headers: { 'merchant-token': token, 'idempotency-key': 'attack' },
      slowHeaders: ATTACK.slow / 2,
      slowBodies: ATTACK.slow / 2,
      oversizedLoops: ATTACK.loops,
      // Read and thrown away (413), and past the drain limit (413, connection cut).
      oversizedBytes: [3 * 1024 * 1024, 20 * 1024 * 1024],
      trickleMs: 200,
      durationMs: ATTACK.durationMs,
    });
    await new Promise((r) => setTimeout(r, 300));
    const read = JSON.stringify({ merchant_id: emulator.merchant.merchant_id, request_id: 'no-such-payin' });
    const measured = await normalClient(ATTACK.durationMs - 600, () => request(port, '/api/v2/payment/get-status', read, { 'merchant-token': token }), 400);
    const report = await attack.report;
    // The emulator checks its timeouts every min(1 s, its timeouts).
    judge('emulator', measured, report, ['413', 'closed'], 1_000);
    expect(await request(port, '/api/v2/payment/get-status', read, { 'merchant-token': token })).toBe(400);
  }, ATTACK.durationMs + 60_000);
});
