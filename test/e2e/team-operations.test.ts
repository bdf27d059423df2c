// Health, metrics and logs as an operator meets them, running the built team server (`node out/main/server.js`, what `npm run
// server` runs): a balancer's probes during a stop, the metrics a Prometheus scrapes, and the log
// lines a machine reads; and a desk's log file (web mode), in the same shape.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PayoutReviewView, SubmitResult } from '../../src/shared/contract';
import { payinForm, payoutForm } from '../helpers/fixtures';
import { waitFor } from '../helpers/poll';
import { leaksIn, makeSentinels } from '../security/helpers/sentinels';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database';
import { tempDir } from '../helpers/temp-dir';
import { freePort, startWebApp } from './harness';
import { prepareTeamServer, serverCommand, startTeamServer, TEAM_PASSWORD, teamCall, teamToken, type TeamServerProcess } from './team-harness';

let temp: ReturnType<typeof tempDir>;
const databases: TestDatabase[] = [];
const runs: TeamServerProcess[] = [];

beforeAll(() => {
  temp = tempDir('paydesk-e2e-team-operations-');
});

afterAll(async () => {
  for (const run of runs) await run.kill();
  for (const database of databases) await database.drop();
  temp?.cleanup();
});

async function fresh(name: string, extraArgs: string[] = []): Promise<TeamServerProcess> {
  const database = await createTestDatabase();
  databases.push(database);
  const dataDir = path.join(temp.dir, name);
  mkdirSync(dataDir);
  const setup = await prepareTeamServer(database.url, dataDir, path.join(temp.dir, `${name}.key`));
  const server = await startTeamServer(setup, extraArgs);
  runs.push(server);
  return server;
}

