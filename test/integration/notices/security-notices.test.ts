// Security events on a team server, with real sign-ins over loopback (127.0.0.2 and
// 127.0.0.3 are other addresses of this machine): a person's sign-in from an address they never
// signed in from, when they had signed in before from another, is told to the admins once (a first
// sign-in ever, or one from a known address, tells nothing); a role change is told to the admins and
// to the person, naming who changed it from what to what; a sign-in rolled back tells nothing. On
// PostgreSQL, two instances taking the same person's sign-in from one new address at once tell it once.
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Inbox, NoticeView } from '../../../src/shared/contract';
import { testEngine } from '../../helpers/ledger';
import { clientWithToken, desktopClient, startTeamTestServer, TEST_PASSWORD, type TeamClient, type TeamTestServer } from '../../helpers/team';
import { tempDir } from '../../helpers/temp-dir';

/** Signs in over HTTP from a loopback address of this machine (the server sees it as the client's address). */
function signInFrom(origin: string, username: string, localAddress: string): Promise<TeamClient> {
  const url = new URL(`${origin}/auth/login`);
  const body = JSON.stringify({ username, password: TEST_PASSWORD, client: 'desktop' });
  return new Promise((resolve, reject) => {
    const request = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', localAddress, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => {
        const answer = JSON.parse(text) as { ok: boolean; value?: { token?: string } };
        if (!answer.ok || !answer.value?.token) reject(new Error(`sign-in of ${username} from ${localAddress} failed: ${text}`));
        else resolve(clientWithToken(origin, answer.value.token));
      });
    });
    request.on('error', reject);
    request.end(body);
  });
}

const told = async (who: TeamClient, kind: string): Promise<NoticeView[]> => (await who.value<Inbox>('notices:list', { limit: 200 })).items.filter((n) => n.kind === kind);

describe('security notices on a team server', () => {
  let temp: ReturnType<typeof tempDir>;
  let server: TeamTestServer;
  let admin: TeamClient;
  let otherAdmin: TeamClient;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    temp = tempDir('paydesk-security-notices-');
    server = await startTeamTestServer(temp.dir);
    for (const [name, role] of [['ada', 'admin'], ['bea', 'admin'], ['fin', 'finance'], ['sue', 'support']] as const) ids[name] = (await server.addPerson(name, role)).id;
    admin = await signInFrom(server.origin, 'ada', '127.0.0.1');
    otherAdmin = await signInFrom(server.origin, 'bea', '127.0.0.1');
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    temp?.cleanup();
  });

  it("tells the admins once of a sign-in from an address new for a person who had signed in before, never of their first or of a known address", async () => {
    const sue = await signInFrom(server.origin, 'sue', '127.0.0.1'); // her first sign-in ever
    await signInFrom(server.origin, 'sue', '127.0.0.1'); // a known address
    expect(await told(admin, 'security.new-address')).toEqual([]);
    await signInFrom(server.origin, 'sue', '127.0.0.2');
    await signInFrom(server.origin, 'sue', '127.0.0.2'); // known now
    for (const who of [admin, otherAdmin]) {
      const [notice, ...more] = await told(who, 'security.new-address');
      expect(more).toEqual([]);
      expect(notice).toMatchObject({ title: 'Sign-in from a new address: sue', link: '#/settings?section=team' });
      expect(notice!.body).toContain('(sue, support) signed in from 127.0.0.2, which they never signed in from before (they had from 1 other address)');
    }
    expect(await told(sue, 'security.new-address')).toEqual([]);
    expect(await told(await desktopClient(server.origin, 'fin'), 'security.new-address')).toEqual([]);
  });

  it('tells nothing of a sign-in whose transaction rolled back', async () => {
    await expect(
      server.core.ledger.transaction(async () => {
        await server.core.team!.service.signIn({ username: 'fin', password: TEST_PASSWORD, client: 'desktop', address: '10.1.2.3' });
        throw new Error('the rest of the transaction failed');
      }),
    ).rejects.toThrow('the rest of the transaction failed');
    expect((await told(admin, 'security.new-address')).filter((n) => n.body.includes('10.1.2.3'))).toEqual([]);
    // Not recorded either: the same address committed is new, and told.
    await server.core.team!.service.signIn({ username: 'fin', password: TEST_PASSWORD, client: 'desktop', address: '10.1.2.3' });
    expect((await told(admin, 'security.new-address')).filter((n) => n.body.includes('10.1.2.3'))).toHaveLength(1);
  });

  it('tells a role change to the admins and to the person, naming who changed it from what to what; a name change tells nothing', async () => {
    const fin = await desktopClient(server.origin, 'fin');
    await admin.value('team:update-user', { id: ids.fin, displayName: 'Fin Ance' });
    expect(await told(fin, 'security.role-changed')).toEqual([]);
    await admin.value('team:update-user', { id: ids.fin, role: 'approver' });
    for (const who of [admin, otherAdmin, fin]) {
      const [notice, ...more] = await told(who, 'security.role-changed');
      expect(more).toEqual([]);
      expect(notice).toMatchObject({ title: 'Role changed: fin is now approver', link: '#/settings?section=team' });
      expect(notice!.body).toContain('(ada) changed the role of Fin Ance (fin) from finance to approver');
    }
    const sue = await desktopClient(server.origin, 'sue');
    expect(await told(sue, 'security.role-changed')).toEqual([]);
  });
});

describe.skipIf(testEngine !== 'postgres')('security notices on two instances of one team server', () => {
  let temp: ReturnType<typeof tempDir>;
  let a: TeamTestServer;
  let b: TeamTestServer;

  beforeAll(async () => {
    temp = tempDir('paydesk-security-notices-2-');
    a = await startTeamTestServer(path.join(temp.dir, 'a'));
    b = await startTeamTestServer(path.join(temp.dir, 'b'), { instanceOf: a });
    await a.addPerson('ada', 'admin');
    await a.addPerson('sue', 'support');
  }, 60_000);

  afterAll(async () => {
    await b?.close();
    await a?.close();
    temp?.cleanup();
  });

  it('tells a new address once when both instances take the sign-ins from it at the same moment', async () => {
    const admin = await signInFrom(a.origin, 'ada', '127.0.0.1');
    await signInFrom(b.origin, 'sue', '127.0.0.1');
    await Promise.all([signInFrom(a.origin, 'sue', '127.0.0.3'), signInFrom(b.origin, 'sue', '127.0.0.3'), signInFrom(a.origin, 'sue', '127.0.0.3'), signInFrom(b.origin, 'sue', '127.0.0.3')]);
    const notices = await told(admin, 'security.new-address');
    expect(notices).toHaveLength(1);
    expect(notices[0]!.body).toContain('signed in from 127.0.0.3');
  });
});
