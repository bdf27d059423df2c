// A team server in the test's process, on a PostgreSQL database of the test's own (real HTTP on
// loopback, the real core, a fresh envelope key), and a client that signs in and calls it as a
// browser (cookie + CSRF header) or a desktop (bearer token) would.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createCore, type Core, type CoreOptions } from '../../src/main/core';
import { startTeamHttp, type TeamHttpServer } from '../../src/main/server/http';
import { EnvelopeKey } from '../../src/main/services/team/envelope-key';
import { externalLocalGateway, type LocalGateway } from '../../src/main/services/local-gateway';
import { runAs } from '../../src/main/services/team/request-context';
import { EventBus } from '../../src/main/services/event-bus';
import type { ContractErrorBody, Envelope, TeamRole } from '../../src/shared/contract';
import { CSRF_HEADER } from '../../src/shared/web-stream';
import { silentLogger, testCoreOptions } from './app-core';
import type { Logger } from '../../src/main/logger';

export interface TeamTestServer {
  core: Core;
  http: TeamHttpServer;
  origin: string;
  key: EnvelopeKey;
  /** Its PostgreSQL database; undefined on a SQLite run (the ledger file in the data directory). */
  database: string | undefined;
  /** What the server pushes to its screens. */
  events: EventBus;
  /**
   * A signed-in person's calls as the server serves them (in their context, through the core's
   * dispatch, no HTTP in between): calls made in one turn of the event loop start together.
   */
  servedAs(client: TeamClient): Promise<(channel: string, input?: unknown) => Promise<Envelope<unknown>>>;
  /** Adds a person straight through the service (as `create-admin` does for the first one). */
  addPerson(username: string, role: TeamRole, password?: string): Promise<{ id: string; username: string; password: string }>;
  /** Its HTTP side stopped and started again on the same address: its pushes numbered anew, as after a restart. */
  restartHttp(): Promise<void>;
  close(): Promise<void>;
}

export const TEST_PASSWORD = 'correct horse battery staple';

/** A renderer directory with an index.html: the server serves the page, which these tests do not open. */
function rendererStub(dataDir: string): string {
  const dir = path.join(dataDir, 'renderer');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'index.html'), '<!doctype html><html><head><title>Paydesk</title></head><body><div id="root"></div></body></html>');
  return dir;
}

export interface TeamTestServerOptions {
  sessions?: { maxAgeMinutes?: number; idleMinutes?: number };
  logins?: { perName?: number; perAddress?: number; windowMinutes?: number };
  log?: Logger;
  now?: () => Date;
  approvals?: { expiryRecheckMs?: number };
  /**
   * Another instance of this team server (PostgreSQL runs; docs/team.md, "Several instances"): its
   * database, its envelope key and its gateway emulator, in a data directory of its own.
   */
  instanceOf?: TeamTestServer;
  /** Gateway call limits and the fetch that reaches an https test gateway (test-tls.ts trustingFetch). */
  gateway?: CoreOptions['gateway'];
  /** Its envelope key (as read from a key file); default: another instance's, else a fresh one. */
  key?: EnvelopeKey;
  /** Its PostgreSQL database (a restored one); default: another instance's, else a new one of the test's. */
  database?: string;
  /** The gateway emulator the test runs (outliving this server), as the local-emulator profile reaches it. */
  localGateway?: LocalGateway;
  /** GET /metrics on its app address to a bearer of this token (else not served there). */
  metricsToken?: string;
  /** The rest of the core's options: its migration steps, instance timings, batch concurrency. */
  core?: Pick<CoreOptions, 'migrations' | 'scaleOut' | 'batches' | 'notices'>;
}

export async function startTeamTestServer(dataDir: string, options: TeamTestServerOptions = {}): Promise<TeamTestServer> {
  const first = options.instanceOf;
  const key = options.key ?? first?.key ?? EnvelopeKey.generate();
  const events = new EventBus();
  const started: { http?: TeamHttpServer } = {};
  const database = options.database ?? first?.database;
  const localGateway = options.localGateway ?? (first ? await externalLocalGateway(first.core.local.adminUrl) : undefined);
  const base = await testCoreOptions(dataDir, { ...(database ? { database } : {}), ...(localGateway ? { localGateway } : {}) });
  const { secrets: _keychain, ...rest } = base;
  const core = await createCore({
    ...rest,
    mode: 'server',
    events,
    log: options.log ?? silentLogger,
    ...(options.now ? { now: options.now } : {}),
    ...(options.approvals ? { approvals: options.approvals } : {}),
    ...(options.gateway ? { gateway: options.gateway } : {}),
    ...options.core,
    team: { key, serverUrl: 'http://127.0.0.1', ...(options.sessions ? { sessions: options.sessions } : {}), ...(options.logins ? { logins: options.logins } : {}), onSessionsEnded: (ids) => started.http?.endSessions(ids) },
  });
  const team = core.team;
  if (!team) throw new Error('no team server');
  const startHttp = (port: number) =>
    startTeamHttp({ dispatch: core.dispatch, events, team: team.service, authorizer: team.authorizer, rendererDir: rendererStub(dataDir), host: '127.0.0.1', port, secureCookies: false, refusal: () => core.drain.refusal(), health: core.health, metrics: { metrics: core.metrics, token: options.metricsToken }, log: options.log ?? silentLogger });
  let server = await startHttp(0);
  started.http = server;
  return {
    core,
    get http() {
      return server;
    },
    origin: server.origin,
    key,
    database: base.database,
    events,
    async servedAs(client) {
      const person = await team.service.authenticate(client.token);
      if (!person) throw new Error('the client is not signed in');
      return (channel, input) => runAs(person, () => core.dispatch(channel, input));
    },
    async addPerson(username, role, password = TEST_PASSWORD) {
      const user = await team.service.createAdminFromCommandLine({ username, displayName: username, password });
      if (role !== 'admin') await core.ledger.run('UPDATE team_users SET role = ? WHERE id = ?', [role, user.id]);
      return { id: user.id, username, password };
    },
    async restartHttp() {
      await server.close();
      server = await startHttp(Number(new URL(server.origin).port));
      started.http = server;
    },
    async close() {
      await server.close();
      await core.close();
    },
  };
}

