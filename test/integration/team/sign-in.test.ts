// Signing in to a team server, over real HTTP on loopback. A wrong password and an
// unknown name get the same answer; failed sign-ins are limited per name and per address (429 with
// Retry-After), and the right password is refused while a name is limited; a browser's session is
// an HttpOnly SameSite cookie accepted only with the CSRF header from its own origin; a desktop's
// is a bearer token; sessions end when signed out, revoked by an admin (their event stream ends
// too), when their person is disabled, and after idling; the audit log names each person.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepositories } from '../../../src/main/ledger/repositories/index';
import { CSRF_HEADER } from '../../../src/shared/web-stream';
import { tempDir } from '../../helpers/temp-dir';
import { cookieCall, desktopClient, signIn, startTeamTestServer, TEST_PASSWORD, type TeamTestServer } from '../../helpers/team';

let server: TeamTestServer;
let temp: ReturnType<typeof tempDir>;

beforeAll(async () => {
  temp = tempDir('paydesk-team-signin-');
  server = await startTeamTestServer(temp.dir, { logins: { perName: 3, perAddress: 8, windowMinutes: 15 } });
  await server.addPerson('alice', 'admin');
  await server.addPerson('bob', 'finance');
  await server.addPerson('carol', 'support');
}, 60_000);

afterAll(async () => {
  await server?.close();
  temp?.cleanup();
});

describe('signing in', () => {
  it('answers a wrong password and an unknown name alike, and signs a browser in with an HttpOnly SameSite cookie', async () => {
    const wrong = await signIn(server.origin, { username: 'alice', password: 'not the password at all' });
    const unknown = await signIn(server.origin, { username: 'nobody', password: 'not the password at all' });
    expect([wrong.status, unknown.status]).toEqual([401, 401]);
    expect(wrong.body).toEqual(unknown.body);
    expect(wrong.body).toMatchObject({ ok: false, error: { code: 'unauthorized', message: 'Wrong user name or password.' } });

    const response = await fetch(`${server.origin}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'Alice', password: TEST_PASSWORD }) });
    expect(response.status).toBe(200);
    const setCookie = response.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^paydesk_team=[\w-]{40,};/);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    const body = (await response.json()) as { ok: true; value: { session: { person: { username: string; role: string } }; token?: string } };
    expect(body.value.session.person).toMatchObject({ username: 'alice', role: 'admin' });
    expect(body.value.token).toBeUndefined(); // a browser never holds its token
  });

  it('accepts a browser cookie only with the CSRF header and from its own origin', async () => {
    const { cookie } = await signIn(server.origin, { username: 'carol', password: TEST_PASSWORD });
    expect(cookie).not.toBeNull();
    const withHeader = await cookieCall(server.origin, cookie!, 'team:get-session', undefined);
    expect(withHeader.body).toMatchObject({ ok: true, value: { mode: 'server', person: { username: 'carol' } } });
    const withoutHeader = await cookieCall(server.origin, cookie!, 'team:get-session', undefined, {});
    expect(withoutHeader.status).toBe(401);
    const foreign = await cookieCall(server.origin, cookie!, 'team:get-session', undefined, { [CSRF_HEADER]: '1', origin: 'https://evil.example' });
    expect(foreign.status).toBe(401);
    const nothing = await fetch(`${server.origin}/rpc/payins:list`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(nothing.status).toBe(401);
    const events = await fetch(`${server.origin}/events`);
    expect(events.status).toBe(401);
  });

  it('gives a desktop its token, and a signed-out token is refused', async () => {
    const desk = await desktopClient(server.origin, 'bob');
    expect(await desk.value('team:get-session')).toMatchObject({ person: { username: 'bob', role: 'finance' } });
    const out = await fetch(`${server.origin}/auth/logout`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${desk.token}` }, body: '{}' });
    expect(out.status).toBe(200);
    expect(await desk.call('team:get-session')).toMatchObject({ ok: false, error: { code: 'unauthorized' } });
  });

  it('limits failed sign-ins per name: 429 with Retry-After, and the right password is refused until the window passes', async () => {
    await server.addPerson('dave', 'support');
    for (let i = 0; i < 3; i++) expect((await signIn(server.origin, { username: 'dave', password: `wrong password ${i}` })).status).toBe(401);
    const limited = await signIn(server.origin, { username: 'dave', password: TEST_PASSWORD });
    expect(limited.status).toBe(429);
    expect(Number(limited.retryAfter)).toBeGreaterThan(800); // the 15-minute window, less the seconds spent
    expect(limited.body).toMatchObject({ ok: false, error: { message: expect.stringMatching(/Too many failed sign-ins: try again in \d+ min/) } });
    // Another name is not held by dave's failures.
    expect((await signIn(server.origin, { username: 'carol', password: TEST_PASSWORD })).status).toBe(200);
  });

  it('limits failed sign-ins per address, whatever the names tried', async () => {
    for (let i = 0; i < 8; i++) await signIn(server.origin, { username: `guess${i}`, password: 'wrong password!' });
    const limited = await signIn(server.origin, { username: 'carol', password: TEST_PASSWORD });
    expect(limited.status).toBe(429);
    // The failures of the window are recorded in the ledger (any server process of the team sees them).
    const failures = await server.core.ledger.all<{ username: string }>('SELECT username FROM team_login_failures');
    expect(failures.length).toBe(8); // the limit: a refused attempt is not counted again
    await server.core.ledger.run('DELETE FROM team_login_failures');
    expect((await signIn(server.origin, { username: 'carol', password: TEST_PASSWORD })).status).toBe(200);
  });
});

