// The team server's HTTP(S) face: the renderer for browsers, the typed contract for people
// signed in, and their pushes. The server is web mode's (web/app-server.ts); this adds its guard
// (sessions: cookies with CSRF, bearer tokens), the sign-in routes and TLS.
//   GET  /, /assets/…          the app (its sign-in form first): public, it holds no data
//   POST /auth/login           {username, password, totp?, client?} → the session (a browser gets
//                              an HttpOnly cookie; a desktop asks with client "desktop" and gets
//                              the token, kept in its OS keychain)
//   POST /auth/logout          ends the session
//   POST /rpc/<channel>        {"input": …} → envelope, as the person signed in (role checked)
//   GET  /events?since=N       server-sent events: the pushes this person may have
//   GET  /healthz, /readyz     a balancer's probes (no session; services/health.ts)
//   GET  /metrics              Prometheus, with the metrics token only (metrics-http.ts)
// A browser's cookie is accepted only with the header x-paydesk-csrf (a page of another origin
// cannot send it without a preflight this server never allows) and, when Origin is sent, from
// this server's own origin. A desktop sends Authorization: Bearer <token>.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Envelope } from '../../shared/contract';
import { CSRF_HEADER, TEAM_META } from '../../shared/web-stream';
import type { Dispatch } from '../ipc/dispatcher';
import { currentLogContext } from '../log-context';
import type { Logger } from '../logger';
import type { EventBus } from '../services/event-bus';
import type { HealthProbe } from '../services/health';
import type { Metrics } from '../services/metrics';
import type { Authorizer } from '../services/team/authorizer';
import { runAs, type RequestPerson } from '../services/team/request-context';
import { SignInError, type TeamService } from '../services/team/team-service';
import { startAppServer, type Exchange } from '../web/app-server';
import { metricsRoute } from './metrics-http';
import { readJsonPost, refuse, sendJson } from '../web/http-kit';
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
  /**
   * While it gives a reason (this instance drains: a newer Paydesk migrated the ledger), every
   * sign-in, call and event stream is answered 503 with it, so the balancer sends people elsewhere.
   */
  refusal?: () => string | null;
  /** What GET /readyz answers (GET /healthz answers 200 while the server serves); no session needed. */
  health?: HealthProbe;
  /** This instance's metrics: told how many event streams are open; served at GET /metrics to a bearer of `token` when given. */
  metrics?: { metrics: Metrics; token?: string | undefined };
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
  const { dispatch, team, authorizer } = options;
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

  const signedIn = async (req: IncomingMessage, res: ServerResponse, kind: 'write' | 'read'): Promise<RequestPerson | null> => {
    const token = tokenOf(req, kind);
    const person = token ? await team.authenticate(token) : null;
    if (!person) refuse(res, 401, 'Sign in to the team server (your session ended, or there was none).');
    else currentLogContext()?.setPerson(person.id);
    return person;
  };

  const login = async ({ req, res }: Exchange) => {
    const read = await readJsonPost(req, res);
    if (!read) return;
    const input = loginInput(read.body);
    try {
      const done = await team.signIn({ ...input, address: clientAddress(req) });
      currentLogContext()?.setPerson(done.person.id);
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

  const logout = async ({ req, res }: Exchange) => {
    const token = tokenOf(req, 'write');
    if (token) await team.signOut(token);
    sendJson(res, 200, { ok: true, value: { signedOut: true } }, { 'set-cookie': cookie('', 0) });
  };

  /** The contract as the person signed in calls it: their role checked first, served in their context. */
  const callsOf =
    (person: RequestPerson): Dispatch =>
    async (name, input): Promise<Envelope<unknown>> => {
      const verdict = await authorizer.before(person, name, input);
      if (!verdict.ok) return { ok: false, error: verdict.error };
      const answer = await runAs(person, () => dispatch(name, verdict.input));
      return authorizer.after(person, answer);
    };

  const server = await startAppServer<StreamClient>({
    face: {
      routes: { '/auth/login': login, '/auth/logout': logout },
      stopping: () => options.refusal?.() ?? null,
      admitCall: async ({ req, res }) => {
        const person = await signedIn(req, res, 'write');
        return person && callsOf(person);
      },
      admitStream: async ({ req, res }) => {
        const person = await signedIn(req, res, 'read');
        return person && { client: { personId: person.id, sessionId: person.sessionId } };
      },
      // The page holds no data: its sign-in form comes first.
      admitPage: () => true,
      page: () => ({ meta: { [TEAM_META]: '1' } }),
      mayHave: (client, audience) => !audience || audience.personId === client.personId || audience.sessionId === client.sessionId,
    },
    events: options.events,
    rendererDir: options.rendererDir,
    host: options.host,
    port: options.port,
    tls: options.tls,
    log: options.log,
    failures: { logAs: 'team server request', seeLog: 'the team server log' },
    health: options.health,
    metrics: options.metrics?.token ? metricsRoute(options.metrics.metrics, options.metrics.token) : undefined,
  });
  options.metrics?.metrics.readFrom({ streamClients: () => server.streamClients() });
  const host = options.host === '0.0.0.0' ? '127.0.0.1' : options.host === '::' ? '[::1]' : options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    origin: `${options.tls ? 'https' : 'http'}://${host}:${server.port}`,
    port: server.port,
    endSessions: (ids) => server.endStreams((client) => ids.includes(client.sessionId)),
    close: server.close,
  };
}
