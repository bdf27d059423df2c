// What web mode's server and the team server share: the security headers every answer carries,
// JSON and HTML answers, a bounded JSON body, the contract call over HTTP (POST /rpc/<channel>
// with {"input": …}), the server-sent event streams of the pushes, numbered and replayed from
// a log (push-log.ts), each stream getting only the pushes meant for it, and how such a server
// stops (closeServer: the contract calls in flight are answered first).
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Envelope } from '../../shared/contract';
import { CONTENT_SECURITY_POLICY } from '../security-policy';
import type { EventBus, PushAudience } from '../services/event-bus';
import { PushLog } from './push-log';

export const RPC_BODY_LIMIT = 1024 * 1024;
const HEARTBEAT_MS = 15_000;

export const securityHeaders = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...securityHeaders, 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers });
  res.end(JSON.stringify(body));
}

export function sendHtml(res: ServerResponse, status: number, html: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...securityHeaders, 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...headers });
  res.end(html);
}

export function refuse(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, { ok: false, error: { code: status === 401 ? 'unauthorized' : status === 429 ? 'unavailable' : 'forbidden', message } }, headers);
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

/** A POST with a JSON body of at most RPC_BODY_LIMIT, parsed; or the answer already sent (null). */
export async function readJsonPost(req: IncomingMessage, res: ServerResponse): Promise<{ body: unknown } | null> {
  if (req.method !== 'POST') {
    sendJson(res, 405, { ok: false, error: { code: 'method_not_allowed', message: 'Use POST.' } }, { allow: 'POST' });
    return null;
  }
  if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
    sendJson(res, 415, { ok: false, error: { code: 'invalid_input', message: 'Content-Type must be application/json.' } });
    return null;
  }
  try {
    const raw = await readBody(req, RPC_BODY_LIMIT);
    return { body: raw.length === 0 ? {} : (JSON.parse(raw) as unknown) };
  } catch (error) {
    if (error instanceof BodyTooLarge) sendJson(res, 413, { ok: false, error: { code: 'invalid_input', message: 'Request body is over 1 MiB.' } });
    else sendJson(res, 400, { ok: false, error: { code: 'invalid_input', message: 'Request body is not valid JSON.' } });
    return null;
  }
}

/**
 * The answers a server owes: one per contract call that has begun (its body read). A stopping
 * server waits for them, so a call that is sending a payment is answered, and what it sent is
 * recorded, before the core closes.
 */
export class AnswersOwed {
  private readonly pending = new Set<ServerResponse>();
  private waiters: (() => void)[] = [];

  owe(res: ServerResponse): void {
    this.pending.add(res);
    // 'close' comes once the answer is sent (its connection idle again) or the client went away.
    res.once('close', () => {
      this.pending.delete(res);
      if (this.pending.size === 0) for (const wake of this.waiters.splice(0)) wake();
    });
  }

  /** Resolves once no answer is owed, counting calls that begin meanwhile. */
  settled(): Promise<void> {
    return this.pending.size === 0 ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve));
  }
}

/** POST /rpc/<channel> with {"input": …}: the envelope `call` answers, always HTTP 200 (errors are in the envelope). */
export async function serveRpc(req: IncomingMessage, res: ServerResponse, channel: string, call: (channel: string, input: unknown) => Promise<Envelope<unknown>>, owed: AnswersOwed): Promise<void> {
  const read = await readJsonPost(req, res);
  if (!read) return;
  owed.owe(res);
  const { body } = read;
  const input = typeof body === 'object' && body !== null && 'input' in body ? (body as { input: unknown }).input : undefined;
  let name: string;
  try {
    name = decodeURIComponent(channel);
  } catch {
    return sendJson(res, 400, { ok: false, error: { code: 'invalid_input', message: 'The channel name is not valid.' } });
  }
  sendJson(res, 200, await call(name, input));
}

interface Stream<Client> {
  res: ServerResponse;
  client: Client;
}

