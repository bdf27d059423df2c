// A desk signs in to a team server and then works on the server's ledger: its calls go
// to the server as that person (role enforced there), the server's pushes reach its screens, its
// session token is kept in its secret store (the OS keychain; never the password), a restart
// picks the session up again, a stream back on a restarted server tells the screens to read again,
// and a session the server ends takes the desk back to its own ledger, saying why. Only https (or http on this machine) is accepted for a team server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../../src/main/core';
import { EventBus } from '../../../src/main/services/event-bus';
import { teamServerUrl } from '../../../src/main/services/team/team-link';
import { MemorySecretStore, testCoreOptions } from '../../helpers/app-core';
import { must } from '../../helpers/calls';
import { payoutForm } from '../../helpers/fixtures';
import { waitFor } from '../../helpers/poll';
import { tempDir } from '../../helpers/temp-dir';
import { desktopClient, startTeamTestServer, TEST_PASSWORD, type TeamTestServer } from '../../helpers/team';

let server: TeamTestServer;
let serverDir: ReturnType<typeof tempDir>;
let deskDir: ReturnType<typeof tempDir>;
const keychain = new MemorySecretStore();
let desk: Core;
let screens: EventBus;

async function startDesk(): Promise<Core> {
  screens = new EventBus();
  return createCore(await testCoreOptions(deskDir.dir, { secrets: keychain, events: screens }));
}

const call = <T = unknown>(channel: string, input?: unknown) => must<T>(desk, channel, input);

beforeAll(async () => {
  serverDir = tempDir('paydesk-team-server-');
  deskDir = tempDir('paydesk-team-desk-');
  server = await startTeamTestServer(serverDir.dir);
  await server.addPerson('bob', 'finance');
  await server.addPerson('alice', 'admin');
  desk = await startDesk();
}, 60_000);

afterAll(async () => {
  await desk?.close();
  await server?.close();
  serverDir?.cleanup();
  deskDir?.cleanup();
});

