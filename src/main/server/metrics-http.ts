// GET /metrics for Prometheus (services/metrics.ts), served one of two ways (docs/team.md, "Health,
// metrics and logs"): on the app address to a bearer of the metrics token (--metrics-token-file),
// or on an address of its own that answers nothing else and needs no token (--metrics-listen: keep
// it on a private interface). The token is compared by its digest in constant time.
import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../logger';
import type { Metrics } from '../services/metrics';
import type { Route } from '../web/app-server';
import { listenOn, refuse, sendJson } from '../web/http-kit';

const digest = (text: string) => createHash('sha256').update(text).digest();

async function sendMetrics(res: http.ServerResponse, metrics: Metrics): Promise<void> {
  const { contentType, body } = await metrics.text();
  res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  res.end(body);
}

/** /metrics on the app address: only to `Authorization: Bearer <token>`. */
export function metricsRoute(metrics: Metrics, token: string): Route {
  const expected = digest(token);
  return async ({ req, res }) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendJson(res, 405, { ok: false, error: { code: 'invalid_input', message: 'GET /metrics.' } }, { allow: 'GET' });
    const auth = req.headers.authorization;
    const given = typeof auth === 'string' && auth.startsWith('Bearer ') ? auth.slice('Bearer '.length).trim() : '';
    if (!given || !timingSafeEqual(digest(given), expected)) return refuse(res, 401, 'GET /metrics needs the metrics token (Authorization: Bearer).', { 'www-authenticate': 'Bearer realm="paydesk-metrics"' });
    await sendMetrics(res, metrics);
  };
}

export interface MetricsServer {
  origin: string;
  close(): Promise<void>;
}

/** /metrics on an address of its own (no token); every other path is 404. */
export async function startMetricsServer(options: { host: string; port: number; metrics: Metrics; log: Logger }): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    const pathname = (req.url ?? '/').split('?')[0];
    if (pathname !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) return sendJson(res, 404, { ok: false, error: { code: 'not_found', message: 'Only GET /metrics here.' } });
    sendMetrics(res, options.metrics).catch((error: unknown) => {
      options.log.error('serving /metrics failed', error);
      if (!res.headersSent) sendJson(res, 500, { ok: false, error: { code: 'internal', message: 'Internal error; see the team server log.' } });
      else res.destroy();
    });
  });
  await listenOn(server, options.port, options.host);
  const { port } = server.address() as AddressInfo;
  const host = options.host === '0.0.0.0' ? '127.0.0.1' : options.host === '::' ? '[::1]' : options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    origin: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