const probe = async (origin: string, pathname: string) => {
  const response = await fetch(`${origin}${pathname}`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

describe('a stopping team server and its balancer', () => {
  it('answers /readyz 503 on both addresses from SIGTERM on, serves for --drain-seconds, then stops cleanly', { timeout: 90_000 }, async () => {
    const server = await fresh('drain', ['--drain-seconds', '3']);
    const token = await teamToken(server.origin, 'alice');
    for (const origin of [server.origin, server.notifyOrigin]) expect(await probe(origin, '/readyz')).toEqual({ status: 200, body: { status: 'ready' } });
    process.kill(server.pid, 'SIGTERM');
    for (const origin of [server.origin, server.notifyOrigin]) {
      expect(await waitFor(() => probe(origin, '/readyz'), (answer) => answer.status === 503, '/readyz to answer 503', 2_000)).toMatchObject({ body: { reason: 'stopping' } });
      expect((await probe(origin, '/healthz')).status).toBe(200);
    }
    // Not ready, but still serving what the balancer sent before it noticed.
    expect(await teamCall(server.origin, token, 'settings:get')).toBeTruthy();
    expect(await server.stop()).toBe(0);
  });
});

describe('a team server scraped by Prometheus', () => {
  it('serves /metrics on an address of its own without a token, and on the app address to a bearer of the token in its file', { timeout: 90_000 }, async () => {
    expect(serverCommand(['--help']).stdout).toMatch(/--metrics-listen <host:port>[\s\S]*--metrics-token-file <file>/);
    const token = 'e2e-metrics-token-0123456789';
    const tokenFile = path.join(temp.dir, 'metrics.token');
    writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
    const metricsPort = await freePort();
    const server = await fresh('metrics', ['--metrics-listen', `127.0.0.1:${metricsPort}`, '--metrics-token-file', tokenFile, '--pool-size', '7']);
    expect(server.output()).toContain(`metrics on http://127.0.0.1:${metricsPort}/metrics`);
    const own = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(own.status).toBe(200);
    const text = await own.text();
    expect(text).toMatch(/^paydesk_instances_alive 1$/m);
    expect(text).toMatch(/^paydesk_db_pool_size 7$/m);
    expect(text).toMatch(/^paydesk_process_cpu_seconds_total /m);
    expect((await fetch(`http://127.0.0.1:${metricsPort}/readyz`)).status).toBe(404);
    expect((await fetch(`${server.origin}/metrics`)).status).toBe(401);
    const withToken = await fetch(`${server.origin}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(withToken.status).toBe(200);
    expect(await withToken.text()).toMatch(/^paydesk_leader 1$/m);
    expect(await server.stop()).toBe(0);
  });
});

describe('the team server log', () => {
  it('is JSON lines with the instance, the request id sent and the person, and holds no password, token, card number or CVV', { timeout: 120_000 }, async () => {
    const sentinels = makeSentinels();
    const wrongPassword = 'Sentinel-Wrong-Password-29-3';
    const server = await fresh('logs', ['--log-level', 'debug']);
    const call = async (token: string, channel: string, input: unknown, requestId?: string) => {
      const response = await fetch(`${server.origin}/rpc/${channel}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...(requestId ? { 'x-request-id': requestId } : {}) }, body: JSON.stringify({ input }) });
      if (requestId) expect(response.headers.get('x-request-id')).toBe(requestId);
      return (await response.json()) as { ok: boolean; value?: unknown; error?: { message: string } };
    };
    // A refused sign-in, then the real one.
    expect((await fetch(`${server.origin}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'alice', password: wrongPassword, client: 'desktop' }) })).status).toBe(401);
    const token = await teamToken(server.origin, 'alice');
    const profiles = await teamCall<{ id: string; environment: string; baseUrl: string }[]>(server.origin, token, 'profiles:list');
    const local = profiles.find((p) => p.environment === 'local')!;
    // A sandbox profile with a sentinel merchant-token, called with it (the emulator refuses a token it does not know).
    const sandbox = await teamCall<{ id: string }>(server.origin, token, 'profiles:create', { name: 'Log sandbox', environment: 'sandbox', baseUrl: local.baseUrl, merchantId: 'm-log', merchantSiteId: 's-log' });
    await teamCall(server.origin, token, 'credentials:set-merchant-token', { profileId: sandbox.id, token: sentinels.merchantToken });
    await call(token, 'payins:create', payinForm('open_banking', { profileId: sandbox.id, requestId: `log-sandbox-${Date.now()}` }));
    // A card pay-in with the sentinel card and CVV, and a card payout to the sentinel card, on the local emulator.
    const payin = payinForm('credit_card', { profileId: local.id, requestId: `log-card-${Date.now()}` });
    const cardPayin = await call(token, 'payins:create', { ...payin, cardNum: sentinels.pan, cardCvv: sentinels.cvv }, 'req-29-3-payin');
    expect(cardPayin.ok, JSON.stringify(cardPayin.error)).toBe(true);
    const payout = payoutForm('credit_card', { amount: '21.00', reference: `log-payout-${Date.now()}`, profileId: local.id });
    const withCard = { ...payout, paymentDetails: { ...(payout.paymentDetails as Record<string, string>), cardNum: sentinels.pan } };
    const review = await teamCall<PayoutReviewView>(server.origin, token, 'payouts:review', withCard);
    const sent = await call(token, 'payouts:create', { ...withCard, reviewId: review.reviewId, confirmed: true }, 'req-29-3-payout');
    expect((sent.value as SubmitResult | undefined)?.outcome, JSON.stringify(sent.error)).toBe('succeeded');
    // A call that fails validation with the card in it.
    await call(token, 'payins:create', { ...payin, cardNum: sentinels.pan, cardCvv: sentinels.cvv, amount: 'not money' }, 'req-29-3-refused');
    // The emulator's notifications reach the listener (a request of their own, logged at debug).
    await waitFor(() => server.output(), (output) => output.includes('"msg":"notification answered"'), 'a notification to be answered', 30_000);
    expect(await server.stop()).toBe(0);

    const lines = server.output().split('\n').filter((line) => line.startsWith('{'));
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(entries.length).toBeGreaterThan(10);
    for (const entry of entries) expect(entry).toMatchObject({ level: expect.stringMatching(/^(debug|info|warn|error)$/), time: expect.any(String), msg: expect.any(String), name: 'paydesk-server' });
    const instance = entries.find((entry) => typeof entry.instance === 'string')?.instance;
    expect(instance).toMatch(/^[0-9a-f-]{36}$/);
    expect(entries.filter((entry) => entry.msg === 'stopped')).toMatchObject([{ instance }]);
    // The request line of each call sent with an id carries it and the person signed in.
    for (const id of ['req-29-3-payin', 'req-29-3-payout', 'req-29-3-refused']) {
      expect(entries.filter((entry) => entry.reqId === id && entry.msg === 'request'), id).toMatchObject([{ person: expect.any(String), instance, method: 'POST', status: 200, path: expect.stringMatching(/^\/rpc\//) }]);
    }
    expect(entries.some((entry) => entry.msg === 'notification answered' && typeof entry.reqId === 'string')).toBe(true);
    expect([...leaksIn('server log', server.output(), sentinels), ...[wrongPassword, TEAM_PASSWORD, token].filter((secret) => server.output().includes(secret))]).toEqual([]);
  });
});

describe('a desk’s log file', () => {
  it('web mode answers /healthz and writes the same JSON lines to paydesk.log in its data directory', { timeout: 60_000 }, async () => {
    const dataDir = path.join(temp.dir, 'desk');
    const app = await startWebApp(dataDir);
    try {
      await waitFor(() => app.output(), (output) => output.includes('Paydesk is ready'), 'web mode to be ready', 30_000);
      expect((await fetch(`${app.origin}/healthz`)).status).toBe(200);
    } finally {
      expect(await app.stop()).toBe(0);
    }
    const entries = readFileSync(path.join(dataDir, 'paydesk.log'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(entries.at(-1)).toMatchObject({ level: 'info', msg: 'stopped', name: 'paydesk', instance: expect.stringMatching(/^[0-9a-f-]{36}$/), time: expect.any(String) });
  });
});