/**
 * The event streams of the pushes on a bus. Each push is numbered and kept (PushLog); a stream
 * opened with `since` (or a reconnect's Last-Event-ID) first gets what it missed, or is told it has a gap. `mayHave` says
 * whether a stream's client may have a push of this audience (a person's own pushes).
 */
export class PushStreams<Client> {
  readonly log = new PushLog();
  private readonly streams = new Set<Stream<Client>>();
  private readonly unsubscribe: () => void;
  private readonly heartbeat: NodeJS.Timeout;

  constructor(
    events: EventBus,
    private readonly mayHave: (client: Client, audience: PushAudience | undefined) => boolean = () => true,
  ) {
    this.unsubscribe = events.subscribe((channel, payload, audience) => {
      const frame = this.log.add(channel, payload, audience);
      for (const stream of this.streams) if (this.mayHave(stream.client, audience)) stream.res.write(frame.text);
    });
    this.heartbeat = setInterval(() => {
      for (const stream of this.streams) stream.res.write(': heartbeat\n\n');
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  /** How many streams are open now. */
  get size(): number {
    return this.streams.size;
  }

  open(req: IncomingMessage, res: ServerResponse, url: URL, client: Client, headers: Record<string, string> = {}): void {
    res.writeHead(200, { ...securityHeaders, 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive', ...headers });
    res.write(': connected\n\n');
    // A reconnect resumes from the last frame it got, wherever that was pushed. A page's first stream
    // is replayed only the pushes since its page, if this process served it: behind a balancer
    // without affinity the page may come from another instance, and a gap there would reload the
    // page for ever (docs/team.md asks for affinity; the relayed pushes still arrive).
    const resumed = req.headers['last-event-id'];
    const since = typeof resumed === 'string' ? resumed : url.searchParams.get('since');
    if (typeof since === 'string' && (since === resumed || this.log.owns(since))) for (const frame of this.log.after(since, (audience) => this.mayHave(client, audience))) res.write(frame);
    // Where the stream stands now, as a frame id without an event: a browser that reconnects before
    // any push reached it resumes from here (Last-Event-ID), not from its page's position.
    res.write(`id: ${this.log.position}\n\n`);
    const stream = { res, client };
    this.streams.add(stream);
    res.on('close', () => this.streams.delete(stream));
  }

  /** Ends the streams of the clients this picks (their session ended). */
  end(which: (client: Client) => boolean): void {
    for (const stream of this.streams) {
      if (which(stream.client)) {
        stream.res.end();
        this.streams.delete(stream);
      }
    }
  }

  /** Ends every stream; resolves once their answers are finished (their connections idle). */
  close(): Promise<void> {
    this.unsubscribe();
    clearInterval(this.heartbeat);
    const ended = [...this.streams].map(({ res }) => new Promise<void>((resolve) => res.once('close', () => resolve()).end()));
    this.streams.clear();
    return Promise.all(ended).then(() => undefined);
  }
}

/** How long connections still open once every owed answer is sent may stay before they are cut. */
export const CLOSE_GRACE_MS = 2_000;

/**
 * Stops a server: no new connections, the push streams ended, every contract call in flight
 * answered (however long its send takes: the process's stop deadline bounds it, stop-signals.ts),
 * then the idle connections closed and whatever is left cut after `graceMs`.
 */
export async function closeServer(server: Server, streams: { close(): Promise<void> }, owed: AnswersOwed, graceMs = CLOSE_GRACE_MS): Promise<void> {
  const streamsEnded = streams.close();
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  await owed.settled();
  const force = setTimeout(() => server.closeAllConnections(), graceMs);
  // Answered connections stay open for their client's next request: close them now they are idle.
  await Promise.race([streamsEnded, closed]);
  server.closeIdleConnections();
  await closed;
  clearTimeout(force);
}

/** Listens on port and host with the request time limits every Paydesk server keeps; rejects when the address cannot be taken. */
export async function listenOn(server: Server, port: number, host: string): Promise<void> {
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
