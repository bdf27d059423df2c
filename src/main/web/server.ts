// Web mode: the renderer bundle and the typed contract over HTTP on 127.0.0.1 only.
//   GET  /?token=…          the app (sets an HttpOnly session cookie for its assets)
//   GET  /assets/…          static files (cookie or token)
//   POST /rpc/<channel>     {"input": …} → envelope (token header required)
//   GET  /events?token=…&since=N   server-sent events: every push of the contract after push N
//                           (the page carries N; a reconnect sends Last-Event-ID instead)
// Without the session, a browser opening a page gets a short HTML page saying where the address
// with the token is (refusal-page.ts); every other request gets the JSON error. The server itself
// (routes, streams, closing) is the one the team server uses too (app-server.ts): this is its guard.
import { randomBytes } from 'node:crypto';
import type { Dispatch } from '../ipc/dispatcher';
import type { EventBus } from '../services/event-bus';
import type { Logger } from '../logger';
import { startAppServer, type Exchange } from './app-server';
import { refuse, sendHtml } from './http-kit';
import { refusalPage, wantsPage } from './refusal-page';
import { SESSION_META } from '../../shared/web-stream';
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
  const { dispatch } = options;
  const token = options.token ?? randomBytes(24).toString('base64url');

  /** Whether the request carries the session (from `source`) from this page's origin; else the refusal is sent. */
  const guard = ({ req, res, url, port }: Exchange, source: TokenSource): boolean => {
    const verdict = checkRequest(req, url, port, token, source);
    if (verdict.allowed) return true;
    if (wantsPage(req.method, req.headers.accept)) sendHtml(res, verdict.status, refusalPage(`http://127.0.0.1:${port}`, verdict.reason));
    else refuse(res, verdict.status, verdict.reason);
    return false;
  };

  const server = await startAppServer<null>({
    face: {
      admitCall: (exchange) => (guard(exchange, 'header') ? dispatch : null),
      admitStream: (exchange) => (guard(exchange, 'query') ? { client: null } : null),
      admitPage: (exchange) => guard(exchange, 'query-or-cookie'),
      page: () => ({ meta: { [SESSION_META]: token }, headers: { 'set-cookie': `${TOKEN_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/` } }),
    },
    events: options.events,
    rendererDir: options.rendererDir,
    host: '127.0.0.1',
    port: options.port ?? 0,
    log: options.log,
    failures: { logAs: 'web request', seeLog: 'the Paydesk log' },
    trace: options.trace,
  });
  const origin = `http://127.0.0.1:${server.port}`;
  return { url: `${origin}/?token=${token}`, origin, port: server.port, token, close: server.close };
}
