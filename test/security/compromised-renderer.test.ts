// The threat "a compromised renderer" (docs/security.md): whatever it calls, it must not get a secret out.
// It never receives one (secrets.test.ts), so the remaining way is to make main send one
// somewhere else. The merchant-token goes out as a header on every gateway call: pointing a
// profile at another address must not carry the stored token along (this suite found that it did:
// profiles:update kept the token, and the next call sent it to the new address). The signing key
// never leaves main, and a tokenize JWT (which holds the card in readable base64) is withheld.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../../src/emulator/index';
import type { Core } from '../../src/main/core';
import { MemorySecretStore, testCore } from '../helpers/app-core';
import { tempDir } from '../helpers/temp-dir';
import * as kit from '../helpers/calls';
import { makeSentinels } from './helpers/sentinels';

const S = makeSentinels();
const temp = tempDir('paydesk-compromised-renderer-');
const secrets = new MemorySecretStore();
let core: Core;
let gateway: EmulatorHandle;
let attacker: http.Server;
let attackerOrigin = '';
const received: string[] = [];

beforeAll(async () => {
  gateway = await startEmulator({ quiet: true, merchant: { merchant_token: S.merchantToken } });
  attacker = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push(`${req.method} ${req.url} ${JSON.stringify(req.headers)} ${body}`);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"success","status_code":100}');
    });
  });
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  attackerOrigin = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
  core = await testCore(path.join(temp.dir, 'data'), secrets);
});

afterAll(async () => {
  await core?.close();
  await gateway?.close();
  await new Promise((resolve) => attacker?.close(resolve));
  temp.cleanup();
});

const must = <T>(channel: string, input?: unknown) => kit.must<T>(core, channel, input);

describe('a compromised renderer cannot get a secret out', () => {
  it('cannot redirect a profile to another address and have its merchant-token sent there', async () => {
    const profile = await must<{ id: string }>('profiles:create', {
      name: 'Sandbox',
      environment: 'sandbox',
      baseUrl: `${new URL(gateway.baseUrl).origin}/api/`,
      merchantId: gateway.merchant.merchant_id,
      merchantSiteId: gateway.merchant.merchant_site_id,
    });
    await must('credentials:set-merchant-token', { profileId: profile.id, token: S.merchantToken });
    // Control: the token works against the real gateway.
    expect((await must<{ read: { result: string } }>('payins:read-status', { profileId: profile.id, requestId: 'nothing-here' })).read.result).toBe('not_found');

    // The compromised renderer points the profile at its own server, then makes main call it.
    await must('profiles:update', { id: profile.id, patch: { baseUrl: `${attackerOrigin}/api/` } });
    const after = await core.dispatch('payins:read-status', { profileId: profile.id, requestId: 'nothing-here' });
    await core.dispatch('payins:create', { profileId: profile.id });
    await core.dispatch('attempts:list', { subject: 'payin', id: 1 });

    expect(received.filter((r) => r.includes(S.merchantToken))).toEqual([]);
    // The token had to go: the profile says so, and it must be entered again for the new address.
    expect(after).toMatchObject({ ok: false, error: { code: 'unavailable' } });
    const view = (await must<{ id: string; credentials: { merchantToken: { set: boolean } } }[]>('profiles:list')).find((p) => p.id === profile.id);
    expect(view?.credentials.merchantToken.set).toBe(false);
    expect([...secrets.secrets.values()]).not.toContain(S.merchantToken);
  });

  it('keeps the token when nothing about the address changes', async () => {
    const profile = await must<{ id: string }>('profiles:create', {
      name: 'Sandbox 2',
      environment: 'sandbox',
      baseUrl: `${new URL(gateway.baseUrl).origin}/api/`,
      merchantId: gateway.merchant.merchant_id,
      merchantSiteId: gateway.merchant.merchant_site_id,
    });
    await must('credentials:set-merchant-token', { profileId: profile.id, token: S.merchantToken });
    await must('profiles:update', { id: profile.id, patch: { name: 'Renamed', baseUrl: `${new URL(gateway.baseUrl).origin}/api/` } });
    expect((await must<{ read: { result: string } }>('payins:read-status', { profileId: profile.id, requestId: 'nothing-here' })).read.result).toBe('not_found');
  });

  it('never gets the signing key or a card-bearing JWT back', async () => {
    const local = (await must<{ id: string; environment: string }[]>('profiles:list')).find((p) => p.environment === 'local') as { id: string };
    await must('credentials:import-key', { profileId: local.id, privateKey: S.privateKeyPem, kid: 'k1' });
    const exported = await must<Record<string, unknown>>('credentials:export-public-key', { profileId: local.id });
    const signed = await must<{ jwt: string | null }>('jwt:sign', { op: 'tokenize', profileId: local.id, cardNum: S.pan, cardHolder: 'Ana Lima', cardExpireMonth: '12', cardExpireYear: String(new Date().getUTCFullYear() + 2) });
    const text = JSON.stringify([exported, signed, await must('profiles:list')]);
    expect(text).not.toContain(S.privateKeyD);
    expect(text).not.toContain(S.pan);
    expect(signed.jwt).toBeNull();
  });
});