export interface SignInAnswer {
  status: number;
  body: Envelope<{ session: unknown; token?: string }>;
  cookie: string | null;
  retryAfter: string | null;
}

export async function signIn(origin: string, body: Record<string, unknown>): Promise<SignInAnswer> {
  const response = await fetch(`${origin}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const cookie = response.headers.get('set-cookie');
  return { status: response.status, body: (await response.json()) as SignInAnswer['body'], cookie: cookie ? cookie.split(';')[0]! : null, retryAfter: response.headers.get('retry-after') };
}

/** A browser's session: signed in with the form's call, its cookie (`name=value`) kept; throws with the answer when refused. */
export async function browserSession(origin: string, username: string, password: string): Promise<string> {
  const answer = await signIn(origin, { username, password });
  if (!answer.cookie) throw new Error(`sign-in of ${username}: ${JSON.stringify(answer.body)}`);
  return answer.cookie;
}

/** A signed-in person's calls: as a desktop (bearer token). */
export interface TeamClient {
  token: string;
  call(channel: string, input?: unknown): Promise<Envelope<unknown>>;
  /** The value, or throws with the error body. */
  value<T = unknown>(channel: string, input?: unknown): Promise<T>;
}

export async function desktopClient(origin: string, username: string, password = TEST_PASSWORD, totp?: string): Promise<TeamClient> {
  const answer = await signIn(origin, { username, password, client: 'desktop', ...(totp ? { totp } : {}) });
  if (!answer.body.ok || !answer.body.value.token) throw new Error(`sign-in of ${username} failed: ${JSON.stringify(answer.body)}`);
  return clientWithToken(origin, answer.body.value.token);
}

/** The calls of a desktop signed in with `token`, made to the server at `origin` (any instance of it: sessions live in the ledger). */
export function clientWithToken(origin: string, token: string): TeamClient {
  const call = async (channel: string, input?: unknown): Promise<Envelope<unknown>> => {
    const response = await fetch(`${origin}/rpc/${channel}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ input }) });
    return (await response.json()) as Envelope<unknown>;
  };
  return {
    token,
    call,
    async value<T>(channel: string, input?: unknown): Promise<T> {
      const envelope = await call(channel, input);
      if (!envelope.ok) throw Object.assign(new Error(`${channel}: ${envelope.error.message}`), envelope.error);
      return envelope.value as T;
    },
  };
}

/** A browser's call with its cookie: with or without the CSRF header, from an origin of its choice. */
export async function cookieCall(origin: string, cookie: string, channel: string, input: unknown, headers: Record<string, string> = { [CSRF_HEADER]: '1' }): Promise<{ status: number; body: Envelope<unknown> }> {
  const response = await fetch(`${origin}/rpc/${channel}`, { method: 'POST', headers: { 'content-type': 'application/json', cookie, ...headers }, body: JSON.stringify({ input }) });
  return { status: response.status, body: (await response.json()) as Envelope<unknown> };
}

/** How a refusal from the server names a time: to the second, in UTC. */
export const refusalTime = (iso: string): string => `${iso.slice(0, 19).replace('T', ' ')} UTC`;

/** Calls sent at the same moment, of which exactly one must go through: its name, and the refusal of the other. */
export async function oneGoesThrough(calls: Record<string, () => Promise<Envelope<unknown>>>): Promise<{ winner: string; loser: string; refusal: ContractErrorBody }> {
  const names = Object.keys(calls);
  const answers = await Promise.all(names.map((name) => (calls[name] as () => Promise<Envelope<unknown>>)()));
  const won = names.filter((_, i) => answers[i]?.ok);
  if (won.length !== 1) throw new Error(`exactly one of ${names.join(' and ')} should go through: ${JSON.stringify(answers)}`);
  const lost = answers.find((a) => !a?.ok) as Extract<Envelope<unknown>, { ok: false }>;
  return { winner: won[0] as string, loser: names.find((n) => n !== won[0]) as string, refusal: lost.error };
}
