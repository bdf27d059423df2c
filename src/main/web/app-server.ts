// The app over HTTP(S), as web mode (server.ts) and the team server (server/http.ts) both serve it:
// one server that listens, answers every request by one route table (routeTable below: the page,
// the contract at /rpc/<channel>, the pushes at /events, the built assets) and stops with the
// contract calls in flight answered first (http-kit.ts closeServer). Each face adds only what
// differs: who may make a call, open a stream or load the page (web mode's token, the team
// server's signed-in person), what the page carries, and routes of its own (the sign-in).
import { readFile } from 'node:fs/promises';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { PUSH_SEQ_META } from '../../shared/web-stream';
import type { Dispatch } from '../ipc/dispatcher';
import { REQUEST_ID_HEADER, requestIdOf, withLogContext } from '../log-context';
import { maskText, type Logger } from '../logger';
import type { EventBus, PushAudience } from '../services/event-bus';
import { healthAnswer, HEALTH_PATHS, type HealthProbe } from '../services/health';
import { assetServer } from './assets';
import { AnswersOwed, closeServer, listenOn, PushStreams, securityHeaders, sendHtml, sendJson, serveRpc } from './http-kit';

/** One request, as a route and a face's guard see it. */
export interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  /** The port this server listens on. */
  port: number;
}

export type Route = (exchange: Exchange) => Promise<void> | void;

/**
 * What a face decides for itself. A guard that refuses (null, false) has sent the refusal.
 */
export interface AppFace<Client> {
  /** The contract as this request may call it (its caller's own dispatch), or null. */
  admitCall(exchange: Exchange): Promise<Dispatch | null> | Dispatch | null;
  /** Whom an event stream is opened for, or null. */
  admitStream(exchange: Exchange): Promise<{ client: Client } | null> | { client: Client } | null;
  /** Whether the page and its assets may be served. */
  admitPage(exchange: Exchange): boolean;
  /** What the page carries (meta tags, before the number of the last push) and the headers it is sent with. */
  page(): { meta: Record<string, string>; headers?: Record<string, string> };
  /** Whether a stream's client may have a push of this audience (all of them when omitted). */
  mayHave?: (client: Client, audience: PushAudience | undefined) => boolean;
  /** Routes of this face alone, by path. */
  routes?: Record<string, Route>;
  /** A reason while this server refuses its face's routes, calls and streams (503, Retry-After 5); null while it serves them. */
  stopping?: () => string | null;
}

export interface AppServerOptions<Client> {
  face: AppFace<Client>;
  events: EventBus;
  rendererDir: string;
  host: string;
  /** 0: any free port. */
  port: number;
  tls?: { key: string; cert: string } | undefined;
  log: Logger;
  /** How a request that failed is logged ("web request GET / failed") and which log its answer points to. */
  failures: { logAs: string; seeLog: string };
  /** Marks each request's arrival and end (web mode's PAYDESK_TRACE=1). */
  trace?: ((phase: string) => void) | undefined;
  /** What GET /readyz answers (without it only /healthz is answered). */
  health?: HealthProbe | undefined;
  /** GET /metrics on this address, to a bearer of this token (services/metrics.ts metricsRoute); none without it. */
  metrics?: Route | undefined;
}

export interface AppServer<Client> {
  port: number;
  /** How many event streams are open now. */
  streamClients(): number;
  /** Ends the event streams of the clients this picks. */
  endStreams(which: (client: Client) => boolean): void;
  close(): Promise<void>;
}

const RPC_PREFIX = '/rpc/';

/**
 * Every route of both faces, by path, besides the face's own: the page, the event streams; a path
 * under /rpc/ is a contract call, any other an asset. A route both faces answer goes here.
 */
