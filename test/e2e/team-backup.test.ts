// A team server's backup and restore as the operator does it: the built team server's `backup` and `restore` commands
// (`node out/main/server.js`, what `npm run server` runs). A backup taken while the server runs,
// with a password in the database address that shows up in neither what the commands print, the
// manifest, nor the dump's file mode; a restore with a wrong key refused; the right one restored
// into a new database, and a server started on it where the admin signs in and the sealed
// credentials open. What a restore verifies and refuses in detail: test/integration/team/backup-restore.test.ts.
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnvelopeKey } from '../../src/main/services/team/envelope-key';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database';
import { tempDir } from '../helpers/temp-dir';
import { prepareTeamServer, serverCommand, startTeamServer, teamCall, teamToken, type TeamServerProcess } from './team-harness';

let temp: ReturnType<typeof tempDir>;
const databases: TestDatabase[] = [];
const runs: TeamServerProcess[] = [];

/** The address with a password in it (kept if it has one), which must never be shown. */
function withPassword(url: string): { url: string; password: string } {
  const parsed = new URL(url);
  if (!parsed.password) parsed.password = 'Cli-Sentinel-Pa55';
  return { url: parsed.href, password: decodeURIComponent(parsed.password) };
}

beforeAll(() => {
  temp = tempDir('paydesk-e2e-team-backup-');
});

afterAll(async () => {
  for (const run of runs) await run.stop();
  for (const database of databases) await database.drop();
  temp?.cleanup();
});

describe('npm run server -- backup and restore', () => {
  it('backs up a running server, refuses a wrong key, restores into a new database that a new server runs on', { timeout: 180_000 }, async () => {
    expect(serverCommand(['--help']).stdout).toMatch(/backup {12}Back the ledger up to --out FILE[\s\S]*restore {11}Restore --from FILE/);

    const source = await createTestDatabase();
    databases.push(source);
    mkdirSync(path.join(temp.dir, 'a'));
    const keyFile = path.join(temp.dir, 'envelope.key');
    const setup = await prepareTeamServer(source.url, path.join(temp.dir, 'a'), keyFile);
    const server = await startTeamServer(setup);
    runs.push(server);
    const admin = await teamToken(server.origin, 'alice');
    const sandbox = await teamCall<{ id: string }>(server.origin, admin, 'profiles:create', { name: 'Shop sandbox', environment: 'sandbox', baseUrl: 'https://sandbox.example.com/api/', merchantId: 'm-1', merchantSiteId: 's-1' });
    await teamCall(server.origin, admin, 'credentials:set-merchant-token', { profileId: sandbox.id, token: 'tok-backup-e2e' });

    const out = path.join(temp.dir, 'paydesk.dump');
    const database = withPassword(source.url);
    const backup = serverCommand(['backup', '--database', database.url, '--out', out, '--key-file', keyFile]);
    expect(backup, backup.stderr).toMatchObject({ status: 0, stdout: expect.stringMatching(/^Backed up .* to .*paydesk\.dump/) });
    const keyId = EnvelopeKey.fromFile(keyFile).id;
    expect(backup.stdout).toContain(`under envelope key ${keyId} (the key given opens them all)`);
    const manifest = readFileSync(`${out}.manifest.json`, 'utf8');
    for (const shown of [backup.stdout, backup.stderr, manifest]) expect(shown).not.toContain(database.password);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    await server.stop();

    const target = await createTestDatabase();
    databases.push(target);
    const into = withPassword(target.url);
    const wrongKey = path.join(temp.dir, 'wrong.key');
    expect(serverCommand(['new-key', '--key-file', wrongKey]).status).toBe(0);
    const refused = serverCommand(['restore', '--database', into.url, '--from', out, '--key-file', wrongKey]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(new RegExp(`Paydesk team server: The envelope key given \\(id [0-9a-f]{16}\\) is not the one this backup's credentials were sealed under \\(${keyId}\\)`));
    expect(refused.stderr + refused.stdout).not.toContain(into.password);

    const restore = serverCommand(['restore', '--database', into.url, '--from', out, '--key-file', keyFile]);
    expect(restore, restore.stderr).toMatchObject({ status: 0, stdout: expect.stringMatching(/^Restored paydesk\.dump .*\n {2}verified: .* sealed values? opened by key/) });
    expect(restore.stdout + restore.stderr).not.toContain(into.password);

    mkdirSync(path.join(temp.dir, 'b'));
    const again = await startTeamServer({ ...setup, database: target.url, dataDir: path.join(temp.dir, 'b') });
    runs.push(again);
    // The old session ended with the restore; the password signs in.
    expect((await fetch(`${again.origin}/rpc/profiles:list`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` }, body: '{}' })).status).toBe(401);
    const signedIn = await teamToken(again.origin, 'alice');
    const profiles = await teamCall<{ id: string; credentials: { merchantToken: { set: boolean; fingerprint: string | null } } }[]>(again.origin, signedIn, 'profiles:list');
    expect(profiles.find((p) => p.id === sandbox.id)?.credentials.merchantToken).toEqual({ set: true, fingerprint: expect.stringMatching(/^[0-9a-f]{16}$/) });
    expect(await again.stop()).toBe(0);
  });
});
