// A minimal merchant endpoint on 127.0.0.1 that records the gateway's notifications.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface NotificationSink {
  url: string;
  received: Record<string, unknown>[];
  /** Resolves with the first notification matching `pick`, or rejects after timeoutMs. */
  waitFor(pick: (n: Record<string, unknown>) => boolean, timeoutMs: number): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export async function startNotificationSink(): Promise<NotificationSink> {
  const received: Record<string, unknown>[] = [];
  const waiters = new Set<() => void>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>);
      } catch {
        // Not JSON: not ours to judge here; the listener engineer's tests cover it.
      }
      res.writeHead(200).end();
      for (const wake of waiters) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/notify`,
    received,
    waitFor: (pick, timeoutMs) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const hit = received.find(pick);
          if (!hit) return;
          cleanup();
          resolve(hit);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no matching notification within ${timeoutMs} ms`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