function routeTable<Client>(face: AppFace<Client>, streams: PushStreams<Client>, owed: AnswersOwed, indexHtml: string, assets: ReturnType<typeof assetServer>, health: HealthProbe | undefined, metrics: Route | undefined) {
  const page: Route = (exchange) => {
    if (!face.admitPage(exchange)) return;
    const { meta, headers } = face.page();
    const tags = Object.entries({ ...meta, [PUSH_SEQ_META]: streams.log.position }).map(([name, content]) => `  <meta name="${name}" content="${content}" />\n`);
    sendHtml(exchange.res, 200, indexHtml.replace('</head>', `${tags.join('')}</head>`), headers);
  };
  // What a stopping server refuses: the page and its assets are still served (they hold no data).
  const unlessStopping =
    (route: Route): Route =>
    (exchange) => {
      const reason = face.stopping?.() ?? null;
      if (reason === null) return route(exchange);
      sendJson(exchange.res, 503, { ok: false, error: { code: 'unavailable', message: reason } }, { 'retry-after': '5' });
    };
  // A balancer's probes: no session, nothing but the status (and the reason it is not ready), answered while stopping too.
  const probe: Route = async (exchange) => {
    const { req, res, url } = exchange;
    const found = req.method === 'GET' || req.method === 'HEAD' ? await healthAnswer(url.pathname, health) : null;
    if (found) sendJson(res, found.status, found.body, found.status === 503 ? { 'retry-after': '5' } : {});
    else sendJson(res, 404, { ok: false, error: { code: 'not_found', message: `No such path: ${url.pathname}` } });
  };
  const routes = new Map<string, Route>([
    ...HEALTH_PATHS.map((path) => [path, probe] as const),
    ...(metrics ? [['/metrics', metrics] as const] : []),
    ...Object.entries(face.routes ?? {}).map(([path, route]) => [path, unlessStopping(route)] as const),
    [
      '/events',
      unlessStopping(async (exchange) => {
        const admitted = await face.admitStream(exchange);
        if (admitted) streams.open(exchange.req, exchange.res, exchange.url, admitted.client);
      }),
    ],
    ['/', page],
    ['/index.html', page],
  ]);
  const rpc: Route = unlessStopping(async (exchange) => {
    const call = await face.admitCall(exchange);
    if (call) await serveRpc(exchange.req, exchange.res, exchange.url.pathname.slice(RPC_PREFIX.length), call, owed);
  });
  const asset: Route = async (exchange) => {
    if (!face.admitPage(exchange)) return;
    const { req, res, url } = exchange;
    if (!(await assets.serve(req, res, url.pathname))) sendJson(res, 404, { ok: false, error: { code: 'not_found', message: `No such path: ${url.pathname}` } });
  };
  return (pathname: string): Route => routes.get(pathname) ?? (pathname.startsWith(RPC_PREFIX) ? rpc : asset);
}

export async function startAppServer<Client>(options: AppServerOptions<Client>): Promise<AppServer<Client>> {
  const { face, log, trace } = options;
  // No compression: over loopback it would only cost main CPU time.
  const assets = assetServer(options.rendererDir, securityHeaders);
  const indexHtml = await readFile(path.join(options.rendererDir, 'index.html'), 'utf8');
  assets.warm(indexHtml);
  const streams = new PushStreams<Client>(options.events, face.mayHave);
  const owed = new AnswersOwed();
  const routeOf = routeTable(face, streams, owed, indexHtml, assets, options.health, options.metrics);
  let port = 0;

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const route = url.pathname;
    if (trace) {
      trace(`http: ${req.method} ${route} arrived`);
      res.once('finish', () => trace(`http: ${req.method} ${route} ${res.statusCode} sent`));
    }
    // Every line logged while it is served names it (log-context.ts); the answer says its id too.
    withLogContext(requestIdOf(req.headers[REQUEST_ID_HEADER]), (context) => {
      res.setHeader(REQUEST_ID_HEADER, context.reqId);
      const arrived = performance.now();
      res.once('finish', () => {
        const fields = { reqId: context.reqId, ...(context.person() ? { person: context.person() } : {}), method: req.method, path: maskText(route), status: res.statusCode, ms: Math.round(performance.now() - arrived) };
        // The contract, the sign-in and the streams at info; the page, its assets and the probes at debug.
        if (route.startsWith(RPC_PREFIX) || route.startsWith('/auth/') || route === '/events') log.info('request', fields);
        else log.debug?.('request', fields);
      });
      serve(req, res, url, route);
    });
  };
  const serve = (req: IncomingMessage, res: ServerResponse, url: URL, route: string) => {
    const handle = async () => routeOf(route)({ req, res, url, port });
    handle().catch((error: unknown) => {
      log.error(`${options.failures.logAs} ${req.method} ${route} failed`, error);
      if (!res.headersSent) sendJson(res, 500, { ok: false, error: { code: 'internal', message: `Internal error; see ${options.failures.seeLog}.` } });
      else res.destroy();
    });
  };
  const server: http.Server = options.tls ? https.createServer(options.tls, onRequest) : http.createServer(onRequest);
  await listenOn(server, options.port, options.host);
  // Once listening, an error of the server (not of a request) is logged; it does not end the process.
  server.on('error', (error) => log.error(`the HTTP server on port ${port} failed`, error));
  port = (server.address() as AddressInfo).port;
  return {
    port,
    streamClients: () => streams.size,
    endStreams: (which) => streams.end(which),
    close: () => closeServer(server, streams, owed),
  };
}
