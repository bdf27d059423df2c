// Every contract channel is authorised by role on the server. A role × channel matrix
// over the whole contract: a role the table (shared/contract/roles.ts) does not allow is refused
// with "forbidden" whatever the input; an allowed role is never refused for its role. A developer
// works on sandbox and emulator profiles only; an approver the policy requires a second factor of
// can do nothing else until they set one up (TOTP, a code accepted once); each person has their
// own active profile and their own theme.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '../../../src/main/services/team/totp';
import { CHANNEL_ROLES, invokeChannels, TEAM_ROLES, type TeamRole } from '../../../src/shared/contract';
import { payinForm } from '../../helpers/fixtures';
import { tempDir } from '../../helpers/temp-dir';
import { desktopClient, signIn, startTeamTestServer, TEST_PASSWORD, type TeamClient, type TeamTestServer } from '../../helpers/team';

let server: TeamTestServer;
let temp: ReturnType<typeof tempDir>;
const clients = new Map<TeamRole, TeamClient>();

beforeAll(async () => {
  temp = tempDir('paydesk-team-roles-');
  server = await startTeamTestServer(temp.dir);
  for (const role of TEAM_ROLES) {
    await server.addPerson(`${role}-one`, role);
    clients.set(role, await desktopClient(server.origin, `${role}-one`));
  }
}, 60_000);

afterAll(async () => {
  await server?.close();
  temp?.cleanup();
});

const client = (role: TeamRole) => clients.get(role) as TeamClient;

describe('the role × channel matrix', () => {
  it.each(TEAM_ROLES)('%s: every channel its role may not call is refused as forbidden; every other is not refused for the role', async (role) => {
    const refused: string[] = [];
    const allowedButRefused: string[] = [];
    for (const channel of invokeChannels) {
      const allowed = (CHANNEL_ROLES[channel] as readonly TeamRole[]).includes(role);
      // An input that is wrong for every channel: the role is judged before the input is.
      for (const input of [undefined, { id: 'x' }]) {
        const answer = await client(role).call(channel, input);
        const forbidden = !answer.ok && answer.error.code === 'forbidden';
        if (!allowed && !forbidden) refused.push(`${channel} answered ${JSON.stringify(answer).slice(0, 120)}`);
        if (allowed && forbidden) allowedButRefused.push(`${channel}: ${answer.ok ? '' : answer.error.message}`);
      }
    }
    expect(refused, 'calls the role may not make but that were not refused').toEqual([]);
    expect(allowedButRefused, 'calls the role may make but that were refused').toEqual([]);
  });

  it('says who may do what was refused', async () => {
    const answer = await client('support').call('payouts:create', {});
    expect(answer).toMatchObject({ ok: false, error: { code: 'forbidden', message: 'Your role (Support) may not do this: it is for Admin, Finance, Developer.' } });
  });
});

describe('a developer', () => {
  it('works on sandbox and emulator profiles only: a live profile named, active, or in an answer is refused', async () => {
    const admin = client('admin');
    const live = await admin.value<{ id: string }>('profiles:create', { name: 'Shop live', environment: 'live', baseUrl: 'https://live.example.com/api/v2', merchantId: 'm-live', merchantSiteId: 's-live' });
    const dev = client('developer');
    const local = (await dev.value<{ id: string; environment: string }[]>('profiles:list')).find((p) => p.environment === 'local')!;

    // Named: refused before anything is recorded or sent.
    expect(await dev.call('payins:create', payinForm('blik', { profileId: live.id }))).toMatchObject({ ok: false, error: { code: 'forbidden', message: expect.stringMatching(/live profile/) } });
    expect(await dev.call('payins:list', { profileId: live.id })).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    // On the emulator: sent.
    const sent = await dev.value<{ outcome: string; payin: { profileId: string } }>('payins:create', payinForm('blik', { profileId: local.id }));
    expect(sent.outcome).toBe('succeeded');
    // A list without a profile is scoped to the developer's active profile.
    const scoped = await dev.value<{ items: { profileId: string }[] }>('payins:list', {});
    expect(scoped.items.length).toBeGreaterThan(0);
    expect(scoped.items.every((item) => item.profileId === local.id)).toBe(true);
    // Their active profile live: what would default to it is refused.
    await dev.value('profiles:activate', { id: live.id, confirmed: true });
    expect(await dev.call('payins:list', {})).toMatchObject({ ok: false, error: { code: 'forbidden', message: expect.stringMatching(/active profile is live/) } });
    await dev.value('profiles:activate', { id: local.id });
    // A live transaction read by its id: the answer is withheld (support reads it).
    const liveRow = await server.core.ledger.get<{ id: number }>(
      "INSERT INTO payins (profile_id, kind, request_id, method, amount, currency, email, created_at, updated_at) VALUES (?, 'payin', 'live-req-1', 'blik', '5.00', 'PLN', 'a@example.com', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z') RETURNING id",
      [live.id],
    );
    expect(await client('support').value('payins:get', { id: liveRow!.id })).toMatchObject({ payin: { requestId: 'live-req-1' } });
    // For the developer the call is scoped to their emulator profile, where no such pay-in is.
    const devRead = await dev.call('payins:get', { id: liveRow!.id });
    expect(devRead.ok).toBe(false);
    expect(devRead.ok ? null : devRead.error.code).toMatch(/^(not_found|forbidden)$/);
    expect(JSON.stringify(devRead)).not.toContain('live-req-1');
  });
});