describe('a desk on a team server', () => {
  it('works alone until it signs in; a wrong password is said so and changes nothing', async () => {
    expect(await call('team:get-session')).toMatchObject({ mode: 'desk', person: null });
    const wrong = await desk.dispatch('team:connect', { server: server.origin, username: 'bob', password: 'not bobs password' });
    expect(wrong).toMatchObject({ ok: false, error: { code: 'invalid_input', message: 'Wrong user name or password.' } });
    expect(keychain.secrets.size).toBe(0);
    expect(await call('team:get-session')).toMatchObject({ mode: 'desk' });
  });

  it('signs in, then shows the server\'s ledger and its pushes, as that person', async () => {
    const session = await call<{ mode: string; person: { username: string } }>('team:connect', { server: server.origin, username: 'bob', password: TEST_PASSWORD });
    expect(session).toMatchObject({ mode: 'connected', person: { username: 'bob', role: 'finance' }, server: server.origin });
    // The token is kept in the keychain; the password nowhere.
    expect([...keychain.secrets.values()].some((v) => v.includes(TEST_PASSWORD))).toBe(false);
    expect(keychain.secrets.get('team-session')).toMatch(/^[\w-]{40,}$/);

    const info = await call<{ ledger: { location: string } }>('app:get-info');
    expect(info.ledger.location).toBe(server.core.ledger.location);
    // A role the server refuses is refused through the desk too.
    expect(await desk.dispatch('credentials:generate-key', { profileId: 'x' })).toMatchObject({ ok: false, error: { code: 'forbidden' } });

    // Someone else changes the team's ledger: the desk's screens are told.
    const pushed: string[] = [];
    screens.subscribe((channel, payload) => {
      if (channel === 'payouts:payout-changed') pushed.push((payload as { merchantReference: string }).merchantReference);
    });
    const alice = await desktopClient(server.origin, 'alice');
    const form = payoutForm('fps', { amount: '12.30' });
    const review = await alice.value<{ reviewId: string; payout: { merchantReference: string } }>('payouts:review', form);
    await alice.value('payouts:create', { ...form, merchantReference: review.payout.merchantReference, reviewId: review.reviewId, confirmed: true });
    await waitFor(async () => pushed, (list) => list.includes(review.payout.merchantReference), 'the server\'s push to reach the desk', 10_000);
    const listed = await call<{ items: { merchantReference: string }[] }>('payouts:list', {});
    expect(listed.items.map((p) => p.merchantReference)).toContain(review.payout.merchantReference);
    // The desk's own ledger is untouched.
    expect(await desk.ledger.get<{ n: number | string }>('SELECT count(*) AS n FROM payouts')).toMatchObject({ n: expect.anything() });
    expect(Number((await desk.ledger.get<{ n: number | string }>('SELECT count(*) AS n FROM payouts'))?.n)).toBe(0);
  });

  it('picks its session up again after a restart', async () => {
    await desk.close();
    desk = await startDesk();
    expect(await call('team:get-session')).toMatchObject({ mode: 'connected', person: { username: 'bob' } });
  });

  it('tells its screens to read everything again when its stream comes back on a server process that cannot replay what it missed', async () => {
    const told: string[] = [];
    screens.subscribe((channel, payload) => {
      if (channel === 'team:pushes-missed') told.push(channel);
      if (channel === 'payouts:payout-changed') told.push((payload as { merchantReference: string }).merchantReference);
    });
    // The stream is open and has its position (the frame every stream opens with).
    const alice = await desktopClient(server.origin, 'alice');
    await alice.value('settings:update', { theme: 'dark' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(told).not.toContain('team:pushes-missed');
    // The team server restarts (its pushes numbered anew), at the same address; meanwhile a payout is made.
    await server.restartHttp();
    const form = payoutForm('fps', { amount: '4.56' });
    const review = await alice.value<{ reviewId: string; payout: { merchantReference: string } }>('payouts:review', form);
    await alice.value('payouts:create', { ...form, merchantReference: review.payout.merchantReference, reviewId: review.reviewId, confirmed: true });
    // The desk reconnects (1 s later), from the old process's position: it is told it has a gap.
    await waitFor(async () => told, (list) => list.includes('team:pushes-missed'), 'the desk to be told its stream missed pushes', 10_000);
    // And it is linked still: the server's pushes reach it again.
    expect(await call('team:get-session')).toMatchObject({ mode: 'connected', person: { username: 'bob' } });
    const next = payoutForm('fps', { amount: '7.89' });
    const again = await alice.value<{ reviewId: string; payout: { merchantReference: string } }>('payouts:review', next);
    told.length = 0;
    await alice.value('payouts:create', { ...next, merchantReference: again.payout.merchantReference, reviewId: again.reviewId, confirmed: true });
    await waitFor(async () => told, (list) => list.includes(again.payout.merchantReference), 'a push after the restart to reach the desk', 10_000);
    expect(told).not.toContain('team:pushes-missed');
  });

  it('goes back to its own ledger when the server ends its session, saying why', async () => {
    const alice = await desktopClient(server.origin, 'alice');
    const sessions = await alice.value<{ sessions: { id: string; username: string; client: string }[] }>('team:list-sessions');
    const changes: { mode: string; lostBecause: string | null }[] = [];
    screens.subscribe((channel, payload) => {
      if (channel === 'team:session-changed') changes.push(payload as { mode: string; lostBecause: string | null });
    });
    for (const session of sessions.sessions.filter((s) => s.username === 'bob')) await alice.value('team:revoke-session', { id: session.id });
    await waitFor(async () => changes, (list) => list.some((c) => c.mode === 'desk'), 'the desk to be told it was signed out', 15_000);
    expect(changes.at(-1)?.lostBecause).toMatch(/ended this desk's session/);
    expect(await call('team:get-session')).toMatchObject({ mode: 'desk', lostBecause: expect.stringMatching(/sign in again/) });
    expect(keychain.secrets.has('team-session')).toBe(false);
    // Its own ledger again.
    expect((await call<{ ledger: { location: string } }>('app:get-info')).ledger.location).toBe(desk.ledger.location);
  });

  it('accepts a team server over https, or http on this machine only', () => {
    expect(teamServerUrl('https://paydesk.example.com/some/path')).toBe('https://paydesk.example.com');
    expect(teamServerUrl('http://127.0.0.1:8600')).toBe('http://127.0.0.1:8600');
    expect(() => teamServerUrl('http://paydesk.example.com')).toThrow(/over https/);
  });
});
