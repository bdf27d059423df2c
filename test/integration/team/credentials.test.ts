// A team server keeps merchant-tokens and JWT private keys sealed (AES-256-GCM under
// its envelope key, which is never in the database); they never travel to a client (the contract
// shows "set" and a fingerprint); the ledger and the server's log hold neither in plaintext;
// rotation re-seals them under a new key, after which only the new key opens them; the key file
// must be readable by its owner only.
import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepositories } from '../../../src/main/ledger/repositories/index';
import type { Logger } from '../../../src/main/logger';
import { EnvelopeKey, EnvelopeKeyError, loadEnvelopeKey } from '../../../src/main/services/team/envelope-key';
import { rotateEnvelopeKey } from '../../../src/main/services/team/rotate-key';
import { ServerSecretStore } from '../../../src/main/services/team/server-secret-store';
import { leaksIn, leaksInLedger, makeSentinels } from '../../security/helpers/sentinels';
import { tempDir } from '../../helpers/temp-dir';
import { desktopClient, startTeamTestServer, type TeamTestServer } from '../../helpers/team';

let server: TeamTestServer;
let temp: ReturnType<typeof tempDir>;
const logged: string[] = [];
const log: Logger = { info: (m) => logged.push(m), warn: (m) => logged.push(m), error: (m, e) => logged.push(`${m} ${e instanceof Error ? e.stack : String(e ?? '')}`) };
const sentinels = makeSentinels();

beforeAll(async () => {
  temp = tempDir('paydesk-team-credentials-');
  server = await startTeamTestServer(temp.dir, { log });
  await server.addPerson('alice', 'admin');
  await server.addPerson('carol', 'support');
}, 60_000);

afterAll(async () => {
  await server?.close();
  temp?.cleanup();
});

describe('credentials on a team server', () => {
  it('are sealed in the ledger, never returned to a client, and found in neither the ledger nor the log in plaintext', async () => {
    const admin = await desktopClient(server.origin, 'alice');
    const profile = await admin.value<{ id: string }>('profiles:create', { name: 'Shop sandbox', environment: 'sandbox', baseUrl: 'https://sandbox.example.com/api/', merchantId: 'm-1', merchantSiteId: 's-1' });
    const answers: unknown[] = [];
    answers.push(await admin.value('credentials:set-merchant-token', { profileId: profile.id, token: sentinels.merchantToken }));
    answers.push(await admin.value('credentials:import-key', { profileId: profile.id, privateKey: sentinels.privateKeyPem, kid: 'team-kid-1' }));
    answers.push(await admin.value('profiles:list'));
    answers.push(await admin.value('credentials:export-public-key', { profileId: profile.id }));
    const support = await desktopClient(server.origin, 'carol');
    answers.push(await support.value('profiles:list'));
    const listed = (answers[2] as { id: string; credentials: { merchantToken: { set: boolean; fingerprint: string | null }; privateKey: { set: boolean } } }[]).find((p) => p.id === profile.id)!;
    expect(listed.credentials.merchantToken.set).toBe(true);
    expect(listed.credentials.merchantToken.fingerprint).toMatch(/\w/);
    expect(listed.credentials.privateKey.set).toBe(true);
    // The screens say where: sealed on the server (shared/credential-custody.ts), not "the OS keychain".
    expect((await admin.value<{ keychain: { custody: string } }>('app:get-info')).keychain.custody).toBe('server');

    expect(leaksIn('answers to clients', JSON.stringify(answers), sentinels)).toEqual([]);
    expect(await leaksInLedger(server.core.ledger, sentinels)).toEqual([]);
    expect(leaksIn('server log', logged.join('\n'), sentinels)).toEqual([]);
    // What the ledger holds instead: sealed values under this server's key.
    const sealed = await server.core.ledger.all<{ account: string; sealed: string; key_id: string }>('SELECT account, sealed, key_id FROM server_secrets');
    expect(sealed.length).toBeGreaterThanOrEqual(2);
    for (const row of sealed) {
      expect(row.key_id).toBe(server.key.id);
      expect(row.sealed).toMatch(new RegExp(`^v1\\.${server.key.id}\\.`));
    }
    // ...which the server opens for its own calls (the token goes out with a sandbox call).
    const store = new ServerSecretStore(createRepositories(server.core.ledger).serverSecrets, server.key);
    const tokenAccount = sealed.find((row) => (server.key.open(row.sealed, row.account) === sentinels.merchantToken))?.account;
    expect(tokenAccount).toBeDefined();
    expect(await store.get(tokenAccount!)).toBe(sentinels.merchantToken);
  });

  it('rotation re-seals every credential under the new key; the old key opens nothing afterwards', async () => {
    const repos = createRepositories(server.core.ledger);
    const next = EnvelopeKey.generate();
    const before = await repos.serverSecrets.all();
    const counts = await rotateEnvelopeKey(repos, server.key, next);
    expect(counts.credentials).toBe(before.length);
    const after = await repos.serverSecrets.all();
    expect(after.every((row) => row.keyId === next.id && row.sealed.startsWith(`v1.${next.id}.`))).toBe(true);
    const reopened = new ServerSecretStore(repos.serverSecrets, next);
    const old = new ServerSecretStore(repos.serverSecrets, server.key);
    for (const row of before) {
      expect(await reopened.get(row.account)).toBe(server.key.open(row.sealed, row.account));
      await expect(old.get(row.account)).rejects.toThrow(/sealed under another envelope key/);
    }
    expect((await repos.audit.list({ limit: 5 })).find((e) => e.action === 'team.key-rotate')).toMatchObject({ actor: 'system' });
    // Put back, so the server running this suite keeps opening them.
    await rotateEnvelopeKey(repos, next, server.key);
  });

  it('a sealed value opens only for its own account, and not once a byte is changed', () => {
    const key = EnvelopeKey.generate();
    const sealed = key.seal('secret value', 'merchant-token:a');
    expect(key.open(sealed, 'merchant-token:a')).toBe('secret value');
    expect(() => key.open(sealed, 'merchant-token:b')).toThrow();
    const parts = sealed.split('.');
    const flipped = Buffer.from(parts[3]!, 'base64url');
    flipped[0] = flipped[0]! ^ 1;
    expect(() => key.open([...parts.slice(0, 3), flipped.toString('base64url'), parts[4]].join('.'), 'merchant-token:a')).toThrow();
  });

  it('takes its key from a file only its owner can read, or from the environment', () => {
    const key = EnvelopeKey.generate();
    const file = path.join(temp.dir, 'envelope.key');
    writeFileSync(file, `${key.toBase64()}\n`, { mode: 0o644 });
    chmodSync(file, 0o644);
    expect(() => loadEnvelopeKey(file)).toThrow(/can be read by others \(mode 644\)/);
    chmodSync(file, 0o600);
    expect(loadEnvelopeKey(file).id).toBe(key.id);
    expect(loadEnvelopeKey(undefined, { PAYDESK_SERVER_KEY: key.toBase64() }).id).toBe(key.id);
    expect(() => loadEnvelopeKey(undefined, {})).toThrow(EnvelopeKeyError);
    expect(() => loadEnvelopeKey(undefined, { PAYDESK_SERVER_KEY: 'c2hvcnQ=' })).toThrow(/not base64 of 32 bytes/);
  });
});
