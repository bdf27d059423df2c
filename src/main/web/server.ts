// Web mode: the renderer bundle and the typed contract over HTTP on 127.0.0.1 only.
//   GET  /?token=…          the app (sets an HttpOnly session cookie for its assets)
//   GET  /assets/…          static files (cookie or token)
//   POST /rpc/<channel>     {"input": …} → envelope (token header required)
//   GET  /events?token=…&since=N   server-sent events: every push of the contract after push N
//                           (the page carries N; a reconnect sends Last-Event-ID instead)
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Dispatch } from '../ipc/dispatcher';
import type { EventBus } from '../services/event-bus';
import { CONTENT_SECURITY_POLICY } from '../security-policy';
import type { Logger } from '../logger';
import { assetServer } from './assets';
import { PushLog } from './push-log';
import { PUSH_SEQ_META, SESSION_META } from '../../shared/web-stream';
import { checkRequest, TOKEN_COOKIE, type TokenSource } from './request-guard';

export const RPC_BODY_LIMIT = 1024 * 1024;
const HEARTBEAT_MS = 15_000;

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

const securityHeaders = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { ...securityHeaders, 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

function refuse(res: ServerResponse, status: number, message: string): void {
  sendJson(res, status, { ok: false, error: { code: status === 401 ? 'unauthorized' : 'forbidden', message } });
}

class BodyTooLarge extends Error {}

async function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new BodyTooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function startWebServer(options: WebServerOptions): Promise<WebServer> {
  const { dispatch, events, rendererDir, log } = options;
  const token = options.token ?? randomBytes(24).toString('base64url');
  // No compression: over loopback it would only cost main CPU time.
  const assets = assetServer(rendererDir, securityHeaders);
  const indexHtml = await readFile(path.join(rendererDir, 'index.html'), 'utf8');
  assets.warm(indexHtml);
  const sseClients = new Set<ServerResponse>();
  const pushes = new PushLog();
  let port = 0;

  const guard = (req: IncomingMessage, res: ServerResponse, url: URL, source: TokenSource): boolean => {
    const verdict = checkRequest(req, url, port, token, source);
    if (!verdict.allowed) refuse(res, verdict.status, verdict.reason);
    return verdict.allowed;
  };

  const serveIndex = (res: ServerResponse) => {
    const meta = `  <meta name="${SESSION_META}" content="${token}" />\n  <meta name="${PUSH_SEQ_META}" content="${pushes.lastId}" />\n`;
    const html = indexHtml.replace('</head>', `${meta}</head>`);
    res.writeHead(200, {
      ...securityHeaders,
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'set-cookie': `${TOKEN_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`,
    });
    res.end(html);
  };

  const handleRpc = async (req: IncomingMessage, res: ServerResponse, channel: string) => {
    if (req.method !== 'POST') return sendJson(res, 405, { ok: false, error: { code: 'method_not_allowed', message: 'Use POST.' } });
    if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
      return sendJson(res, 415, { ok: false, error: { code: 'invalid_input', message: 'Content-Type must be application/json.' } });
    }
    let parsed: unknown;
    try {
      const raw = await readBody(req, RPC_BODY_LIMIT);
      parsed = raw.length === 0 ? {} : JSON.parse(raw);
    } catch (error) {
      if (error instanceof BodyTooLarge) return sendJson(res, 413, { ok: false, error: { code: 'invalid_input', message: 'Request body is over 1 MiB.' } });
      return sendJson(res, 400, { ok: false, error: { code: 'invalid_input', message: 'Request body is not valid JSON.' } });
    }
    const input = typeof parsed === 'object' && parsed !== null && 'input' in parsed ? (parsed as { input: unknown }).input : undefined;
    sendJson(res, 200, await dispatch(decodeURIComponent(channel), input));
  };

  const openEventStream = (req: IncomingMessage, res: ServerResponse, url: URL) => {
    res.writeHead(200, { ...securityHeaders, 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
    res.write(': connected\n\n');
    const since = req.headers['last-event-id'] ?? url.searchParams.get('since');
    if (typeof since === 'string' && /^\d{1,15}$/.test(since)) for (const frame of pushes.after(Number(since))) res.write(frame);
    sseClients.add(res);
    res.on('close', () => sseClients.delete(res));
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
        if (guard(req, res, url, 'header')) await handleRpc(req, res, route.slice('/rpc/'.length));
      } else if (route === '/events') {
        if (guard(req, res, url, 'query')) openEventStream(req, res, url);
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

  const unsubscribe = events.subscribe((channel, payload) => {
    const frame = pushes.add(channel, payload);
    for (const client of sseClients) client.write(frame);
  });
  const heartbeat = setInterval(() => {
    for (const client of sseClients) client.write(': heartbeat\n\n');
  }, HEARTBEAT_MS);
  heartbeat.unref();

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
      unsubscribe();
      clearInterval(heartbeat);
      for (const client of sseClients) client.end();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

