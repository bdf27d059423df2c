// The notification listener: POST /n/<profile path secret> with a JSON body. Each notification is
// committed to the ledger (raw bytes, headers, time, source, profile) before it is answered, many
// per transaction (group-commit.ts). A malformed one is stored too and answered 400 (413 when too
// large, 415 when not JSON); only requests to a path that belongs to no profile are not stored,
// because there is no profile to store them under. If the ledger write fails the answer is 503,
// so the gateway retries: a notification is never acknowledged without being stored.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { commitsAreDurable, type Ledger } from '../ledger/connection';
import { NotificationsRepository, type NewNotification } from '../ledger/repositories/notifications';
import { ProfilesRepository } from '../ledger/repositories/profiles';
import { isoTime, systemClock, type Clock } from '../ledger/support';
import { REQUEST_ID_HEADER, requestIdOf, withLogContext } from '../log-context';
import type { Logger } from '../logger';
import { healthAnswer, type HealthProbe } from '../services/health';
import { readBody } from './body';
import { ProfileCache } from './profile-cache';
import { GroupCommitter } from './group-commit';
import { classifyRequest } from './intake';

export interface ListenerLimits {
  maxBodyBytes: number;
  /** Past this many body bytes the connection is cut instead of drained. */
  hardBodyCapBytes: number;
  maxHeaderBytes: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  /** How often Node checks the two timeouts above. */
  timeoutCheckIntervalMs: number;
  maxBatch: number;
  batchWindowMs: number;
  /** How long a path → profile lookup is reused (a ledger read per request costs more than the insert). */
  profileCacheMs: number;
}

export const DEFAULT_LIMITS: ListenerLimits = {
  maxBodyBytes: 256 * 1024,
  hardBodyCapBytes: 2 * 1024 * 1024,
  maxHeaderBytes: 16 * 1024,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  timeoutCheckIntervalMs: 1_000,
  maxBatch: 1_000,
  batchWindowMs: 0,
  profileCacheMs: 1_000,
};

export interface ListenerOptions {
  db: Ledger;
  /** Loopback unless a deployment asks otherwise (behind a reverse proxy, say). */
  host?: string;
  port?: number;
  /** A team server's own certificate: the listener answers over https (else http, behind a TLS reverse proxy). */
  tls?: { key: string; cert: string };
  limits?: Partial<ListenerLimits>;
  /**
   * Called with the id of every stored notification, after its answer was sent, and the outcome
   * it was stored with ('pending' to be applied, or 'malformed'). Must not throw.
   */
  onStored?: (id: number, outcome: NewNotification['outcome']) => void;
  /** Told of every notification answered: its event (when its body named a known one), the answer's status, the seconds from arrival to answer. Must not throw. */
  onAnswered?: (event: string | null, status: number, seconds: number) => void;
  /** Answers GET /readyz (GET /healthz answers 200 while the listener serves), so a balancer in front of it can tell. */
  health?: HealthProbe;
  now?: Clock;
  log?: Logger;
}

export interface Listener {
  host: string;
  port: number;
  /** The local URL of a profile's notification path. */
  url(pathSecret: string): string;
  stats(): { stored: number; batches: number; queued: number };
  /** Forget cached profile paths; call after a profile is created, rotated or deleted. */
  refreshProfiles(): void;
  close(): Promise<void>;
}

export const LISTENER_PATH_PREFIX = '/n/';
const PATH = /^\/n\/([A-Za-z0-9_-]{32,128})$/;

const silent: Logger = { info: () => {}, warn: () => {}, error: () => {} };

