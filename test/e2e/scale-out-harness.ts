// What several team-server instances need around them in a test, as an operator would set them up
// (docs/team.md, "Several instances"): one gateway emulator of their own (`npm run gateway`'s
// program, its one JSON line read for the admin_url every instance is given), and a load balancer
// in front of their notification listeners that, like one with health checks, passes each request
// to the next instance in turn and to another when one does not take the connection. Plus a
// person's event stream read from the test, to time when a push arrives.
import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { serverSentEvents } from '../../src/main/services/team/team-link';

const root = path.resolve(import.meta.dirname, '../..');

export interface EmulatorProcess {
  adminUrl: string;
  stop(): Promise<void>;
}

export async function startEmulatorProcess(dataFile: string): Promise<EmulatorProcess> {
  const child: ChildProcess = spawn(process.execPath, [path.join(root, 'node_modules/tsx/dist/cli.mjs'), 'src/emulator/cli.ts', '--port', '0', '--data', dataFile], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stderr?.on('data', () => undefined);
  const line = await new Promise<{ admin_url: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the emulator printed no ready line within 30 s: ${out}`)), 30_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const json = out.split('\n').find((l) => l.startsWith('{'));
      if (json) {
        clearTimeout(timer);
        resolve(JSON.parse(json) as { admin_url: string });
      }
    });
    child.on('exit', (code) => reject(new Error(`the emulator exited with ${code}: ${out}`)));
  });
  return {
    adminUrl: line.admin_url,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export interface LoadBalancer {
  origin: string;
  /** Requests passed on, per target port. */
  passed: Map<number, number>;
  close(): Promise<void>;
}

/**
 * A balancer over 127.0.0.1:ports: round robin (each request to the next port), or `first` (each to
 * the first port that takes it, as HAProxy's `balance first`: one instance until it is down, then
 * the next). A refused connection is tried on the next port (each once); an answer cut mid-way (its
 * instance killed) cuts the client's connection too, as a real balancer's does.
 */
export async function startLoadBalancer(ports: readonly number[], order: 'round-robin' | 'first' = 'round-robin'): Promise<LoadBalancer> {
  let next = 0;
  const passed = new Map<number, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const start = order === 'first' ? 0 : next++ % ports.length;
      const attempt = (tried: number) => {
        if (tried === ports.length) {
          res.writeHead(502).end();
          return;
        }
        const port = ports[(start + tried) % ports.length] as number;
        const forward = http.request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
          passed.set(port, (passed.get(port) ?? 0) + 1);
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.once('aborted', () => res.destroy());
          answer.pipe(res);
        });
        // Not taken (the instance is down): the next one. Cut once taken: the gateway retries it.
        forward.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNREFUSED' ? attempt(tried + 1) : res.destroy()));
        forward.end(body);
      };
      attempt(0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    passed,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface EventReader {
  /** Resolves with the time a push on `channel` whose data passes `match` arrives (from now on). */
  next(channel: string, match: (data: unknown) => boolean, timeoutMs: number): Promise<number>;
  close(): void;
}

/** A person's event stream on one instance, read as it arrives: a desktop's (a bearer token) or a browser's (its session cookie). */
export async function readEvents(origin: string, auth: string | { cookie: string }): Promise<EventReader> {
  const controller = new AbortController();
  const headers: Record<string, string> = typeof auth === 'string' ? { authorization: `Bearer ${auth}` } : { cookie: auth.cookie };
  const response = await fetch(`${origin}/events`, { headers, signal: controller.signal });
  if (!response.ok || !response.body) throw new Error(`${origin}/events answered ${response.status}`);
  const seen: { channel: string; data: unknown; at: number }[] = [];
  const waiters = new Set<() => void>();
  const body = response.body;
  void (async () => {
    try {
      for await (const frame of serverSentEvents(body)) {
        if (frame.event && frame.data) seen.push({ channel: frame.event, data: JSON.parse(frame.data) as unknown, at: Date.now() });
        for (const wake of waiters) wake();
      }
    } catch {
      // closed
    }
  })();
  return {
    next: (channel, match, timeoutMs) =>
      new Promise((resolve, reject) => {
        const from = seen.length;
        const check = () => {
          const found = seen.slice(from).find((event) => event.channel === channel && match(event.data));
          if (!found) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found.at);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no ${channel} push within ${timeoutMs} ms (saw ${seen.map((e) => e.channel).join(', ')})`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    close: () => controller.abort(),
  };
}