describe('people', () => {
  it('each person has their own active profile and their own theme', async () => {
    const admin = client('admin');
    const support = client('support');
    const sandbox = await admin.value<{ id: string }>('profiles:create', { name: 'Team sandbox', environment: 'sandbox', baseUrl: 'https://sandbox.example.com/api/', merchantId: 'm-s', merchantSiteId: 's-s' });
    await support.value('profiles:activate', { id: sandbox.id });
    const activeOf = async (c: TeamClient) => (await c.value<{ id: string; isActive: boolean }[]>('profiles:list')).find((p) => p.isActive)?.id;
    expect(await activeOf(support)).toBe(sandbox.id);
    expect(await activeOf(admin)).not.toBe(sandbox.id);

    await support.value('settings:update', { theme: 'dark' });
    expect(await support.value('settings:get')).toMatchObject({ theme: 'dark' });
    expect(await admin.value('settings:get')).toMatchObject({ theme: 'auto' });
  });

  it('an approver the policy requires a second factor of does nothing else until they set it up; the code is then asked at sign-in, once per code', async () => {
    // A server whose clock the test moves on by a TOTP step (30 s) instead of waiting for it.
    let offsetMs = 0;
    const now = () => new Date(Date.now() + offsetMs);
    const clocked = tempDir('paydesk-team-totp-');
    const totpServer = await startTeamTestServer(clocked.dir, { now });
    await totpServer.addPerson('admin-two', 'admin');
    await totpServer.addPerson('approver-one', 'approver');
    const admin = await desktopClient(totpServer.origin, 'admin-two');
    expect(await admin.value('team:update-policy', { approverTotpRequired: true })).toEqual({ approverTotpRequired: true });
    const approver = await desktopClient(totpServer.origin, 'approver-one');
    expect(await approver.call('payouts:list', {})).toMatchObject({ ok: false, error: { code: 'forbidden', message: expect.stringMatching(/second factor/) } });

    try {
      const { secret, uri } = await approver.value<{ secret: string; uri: string }>('team:start-totp');
      expect(uri).toMatch(new RegExp(`^otpauth://totp/Paydesk:approver-one\\?.*secret=${secret}`));
      const wrong = totpCode(secret, now()) === '000000' ? '111111' : '000000';
      expect(await approver.call('team:confirm-totp', { code: wrong })).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
      expect(await approver.value('team:confirm-totp', { code: totpCode(secret, now()) })).toMatchObject({ person: { totpEnabled: true } });
      // The secret is sealed in the ledger, never kept as it is.
      const stored = await totpServer.core.ledger.get<{ totp_secret: string }>("SELECT totp_secret FROM team_users WHERE username = 'approver-one'");
      expect(stored?.totp_secret).toMatch(/^v1\./);
      expect(stored?.totp_secret).not.toContain(secret);

      // Sign-in now asks for the code; a wrong one fails; the right one works once.
      const noCode = await signIn(totpServer.origin, { username: 'approver-one', password: TEST_PASSWORD, client: 'desktop' });
      expect(noCode).toMatchObject({ status: 401, body: { ok: false, error: { fields: { totp: expect.any(String) } } } });
      expect((await signIn(totpServer.origin, { username: 'approver-one', password: TEST_PASSWORD, totp: wrong, client: 'desktop' })).status).toBe(401);
      offsetMs += 60_000; // two steps on: the enrolment's code is spent, a new one is shown
      const code = totpCode(secret, now());
      const withCode = await desktopClient(totpServer.origin, 'approver-one', TEST_PASSWORD, code);
      expect(await withCode.value('payouts:list', {})).toMatchObject({ items: expect.any(Array) });
      const replayed = await signIn(totpServer.origin, { username: 'approver-one', password: TEST_PASSWORD, totp: code, client: 'desktop' });
      expect(replayed.status).toBe(401);
      // The policy holds: an approver cannot turn it off.
      offsetMs += 30_000;
      expect(await withCode.call('team:disable-totp', { code: totpCode(secret, now()) })).toMatchObject({ ok: false, error: { code: 'conflict' } });
    } finally {
      await totpServer.close();
      clocked.cleanup();
    }
  });
});
