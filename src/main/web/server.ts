// Web mode: the renderer bundle and the typed contract over HTTP on 127.0.0.1 only.
//   GET  /?token=…          the app (sets an HttpOnly session cookie for its assets)
//   GET  /assets/…          static files (cookie or token)
//   POST /rpc/<channel>     {"input": …} → envelope (token header required)
//   GET  /events?token=…&since=N   server-sent events: every push of the contract after push N
//                           (the page carries N; a reconnect sends Last-Event-ID instead)
// Without the session, a browser opening a page gets a short HTML page saying where the address
// with the token is (refusal-page.ts); every other request gets the JSON error.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Dispatch } from '../ipc/dispatcher';
import type { EventBus } from '../services/event-bus';
import type { Logger } from '../logger';
import { assetServer } from './assets';
import { PushStreams, refuse, securityHeaders, sendHtml, sendJson, serveRpc } from './http-kit';
import { refusalPage, wantsPage } from './refusal-page';
import { PUSH_SEQ_META, SESSION_META } from '../../shared/web-stream';
import { checkRequest, TOKEN_COOKIE, type TokenSource } from './request-guard';

export { RPC_BODY_LIMIT } from './http-kit';

export interface WebServerOptions {
  dispatch: Dispatch;
  events: EventBus;
  rendererDir: string;
  port?: number;
  token?: string;
  log: Logger;
  /** Marks each request's arrival and end (web mode's PAYDESK_TRACE=1). */
  trace?: (phase: string) => void;
}

export interface WebServer {
  url: string;
  origin: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

export async function startWebServer(options: WebServerOptions): Promise<WebServer> {
  const { dispatch, events, rendererDir, log } = options;
  const token = options.token ?? randomBytes(24).toString('base64url');
  // No compression: over loopback it would only cost main CPU time.
  const assets = assetServer(rendererDir, securityHeaders);
  const indexHtml = await readFile(path.join(rendererDir, 'index.html'), 'utf8');
  assets.warm(indexHtml);
  const streams = new PushStreams<null>(events);
  let port = 0;

  const guard = (req: IncomingMessage, res: ServerResponse, url: URL, source: TokenSource): boolean => {
    const verdict = checkRequest(req, url, port, token, source);
    if (verdict.allowed) return true;
    if (wantsPage(req.method, req.headers.accept)) sendHtml(res, verdict.status, refusalPage(`http://127.0.0.1:${port}`, verdict.reason));
    else refuse(res, verdict.status, verdict.reason);
    return false;
  };

  const serveIndex = (res: ServerResponse) => {
    const meta = `  <meta name="${SESSION_META}" content="${token}" />\n  <meta name="${PUSH_SEQ_META}" content="${streams.log.lastId}" />\n`;
    sendHtml(res, 200, indexHtml.replace('</head>', `${meta}</head>`), { 'set-cookie': `${TOKEN_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/` });
  };

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const route = url.pathname;
    if (options.trace) {
      const trace = options.trace;
      trace(`http: ${req.method} ${route} arrived`);
      res.once('finish', () => trace(`http: ${req.method} ${route} ${res.statusCode} sent`));
    }
    const handle = async () => {
      if (route.startsWith('/rpc/')) {
        if (guard(req, res, url, 'header')) await serveRpc(req, res, route.slice('/rpc/'.length), dispatch);
      } else if (route === '/events') {
        if (guard(req, res, url, 'query')) streams.open(req, res, url, null);
      } else if (route === '/' || route === '/index.html') {
        if (guard(req, res, url, 'query-or-cookie')) serveIndex(res);
      } else if (guard(req, res, url, 'query-or-cookie')) {
        if (!(await assets.serve(req, res, route))) sendJson(res, 404, { ok: false, error: { code: 'not_found', message: `No such path: ${route}` } });
      }
    };
    handle().catch((error: unknown) => {
      log.error(`web request ${req.method} ${route} failed`, error);
      if (!res.headersSent) sendJson(res, 500, { ok: false, error: { code: 'internal', message: 'Internal error; see the Paydesk log.' } });
      else res.destroy();
    });
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;

  return {
    url: `${origin}/?token=${token}`,
    origin,
    port,
    token,
    async close() {
      streams.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

