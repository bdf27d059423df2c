// The team server's HTTP(S) face: the renderer for browsers, the typed contract for people
// signed in, and their pushes — web mode's bridge, grown up (web/http-kit.ts is shared).
//   GET  /, /assets/…          the app (its sign-in form first): public, it holds no data
//   POST /auth/login           {username, password, totp?, client?} → the session (a browser gets
//                              an HttpOnly cookie; a desktop asks with client "desktop" and gets
//                              the token, kept in its OS keychain)
//   POST /auth/logout          ends the session
//   POST /rpc/<channel>        {"input": …} → envelope, as the person signed in (role checked)
//   GET  /events?since=N       server-sent events: the pushes this person may have
// A browser's cookie is accepted only with the header x-paydesk-csrf (a page of another origin
// cannot send it without a preflight this server never allows) and, when Origin is sent, from
// this server's own origin. A desktop sends Authorization: Bearer <token>.
import { readFile } from 'node:fs/promises';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Envelope } from '../../shared/contract';
import { CSRF_HEADER, PUSH_SEQ_META, TEAM_META } from '../../shared/web-stream';
import type { Dispatch } from '../ipc/dispatcher';
import type { Logger } from '../logger';
import type { EventBus } from '../services/event-bus';
import type { Authorizer } from '../services/team/authorizer';
import { runAs, type RequestPerson } from '../services/team/request-context';
import { SignInError, type TeamService } from '../services/team/team-service';
import { assetServer } from '../web/assets';
import { PushStreams, readJsonPost, refuse, securityHeaders, sendHtml, sendJson, serveRpc } from '../web/http-kit';
import { cookieValue } from '../web/request-guard';

export const SESSION_COOKIE = 'paydesk_team';

export interface TeamHttpOptions {
  dispatch: Dispatch;
  events: EventBus;
  team: TeamService;
  authorizer: Authorizer;
  rendererDir: string;
  host: string;
  port: number;
  tls?: { key: string; cert: string };
  /** Take the client's address from X-Forwarded-For (behind a reverse proxy that sets it). */
  trustProxy?: boolean;
  /** Cookies get Secure: the server is reached over https (its own certificate or a TLS proxy). */
  secureCookies: boolean;
  log: Logger;
}

export interface TeamHttpServer {
  origin: string;
  port: number;
  /** Ends the event streams of these sessions (they were revoked). */
  endSessions(ids: readonly string[]): void;
  close(): Promise<void>;
}

interface StreamClient {
  personId: string;
  sessionId: string;
}

const loginInput = (body: unknown) => {
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  return { username: text(b.username).slice(0, 100), password: text(b.password).slice(0, 200), totp: typeof b.totp === 'string' && b.totp !== '' ? b.totp.slice(0, 10) : undefined, client: b.client === 'desktop' ? ('desktop' as const) : ('browser' as const) };
};

