// A pass-through proxy in front of the emulator that holds each create call's answer for a while
// after the gateway has acted: a kill of the app in that window is the case exactly-once exists
// for (the gateway holds the payment, the app never heard back). It also counts what went out
// per Idempotency-Key, and can cut create calls before they reach the gateway (dropCreates).
// Loopback only.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface LatencyProxy {
  /** http://127.0.0.1:port/api/v2 (same path layout as the emulator). */
  baseUrl: string;
  /** Create calls forwarded, per Idempotency-Key. */
  sendsPerKey: Map<string, number>;
  /**
   * While true, a create call's connection is cut as soon as it arrives: nothing reaches the
   * gateway (not counted in sendsPerKey), and the app sees a transport failure.
   */
  dropCreates: boolean;
  close(): Promise<void>;
}

export async function startLatencyProxy(targetOrigin: string, delayMs: () => number): Promise<LatencyProxy> {
  const target = new URL(targetOrigin);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const sendsPerKey = new Map<string, number>();
  const sockets = new Set<Socket>();
  const control = { dropCreates: false };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const key = req.headers['idempotency-key'];
      if (typeof key === 'string' && control.dropCreates) {
        req.socket.destroy();
        return;
      }
      if (typeof key === 'string') sendsPerKey.set(key, (sendsPerKey.get(key) ?? 0) + 1);
      const headers = { ...req.headers, host: target.host };
      const upstream = http.request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers, agent }, (answer) => {
        const body: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => body.push(chunk));
        answer.on('end', () => {
          const send = () => {
            if (res.destroyed) return;
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            res.end(Buffer.concat(body));
          };
          if (typeof key === 'string') setTimeout(send, delayMs());
          else send();
        });
      });
      upstream.on('error', () => {
        if (!res.headersSent) res.writeHead(502).end();
      });
      upstream.end(Buffer.concat(chunks));
    });
    req.on('error', () => res.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/api/v2`,
    sendsPerKey,
    get dropCreates() {
      return control.dropCreates;
    },
    set dropCreates(drop: boolean) {
      control.dropCreates = drop;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        agent.destroy();
        server.close(() => resolve());
      }),
  };
}
