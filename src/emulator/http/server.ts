// node:http transport: reads bodies within a size limit, enforces header and request timeouts
// against slow clients, turns every thrown error into a JSON 500 and never lets one request
// take the process down.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { HttpLimits } from '../options';
import type { Logger } from '../runtime';
import { JSON_TYPE, type Reply, type Request } from './types';
import { errorMessage } from '../../shared/error-message';

export type Dispatch = (req: Request) => Promise<Reply>;

/** How much of an oversized body we read and discard so the client can still read our 413. */
const DRAIN_LIMIT = 16 * 1024 * 1024;

export interface Transport {
  port: number;
  close(): Promise<void>;
}

type BodyResult = { ok: true; body: Buffer } | { ok: false; tooLarge: true; drained: boolean } | { ok: false; tooLarge: false };

function readBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  return new Promise((resolve) => {
    const declared = Number(req.headers['content-length'] ?? NaN);
    if (declared > DRAIN_LIMIT) {
      resolve({ ok: false, tooLarge: true, drained: false });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let over = declared > limit;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) over = true;
      if (size > DRAIN_LIMIT) {
        req.pause();
        resolve({ ok: false, tooLarge: true, drained: false });
        return;
      }
      if (!over) chunks.push(chunk);
    });
    req.on('end', () => resolve(over ? { ok: false, tooLarge: true, drained: true } : { ok: true, body: Buffer.concat(chunks) }));
    req.on('error', () => resolve({ ok: false, tooLarge: false }));
    req.on('aborted', () => resolve({ ok: false, tooLarge: false }));
  });
}

function send(res: ServerResponse, reply: Reply, close = false): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(reply.status, {
    'content-type': reply.contentType ?? JSON_TYPE,
    'content-length': String(Buffer.byteLength(reply.body, 'utf8')),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...(close ? { connection: 'close' } : {}),
    ...reply.headers,
  });
  // A string body is joined to the head in one chunk (a Buffer would be a second chunk, and a copy).
  res.end(reply.body, 'utf8');
}

function originOf(req: IncomingMessage, fallbackHost: string): string {
  const host = req.headers.host;
  // Only trust a Host that looks like host[:port]; anything else falls back to our own address.
  return `http://${host && /^[\w.\-[\]:]+$/.test(host) ? host : fallbackHost}`;
}

/** The refusals Node makes before a request reaches dispatch (clientError). */
export type TransportRefusal = 'bad_http_request' | 'request_timeout' | 'headers_too_large';

const pathOf = (url: string | undefined): string => (url ?? '/').split(/[?#]/)[0] as string;

/** The path of a request line at the start of raw bytes ("POST /api/v2/payouts/create HTTP/1.1"), or null. */
function requestLinePath(raw: unknown): string | null {
  if (!Buffer.isBuffer(raw)) return null;
  const match = /^[A-Z]+ (\/\S*)/.exec(raw.subarray(0, 2048).toString('latin1'));
  return match ? pathOf(match[1]) : null;
}

export interface ServerDeps {
  limits: HttpLimits;
  log: Logger;
  dispatch: Dispatch;
  /** The answers made outside dispatch, in the shape of the area the path belongs to (null: not known). */
  tooLarge: (path: string) => Reply;
  internalError: (path: string) => Reply;
  refused: (path: string | null, why: TransportRefusal) => Reply;
}

export function startTransport(host: string, port: number, deps: ServerDeps): Promise<Transport> {
  const { limits, log } = deps;
  const server = http.createServer({
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // Node checks the two timeouts above only at this interval (default 30 s).
    connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs, limits.requestTimeoutMs),
    maxHeaderSize: 16 * 1024,
  });
  let selfHost = host;
  // The path of the request each connection is reading, so a timeout on its body answers in its
  // endpoint's shape (a payout's with a C-code).
  const inFlight = new WeakMap<Socket, string>();

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const path = pathOf(req.url);
    inFlight.set(req.socket, path);
    res.on('close', () => {
      if (inFlight.get(req.socket) === path) inFlight.delete(req.socket);
    });
    void (async () => {
      const started = Date.now();
      try {
        const body = await readBody(req, limits.bodyLimitBytes);
        if (!body.ok) {
          if (body.tooLarge) {
            send(res, deps.tooLarge(path), true);
            if (!body.drained) res.on('finish', () => req.socket.destroy());
          } else res.destroy();
          return;
        }
        const url = new URL(req.url ?? '/', 'http://localhost');
        const reply = await deps.dispatch({
          method: req.method ?? 'GET',
          path: url.pathname,
          query: url.searchParams,
          headers: req.headers,
          body: body.body,
          origin: originOf(req, selfHost),
        });
        send(res, reply);
        log.info('request', { method: req.method, path: url.pathname, status: reply.status, ms: Date.now() - started });
      } catch (err) {
        log.error('request failed', { path: req.url?.split('?')[0], error: errorMessage(err) });
        send(res, deps.internalError(path), true);
      }
    })();
  });
  server.on('clientError', (err: NodeJS.ErrnoException & { rawPacket?: unknown }, socket: Socket) => {
    if (!socket.writable) return socket.destroy();
    const why: TransportRefusal = err.code === 'HPE_HEADER_OVERFLOW' ? 'headers_too_large' : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'request_timeout' : 'bad_http_request';
    const reply = deps.refused(inFlight.get(socket) ?? requestLinePath(err.rawPacket), why);
    socket.end(`HTTP/1.1 ${reply.status} ${http.STATUS_CODES[reply.status]}\r\ncontent-type: ${JSON_TYPE}\r\ncontent-length: ${Buffer.byteLength(reply.body)}\r\nconnection: close\r\n\r\n${reply.body}`);
  });

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      server.on('error', (err) => log.error('server error', { error: err.message }));
      const addr = server.address() as AddressInfo;
      selfHost = `${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}`;
      resolve({
        port: addr.port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
