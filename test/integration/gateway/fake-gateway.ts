// A scripted gateway on 127.0.0.1 for fault tests: each request takes the next action of the
// script (answer, hang, drop the connection) and is recorded with its exact body bytes. Over https
// when given a key and certificate (a live profile must use https).
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

export type FakeAction =
  | { type: 'respond'; status: number; body?: string | object; headers?: Record<string, string>; delayMs?: number }
  /** Read the whole request, never answer (the client times out). */
  | { type: 'hang' }
  /** Read the whole request, then cut the connection without an answer. */
  | { type: 'drop' };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  receivedAt: number;
}

export interface FakeGateway {
  baseUrl: string;
  requests: RecordedRequest[];
  /** Most requests in flight at the same time. */
  maxInFlight: number;
  /** Actions for the next requests, in order; when empty, `fallback` answers. */
  script(...actions: FakeAction[]): void;
  fallback: FakeAction;
  close(): Promise<void>;
}

export async function startFakeGateway(options: { tls?: { key: string; cert: string } } = {}): Promise<FakeGateway> {
  const queue: FakeAction[] = [];
  let inFlight = 0;
  const state: FakeGateway = {
    baseUrl: '',
    requests: [],
    maxInFlight: 0,
    script: (...actions) => queue.push(...actions),
    fallback: { type: 'respond', status: 200, body: { status: 'success', status_code: 100 } },
    close: async () => undefined,
  };
  const handle: http.RequestListener = (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      inFlight++;
      state.maxInFlight = Math.max(state.maxInFlight, inFlight);
      state.requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks), receivedAt: Date.now() });
      const action = queue.shift() ?? state.fallback;
      const done = () => {
        inFlight--;
      };
      res.on('close', done);
      if (action.type === 'hang') return;
      if (action.type === 'drop') {
        req.socket.destroy();
        return;
      }
      const send = () => {
        const body = typeof action.body === 'string' ? action.body : JSON.stringify(action.body ?? {});
        res.writeHead(action.status, { 'content-type': 'application/json', ...action.headers });
        res.end(body);
      };
      if (action.delayMs) setTimeout(send, action.delayMs);
      else send();
    });
  };
  const server = options.tls ? https.createServer(options.tls, handle) : http.createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  state.baseUrl = `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}/api/v2`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}
