// The attack traffic of the slow-client suite, in its own process so it does not share the event
// loop with the server under test or with the client whose latency is measured:
//   node --import tsx test/security/helpers/attacker.ts '<json AttackPlan>'
// Opens slow-loris connections (headers one byte at a time), slow-body connections (a declared
// body trickled a byte at a time) and loops of oversized bodies, all on 127.0.0.1, for a bounded
// time; then prints one JSON line with what the server did to them and exits.
import net from 'node:net';

export interface AttackPlan {
  port: number;
  path: string;
  /** Headers the oversized requests carry besides content-type/length (a merchant-token, say). */
  headers: Record<string, string>;
  slowHeaders: number;
  slowBodies: number;
  /** Parallel loops each sending one oversized body after another. */
  oversizedLoops: number;
  oversizedBytes: number[];
  /** Pause between two trickled bytes. */
  trickleMs: number;
  durationMs: number;
}

export interface AttackReport {
  slowOpened: number;
  /** Slow connections the server closed before the attack ended, and how long each lived. */
  slowClosedByServer: number;
  /** The same, by kind: slow headers are cut by the headers timeout, slow bodies by the request timeout. */
  closedByServer: { headers: number; body: number };
  longestMs: { headers: number; body: number };
  slowLifetimesMs: number[];
  /** Slow connections still open when the attack ended (the server never cut them). */
  slowStillOpen: number;
  oversizedSent: number;
  oversizedStatuses: Record<string, number>;
  errors: number;
}

const plan = JSON.parse(process.argv[2] as string) as AttackPlan;
const report: AttackReport = { slowOpened: 0, slowClosedByServer: 0, closedByServer: { headers: 0, body: 0 }, longestMs: { headers: 0, body: 0 }, slowLifetimesMs: [], slowStillOpen: 0, oversizedSent: 0, oversizedStatuses: {}, errors: 0 };
const started = Date.now();
const ends = started + plan.durationMs;
const open = new Set<net.Socket>();

function slow(kind: 'headers' | 'body'): void {
  const socket = net.connect(plan.port, '127.0.0.1');
  const opened = Date.now();
  let closedByUs = false;
  open.add(socket);
  report.slowOpened++;
  socket.setNoDelay(true);
  const head =
    kind === 'headers'
      ? `POST ${plan.path} HTTP/1.1\r\nHost: 127.0.0.1:${plan.port}\r\nX-Slow: `
      : `POST ${plan.path} HTTP/1.1\r\nHost: 127.0.0.1:${plan.port}\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{`;
  socket.on('connect', () => {
    socket.write(head);
    const timer = setInterval(() => {
      if (Date.now() >= ends) {
        clearInterval(timer);
        closedByUs = true;
        socket.destroy();
        return;
      }
      if (!socket.destroyed) socket.write('a');
    }, plan.trickleMs);
    socket.on('close', () => clearInterval(timer));
  });
  socket.on('data', () => {});
  socket.on('error', () => {});
  socket.on('close', () => {
    open.delete(socket);
    if (closedByUs) report.slowStillOpen++;
    else {
      report.slowClosedByServer++;
      report.closedByServer[kind]++;
      report.slowLifetimesMs.push(Date.now() - opened);
      report.longestMs[kind] = Math.max(report.longestMs[kind], Date.now() - opened);
      // A real slow-loris reconnects at once to keep the pressure on.
      if (Date.now() < ends - plan.trickleMs) slow(kind);
    }
  });
}

function oversized(loop: number): Promise<void> {
  return new Promise((resolve) => {
    const next = (i: number) => {
      if (Date.now() >= ends) return resolve();
      const size = plan.oversizedBytes[(loop + i) % plan.oversizedBytes.length] as number;
      const socket = net.connect(plan.port, '127.0.0.1');
      let answer = '';
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        const status = /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 'closed';
        report.oversizedStatuses[status] = (report.oversizedStatuses[status] ?? 0) + 1;
        socket.destroy();
        setImmediate(() => next(i + 1));
      };
      socket.on('connect', () => {
        report.oversizedSent++;
        const extra = Object.entries(plan.headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
        socket.write(`POST ${plan.path} HTTP/1.1\r\nHost: 127.0.0.1:${plan.port}\r\nContent-Type: application/json\r\n${extra}Content-Length: ${size}\r\nConnection: close\r\n\r\n`);
        const chunk = Buffer.alloc(64 * 1024, 0x61);
        let sent = 0;
        const pump = () => {
          while (sent < size && !socket.destroyed) {
            const part = chunk.subarray(0, Math.min(chunk.length, size - sent));
            sent += part.length;
            if (!socket.write(part)) return socket.once('drain', pump);
          }
        };
        pump();
      });
      socket.on('data', (data) => {
        answer += data.toString('latin1');
        if (answer.includes('\r\n\r\n')) finish();
      });
      socket.on('error', () => finish());
      socket.on('close', () => finish());
      socket.setTimeout(10_000, () => finish());
    };
    next(0);
  });
}

async function main(): Promise<void> {
  for (let i = 0; i < plan.slowHeaders; i++) slow('headers');
  for (let i = 0; i < plan.slowBodies; i++) slow('body');
  await Promise.all(Array.from({ length: plan.oversizedLoops }, (_, i) => oversized(i)));
  await new Promise((r) => setTimeout(r, Math.max(0, ends - Date.now())));
  // Let the trickle timers see the end and close what the server left open.
  const deadline = Date.now() + plan.trickleMs * 3 + 500;
  while (open.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  for (const socket of open) socket.destroy();
  process.stdout.write(`${JSON.stringify(report)}\n`);
  process.exit(0);
}

main().catch(() => process.exit(2));