export async function startTeamHttp(options: TeamHttpOptions): Promise<TeamHttpServer> {
  const { dispatch, events, team, authorizer, rendererDir, log } = options;
  const assets = assetServer(rendererDir, securityHeaders);
  const indexHtml = await readFile(path.join(rendererDir, 'index.html'), 'utf8');
  assets.warm(indexHtml);
  const streams = new PushStreams<StreamClient>(events, (client, audience) => !audience || audience.personId === client.personId || audience.sessionId === client.sessionId);
  const cookie = (value: string, maxAgeSeconds: number) => `${SESSION_COOKIE}=${value}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${maxAgeSeconds}${options.secureCookies ? '; Secure' : ''}`;

  const clientAddress = (req: IncomingMessage): string => {
    const forwarded = req.headers['x-forwarded-for'];
    if (options.trustProxy && typeof forwarded === 'string') return forwarded.split(',')[0]!.trim().slice(0, 100);
    return req.socket.remoteAddress ?? 'unknown';
  };

  /** The session token a request carries: a desktop's bearer header, or a browser's cookie (with the CSRF header on writes). */
  const tokenOf = (req: IncomingMessage, kind: 'write' | 'read'): string | undefined => {
    const auth = req.headers.authorization;
    if (typeof auth === 'string' && auth.startsWith('Bearer ')) return auth.slice('Bearer '.length).trim();
    const fromCookie = cookieValue(req.headers.cookie, SESSION_COOKIE);
    if (!fromCookie) return undefined;
    const origin = req.headers.origin;
    if (origin !== undefined && origin.replace(/^https?:\/\//, '') !== req.headers.host) return undefined;
    if (kind === 'write' && req.headers[CSRF_HEADER] !== '1') return undefined;
    return fromCookie;
  };

  const signedIn = async (req: IncomingMessage, res: ServerResponse, kind: 'write' | 'read'): Promise<{ person: RequestPerson; token: string } | null> => {
    const token = tokenOf(req, kind);
    const person = token ? await team.authenticate(token) : null;
    if (!person || !token) {
      refuse(res, 401, 'Sign in to the team server (your session ended, or there was none).');
      return null;
    }
    return { person, token };
  };

  const login = async (req: IncomingMessage, res: ServerResponse) => {
    const read = await readJsonPost(req, res);
    if (!read) return;
    const input = loginInput(read.body);
    try {
      const done = await team.signIn({ ...input, address: clientAddress(req) });
      const session = await team.sessionView(done.person);
      if (input.client === 'desktop') return sendJson(res, 200, { ok: true, value: { session, token: done.token } });
      const maxAge = Math.max(0, Math.floor((Date.parse(done.session.expiresAt) - Date.now()) / 1000));
      sendJson(res, 200, { ok: true, value: { session } }, { 'set-cookie': cookie(done.token, maxAge) });
    } catch (error) {
      if (!(error instanceof SignInError)) throw error;
      if (error.reason === 'rate_limited') return sendJson(res, 429, { ok: false, error: { code: 'unavailable', message: error.message } }, { 'retry-after': String(error.retryAfterSeconds ?? 60) });
      const fields = error.reason === 'totp_required' ? { totp: error.message } : undefined;
      sendJson(res, 401, { ok: false, error: { code: 'unauthorized', message: error.message, ...(fields ? { fields } : {}) } });
    }
  };

  const logout = async (req: IncomingMessage, res: ServerResponse) => {
    const token = tokenOf(req, 'write');
    if (token) await team.signOut(token);
    sendJson(res, 200, { ok: true, value: { signedOut: true } }, { 'set-cookie': cookie('', 0) });
  };

  const rpc = async (req: IncomingMessage, res: ServerResponse, channel: string) => {
    const who = await signedIn(req, res, 'write');
    if (!who) return;
    const { person } = who;
    await serveRpc(req, res, channel, async (name, input): Promise<Envelope<unknown>> => {
      const verdict = await authorizer.before(person, name, input);
      if (!verdict.ok) return { ok: false, error: verdict.error };
      const answer = await runAs(person, () => dispatch(name, verdict.input));
      return authorizer.after(person, answer);
    });
  };

  const serveIndex = (res: ServerResponse) => {
    const meta = `  <meta name="${TEAM_META}" content="1" />\n  <meta name="${PUSH_SEQ_META}" content="${streams.log.lastId}" />\n`;
    sendHtml(res, 200, indexHtml.replace('</head>', `${meta}</head>`));
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://server');
    const route = url.pathname;
    const handle = async () => {
      if (route === '/auth/login') await login(req, res);
      else if (route === '/auth/logout') await logout(req, res);
      else if (route.startsWith('/rpc/')) await rpc(req, res, route.slice('/rpc/'.length));
      else if (route === '/events') {
        const who = await signedIn(req, res, 'read');
        if (who) streams.open(req, res, url, { personId: who.person.id, sessionId: who.person.sessionId });
      } else if (route === '/' || route === '/index.html') serveIndex(res);
      else if (!(await assets.serve(req, res, route))) sendJson(res, 404, { ok: false, error: { code: 'not_found', message: `No such path: ${route}` } });
    };
    handle().catch((error: unknown) => {
      log.error(`team server request ${req.method} ${route} failed`, error);
      if (!res.headersSent) sendJson(res, 500, { ok: false, error: { code: 'internal', message: 'Internal error; see the team server log.' } });
      else res.destroy();
    });
  };
  const server: http.Server = options.tls ? https.createServer(options.tls, onRequest) : http.createServer(onRequest);
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host === '0.0.0.0' ? '127.0.0.1' : options.host === '::' ? '[::1]' : options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    origin: `${options.tls ? 'https' : 'http'}://${host}:${port}`,
    port,
    endSessions: (ids) => streams.end((client) => ids.includes(client.sessionId)),
    async close() {
      streams.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const force = setTimeout(() => server.closeAllConnections(), 2_000);
      await closed;
      clearTimeout(force);
    },
  };
}
