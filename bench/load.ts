// Load generator on raw keep-alive sockets (no http.Agent: its per-request cost capped an earlier
// generator below the servers it measured). C connections each send a request, wait for the whole
// answer, then send the next, until `--max` requests or `--seconds` have passed. 127.0.0.1 only.
// Prints one JSON line: ok, failed, seconds, p50/p99 acknowledgement in ms.
//   node --import tsx bench/load.ts --url URL --kind notification|payin|plain [--connections 64]
//     [--seconds 5] [--max N] [--rate R] [--token T] [--merchant-id M] [--site-id S] [--tag T]
// --rate R: at most R requests per second from this generator (request n not before n/R s), an
// open-loop pace such as the gateway's notifications at 200/s.
import net from 'node:net';
import { samplePayinForm } from '../src/shared/spec/samples';
import { arg, argText, percentile, round } from './lib';

const url = new URL(argText('url', ''));
if (url.hostname !== '127.0.0.1') throw new Error(`load generators target 127.0.0.1 only, not ${url.hostname}`);
const kind = argText('kind', 'plain');
const connections = arg('connections', 64);
const maxRequests = arg('max', 10_000_000);
const deadline = Date.now() + arg('seconds', 5) * 1000;
const tag = argText('tag', String(process.pid));
const rate = arg('rate', 0);
const began = performance.now();
/** A card pay-in as the playground samples it (src/shared/spec/samples.ts), built once; each request varies its e-mail and request_id. */
const payinTemplate = { ...samplePayinForm('credit_card'), merchant_id: argText('merchant-id', ''), merchant_site_id: argText('site-id', ''), notification_link: 'http://127.0.0.1:9/n' };

function body(n: number): string {
  if (kind === 'notification') {
    return JSON.stringify({ event: 'v2_payin_notification', status: 'success', status_code: 200, request_id: `req-${tag}-${n}`, payin_id: `pid-${tag}-${n}`, amount: 10.5, currency: 'EUR', payment_method: 'credit_card', updated_at: new Date().toISOString() });
  }
  if (kind === 'payin') {
    return JSON.stringify({ ...payinTemplate, amount: 25.5, email: `ana${n % 1000}@example.com`, request_id: `req-${tag}-${n}` });
  }
  return `{"n":${n}}`;
}

function request(n: number): Buffer {
  const text = body(n);
  const extra = kind === 'payin' ? `merchant-token: ${argText('token', '')}\r\nidempotency-key: ${tag}-${n}\r\n` : '';
  return Buffer.from(
    `POST ${url.pathname} HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\n${extra}content-length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
  );
}

let next = 0;
let ok = 0;
let failed = 0;
const latencies: number[] = [];

/** One connection: request, whole answer (headers + content-length body), next request. */
function run(): Promise<void> {
  return new Promise((resolve) => {
    const socket = net.connect(Number(url.port), url.hostname);
    socket.setNoDelay(true);
    let pending: Buffer = Buffer.alloc(0);
    let started = 0;
    const send = () => {
      if (next >= maxRequests || Date.now() >= deadline) return socket.end();
      const n = next++;
      const wait = rate > 0 ? began + (n * 1000) / rate - performance.now() : 0;
      const write = () => {
        started = performance.now();
        socket.write(request(n));
      };
      if (wait > 0) setTimeout(write, wait);
      else write();
    };
    socket.on('connect', send);
    socket.on('data', (chunk: Buffer) => {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      for (;;) {
        const end = pending.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = pending.subarray(0, end).toString('latin1');
        const length = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
        if (pending.length < end + 4 + length) return;
        pending = pending.subarray(end + 4 + length);
        const status = Number(head.slice(9, 12));
        latencies.push(performance.now() - started);
        if (status >= 200 && status < 300) ok++;
        else failed++;
        send();
      }
    });
    socket.on('error', () => {
      failed++;
      resolve();
    });
    socket.on('close', () => resolve());
  });
}

const started = Date.now();
await Promise.all(Array.from({ length: connections }, run));
latencies.sort((a, b) => a - b);
process.stdout.write(`${JSON.stringify({ ok, failed, seconds: (Date.now() - started) / 1000, p50_ms: round(percentile(latencies, 0.5), 2), p99_ms: round(percentile(latencies, 0.99), 2) })}\n`);