export async function startListener(options: ListenerOptions): Promise<Listener> {
  // An acknowledgement promises the notification survives a power cut: refuse a ledger that would not keep it.
  if (!(await commitsAreDurable(options.db))) throw new Error('the notification listener needs a ledger whose commits are durable (SQLite synchronous=FULL, PostgreSQL synchronous_commit=on)');
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const now = options.now ?? systemClock;
  const log = options.log ?? silent;
  const profiles = new ProfileCache(new ProfilesRepository(options.db, now), limits.profileCacheMs);
  const notifications = new NotificationsRepository(options.db, now);
  const committer = new GroupCommitter<NewNotification, number>((batch) => notifications.insertMany(batch), {
    maxBatch: limits.maxBatch,
    windowMs: limits.batchWindowMs,
  });

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const receivedAt = isoTime(now());
    const pathname = (req.url ?? '').split('?')[0] ?? '';
    if (await answeredHealth(pathname, req, res, options.health)) return;
    const arrived = performance.now();
    let event: string | null = null;
    res.once('finish', () => {
      const seconds = (performance.now() - arrived) / 1000;
      options.onAnswered?.(event, res.statusCode, seconds);
      log.debug?.('notification answered', { path: `${LISTENER_PATH_PREFIX}…`, status: res.statusCode, event, ms: Math.round(seconds * 1000) });
    });
    const match = PATH.exec(pathname);
    const profileId = match?.[1] === undefined ? undefined : await profiles.idFor(match[1]);
    if (!profileId) return answer(res, 404, { status: 'not_found' });
    if (req.method !== 'POST') return answer(res, 405, { status: 'method_not_allowed' }, { allow: 'POST' });

    const read = await readBody(req, limits.maxBodyBytes, limits.hardBodyCapBytes);
    if (read === null) return; // the sender went away or timed out mid-body: nothing complete to keep
    const record: NewNotification = {
      profileId,
      receivedAt,
      sourceAddress: req.socket.remoteAddress ? `${req.socket.remoteAddress}:${req.socket.remotePort ?? ''}` : null,
      rawHeaders: req.rawHeaders,
      body: read.body,
      bodySize: read.size,
      bodyTruncated: read.truncated,
      ...classifyRequest(read, req.headers['content-type'], limits.maxBodyBytes),
    };
    event = record.event;

    let id: number;
    try {
      id = await committer.submit(record); // resolves once the batch's transaction has committed
    } catch (error) {
      log.error('notification could not be stored; answered 503 so the gateway retries', error);
      return answer(res, 503, { status: 'unavailable' }, { 'retry-after': '1' });
    }
    const closeAfter: Record<string, string> = read.abusive || read.truncated ? { connection: 'close' } : {};
    answer(res, record.answerStatus, record.answerStatus === 200 ? { status: 'received' } : { status: 'rejected', reason: record.detail }, closeAfter);
    if (read.abusive) res.on('finish', () => req.socket.destroy());
    try {
      options.onStored?.(id, record.outcome);
    } catch (error) {
      log.error(`onStored failed for notification ${id}`, error);
    }
  };

  const serverOptions = {
    maxHeaderSize: limits.maxHeaderBytes,
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: limits.timeoutCheckIntervalMs,
  };
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    // A request id on every line logged while it is handled (log-context.ts); its path is a profile's secret, never logged.
    withLogContext(requestIdOf(req.headers[REQUEST_ID_HEADER]), (context) => {
      res.setHeader(REQUEST_ID_HEADER, context.reqId);
      handle(req, res).catch((error: unknown) => {
        log.error('notification listener failed', error);
        if (!res.headersSent) answer(res, 500, { status: 'error' });
      });
    });
  };
  const server: http.Server = options.tls ? https.createServer({ ...serverOptions, ...options.tls }, onRequest) : http.createServer(serverOptions, onRequest);
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  // A wildcard bind (every interface) is reached locally through loopback.
  const urlHost = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  const origin = `${options.tls ? 'https' : 'http'}://${urlHost.includes(':') ? `[${urlHost}]` : urlHost}:${port}`;
  log.info(`notification listener on ${origin}${LISTENER_PATH_PREFIX}…`);

  return {
    host,
    port,
    url: (pathSecret) => `${origin}${LISTENER_PATH_PREFIX}${pathSecret}`,
    stats: () => {
      const s = committer.stats();
      return { stored: s.committed, batches: s.batches, queued: s.queued };
    },
    refreshProfiles: () => profiles.clear(),
    close: () => closeServer(server, committer),
  };
}

/** GET /healthz and /readyz (their paths are not a profile's: those are under /n/): true when answered. */
async function answeredHealth(pathname: string, req: IncomingMessage, res: ServerResponse, health: HealthProbe | undefined): Promise<boolean> {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const found = await healthAnswer(pathname, health);
  if (!found) return false;
  answer(res, found.status, found.body, found.status === 503 ? { 'retry-after': '5' } : {});
  return true;
}

function answer(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store', ...headers });
  res.end(text);
}

/** Stops accepting, lets requests in flight be stored and answered, then closes what is left. */
async function closeServer(server: http.Server, committer: GroupCommitter<NewNotification, number>): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const deadline = Date.now() + 2_000;
  const busy = () => {
    const s = committer.stats();
    return s.queued + s.inFlight > 0;
  };
  while (busy() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  const force = setTimeout(() => server.closeAllConnections(), 1_000);
  await closed;
  clearTimeout(force);
}