describe('sessions', () => {
  it('an admin ends another person\'s session: their next call is refused and their event stream ends', async () => {
    const admin = await desktopClient(server.origin, 'alice');
    const bob = await desktopClient(server.origin, 'bob');
    const stream = await fetch(`${server.origin}/events`, { headers: { authorization: `Bearer ${bob.token}` } });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    await reader.read(); // ": connected"

    const sessions = await admin.value<{ sessions: { id: string; username: string; client: string }[] }>('team:list-sessions');
    const bobs = sessions.sessions.filter((s) => s.username === 'bob');
    expect(bobs.length).toBeGreaterThan(0);
    for (const session of bobs) expect(await admin.value('team:revoke-session', { id: session.id })).toEqual({ revoked: true });

    const ended = await Promise.race([(async () => { for (;;) { const { done } = await reader.read(); if (done) return 'ended'; } })(), new Promise((resolve) => setTimeout(() => resolve('still open'), 5_000))]);
    expect(ended).toBe('ended');
    expect(await bob.call('payouts:list', {})).toMatchObject({ ok: false, error: { code: 'unauthorized' } });
    // Someone who is not an admin ends only their own sessions.
    const carol = await desktopClient(server.origin, 'carol');
    const aliceSession = (await admin.value<{ sessions: { id: string; current: boolean }[] }>('team:list-sessions')).sessions.find((s) => s.current)!;
    expect(await carol.call('team:revoke-session', { id: aliceSession.id })).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  it('a person disabled is signed out at once and cannot sign in; the last admin cannot be demoted or disabled', async () => {
    const admin = await desktopClient(server.origin, 'alice');
    const erin = await server.addPerson('erin', 'support');
    const erinClient = await desktopClient(server.origin, 'erin');
    expect(await admin.value('team:update-user', { id: erin.id, disabled: true })).toMatchObject({ disabled: true });
    expect(await erinClient.call('payins:list', {})).toMatchObject({ ok: false, error: { code: 'unauthorized' } });
    expect((await signIn(server.origin, { username: 'erin', password: TEST_PASSWORD })).status).toBe(401);

    const aliceId = (await admin.value<{ person: { id: string } }>('team:get-session')).person.id;
    expect(await admin.call('team:update-user', { id: aliceId, role: 'finance' })).toMatchObject({ ok: false, error: { code: 'conflict', message: expect.stringMatching(/last admin/) } });
  });

  it('a session idle longer than the limit ends', async () => {
    const idle = tempDir('paydesk-team-idle-');
    const short = await startTeamTestServer(idle.dir, { sessions: { idleMinutes: 0.02 } }); // 1.2 s
    try {
      await short.addPerson('frank', 'support');
      const frank = await desktopClient(short.origin, 'frank');
      for (let i = 0; i < 4; i++) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(await frank.call('team:get-session'), 'kept open by use').toMatchObject({ ok: true });
      }
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(await frank.call('team:get-session')).toMatchObject({ ok: false, error: { code: 'unauthorized' } });
    } finally {
      await short.close();
      idle.cleanup();
    }
  });
});

describe('the audit log', () => {
  it('records each person as the actor of what they did, and their sign-ins', async () => {
    const admin = await desktopClient(server.origin, 'alice');
    await admin.value('profiles:create', { name: 'Audited sandbox', environment: 'sandbox', baseUrl: 'https://sandbox.example.com/api/', merchantId: 'm-9', merchantSiteId: 's-9' });
    const entries = await createRepositories(server.core.ledger).audit.list({ limit: 200 });
    expect(entries.find((e) => e.action === 'profile.create' && e.subject === 'Audited sandbox')?.actor).toBe('alice');
    expect(entries.some((e) => e.action === 'team.sign-in' && e.actor === 'bob')).toBe(true);
    expect(entries.some((e) => e.action === 'team.session-revoke' && e.actor === 'alice' && e.subject === 'bob')).toBe(true);
    expect(await createRepositories(server.core.ledger).audit.verify()).toMatchObject({ ok: true });
  });
});
