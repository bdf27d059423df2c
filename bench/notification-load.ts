// Load generator for the notification listener: C keep-alive connections, each posting
// notifications back to back for D seconds. Run by bench/listener-throughput.ts in its own
// process so the sender does not share the listener's event loop.
//   node --import tsx bench/notification-load.ts <url> <connections> <seconds>
import http from 'node:http';

const [url, connectionsArg, secondsArg] = process.argv.slice(2);
if (!url) throw new Error('usage: notification-load.ts <url> <connections> <seconds>');
const connections = Number(connectionsArg ?? 64);
const until = Date.now() + Number(secondsArg ?? 5) * 1000;
const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
let ok = 0;
let failed = 0;
const latencies: number[] = [];

function send(id: string): Promise<void> {
  const body = JSON.stringify({ event: 'v2_payin_notification', status: 'success', status_code: 200, request_id: `req-${id}`, payin_id: id, amount: 10.5, currency: 'EUR', payment_method: 'credit_card', updated_at: new Date().toISOString() });
  const started = performance.now();
  return new Promise((resolve) => {
    const req = http.request(url as string, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => {
        if (res.statusCode === 200) ok++;
        else failed++;
        latencies.push(performance.now() - started);
        resolve();
      });
    });
    req.on('error', () => {
      failed++;
      resolve();
    });
    req.end(body);
  });
}

const started = Date.now();
await Promise.all(
  Array.from({ length: connections }, async (_, c) => {
    for (let i = 0; Date.now() < until; i++) await send(`load-${process.pid}-${c}-${i}`);
  }),
);
agent.destroy();
latencies.sort((a, b) => a - b);
const pct = (p: number) => (latencies[Math.floor((latencies.length - 1) * p)] ?? 0).toFixed(1);
process.stdout.write(`${JSON.stringify({ ok, failed, seconds: (Date.now() - started) / 1000, p50_ms: pct(0.5), p99_ms: pct(0.99) })}\n`);
