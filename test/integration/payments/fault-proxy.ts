// A gateway in front of the emulator that misbehaves on demand, for the faults the emulator
// cannot produce itself: an answer lost after the gateway acted, a request lost before it
// arrived, an answer that never comes (timeout), 429 with Retry-After and 503 on create calls.
// Every request is recorded (path, Idempotency-Key, exact body, time) so tests can prove what
// went out.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type Fault =
  /** Cut the connection without forwarding: the gateway never saw it. */
  | 'drop_before'
  /** Forward, then cut the connection instead of answering: the gateway acted, the answer is lost. */
  | 'drop_after'
  /** Forward, then never answer: the client times out. */
  | 'hang_after'
  | 'status_429'
  | 'status_503';

export interface ProxiedRequest {
  path: string;
  idempotencyKey: string | null;
  body: string;
  at: number;
  fault: Fault | null;
}

export interface FaultProxy {
  /** http://127.0.0.1:port: use `${url}/api/` as a sandbox profile's address. */
  url: string;
  requests: ProxiedRequest[];
  /** Faults for the next create calls (requests with an Idempotency-Key), in order. */
  faults: Fault[];
  creates(): ProxiedRequest[];
  close(): Promise<void>;
}

export async function startFaultProxy(target: () => string): Promise<FaultProxy> {
  const requests: ProxiedRequest[] = [];
  const faults: Fault[] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const key = typeof req.headers['idempotency-key'] === 'string' ? req.headers['idempotency-key'] : null;
        const fault = key !== null ? (faults.shift() ?? null) : null;
        requests.push({ path: req.url ?? '', idempotencyKey: key, body, at: Date.now(), fault });
        if (fault === 'drop_before') return void req.socket.destroy();
        if (fault === 'status_429' || fault === 'status_503') {
          const status = fault === 'status_429' ? 429 : 503;
          res.writeHead(status, { 'content-type': 'application/json', ...(status === 429 ? { 'retry-after': '1' } : {}) });
          return void res.end(JSON.stringify({ status: 'error', reason_code: 'TRANSIENT_ERROR', message: 'injected by the test proxy' }));
        }
        const headers: Record<string, string> = {};
        for (const name of ['content-type', 'merchant-token', 'idempotency-key']) {
          const value = req.headers[name];
          if (typeof value === 'string') headers[name] = value;
        }
        const answer = await fetch(`${target()}${req.url ?? ''}`, { method: req.method ?? 'POST', headers, body });
        const text = await answer.text();
        if (fault === 'drop_after') return void req.socket.destroy();
        if (fault === 'hang_after') return;
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json', ...(answer.headers.get('retry-after') ? { 'retry-after': answer.headers.get('retry-after') as string } : {}) });
        res.end(text);
      })().catch(() => req.socket.destroy());
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    faults,
    creates: () => requests.filter((r) => r.idempotencyKey !== null),
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
