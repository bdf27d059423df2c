// Profiles and credentials through the contract, on a real ledger (this run's engine), the real
// embedded emulator and the real OS keychain (gnome-keyring started by `npm test`).
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import keytar from 'keytar';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InvokeChannel, InvokeInput, InvokeOutput } from '../../src/shared/contract';
import type { Core } from '../../src/main/core';
import { exportPrivatePem, generateMerchantKeyPair } from '../../src/main/gateway/jwt-keys';
import { KeytarSecretStore } from '../../src/main/platform/keychain';
import { createRepositories } from '../../src/main/ledger/repositories/index';
import { ProfileNameTakenError } from '../../src/main/ledger/repositories/profiles';
import { contractCall, contractRefusal, testCore } from '../helpers/app-core';
import { payinForm, payoutForm } from '../helpers/fixtures';
import { openReader, testDatabaseFor, testEngine } from '../helpers/ledger';
import { tempDir } from '../helpers/temp-dir';

let core: Core;
let dataDir: string;
let service: string;
let cleanup: () => void;

const call = <C extends InvokeChannel>(channel: C, input?: InvokeInput<C>) => contractCall(core, channel, input);
const failure = (channel: InvokeChannel, input?: unknown) => contractRefusal(core, channel, input);

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** Whether any row of any table of the core's PostgreSQL ledger holds `text` (on SQLite, the file is among the data directory's). */
async function postgresLedgerHolds(text: string): Promise<boolean> {
  const url = await testDatabaseFor(dataDir);
  if (url === undefined) return false;
  const reader = await openReader({ url });
  try {
    const tables = await reader.all<{ name: string }>("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'");
    expect(tables.length).toBeGreaterThan(0);
    for (const { name } of tables) {
      const rows = await reader.all<Record<string, unknown>>(`SELECT * FROM ${name}`);
      if (rows.some((row) => Object.values(row).some((value) => (Buffer.isBuffer(value) ? value.includes(text) : String(value).includes(text))))) return true;
    }
    return false;
  } finally {
    await reader.close();
  }
}

beforeEach(async () => {
  const temp = tempDir();
  cleanup = temp.cleanup;
  dataDir = path.join(temp.dir, 'data');
  service = `PaydeskTest-${randomUUID()}`;
  core = await testCore(dataDir, new KeytarSecretStore(service));
});

afterEach(async () => {
  await core.close();
  for (const credential of await keytar.findCredentials(service)) await keytar.deletePassword(service, credential.account);
  cleanup();
});

describe('profiles', () => {
  it('starts on first run with an active local-emulator profile and nothing to configure', async () => {
    const [local, ...others] = await call('profiles:list');
    expect(others).toEqual([]);
    expect(local).toMatchObject({ environment: 'local', isActive: true, baseUrl: core.local.baseUrl, merchantId: core.local.merchant.merchant_id });
    expect(local?.credentials.merchantToken.set).toBe(true);
    expect(local?.credentials.privateKey.set).toBe(false);
    expect(local?.notificationUrl).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${core.listener.port}/n/[\\w-]{43}$`));
    const info = await call('app:get-info');
    expect(info.environment).toEqual({ kind: 'local', label: 'Local emulator' });
  });

  it('creates sandbox and live profiles from the addresses users have, and refuses wrong ones naming the field', async () => {
    const sandbox = await call('profiles:create', { name: 'Demo', environment: 'sandbox', baseUrl: 'https://sandbox.example.com/api/', merchantId: 'm-1', merchantSiteId: 's-1' });
    expect(sandbox.baseUrl).toBe('https://sandbox.example.com/api/v2');
    expect(sandbox.payoutsEnabled).toBe(false);
    const live = await call('profiles:create', { name: 'Shop', environment: 'live', baseUrl: 'https://pay.example.com/api/v2', merchantId: 'm-1', merchantSiteId: 's-1' });
    expect(live).toMatchObject({ baseUrl: 'https://pay.example.com/api/v2', payoutsEnabled: true, isActive: false });

    expect((await failure('profiles:create', { name: 'x', environment: 'live', baseUrl: 'https://pay.example.com/v1', merchantId: 'm', merchantSiteId: 's' })).fields).toEqual({ baseUrl: 'Must end in /api/v2, e.g. https://pay.example.com/api/v2' });
    expect((await failure('profiles:create', { name: 'x', environment: 'live', baseUrl: 'http://pay.example.com/api/v2', merchantId: 'm', merchantSiteId: 's' })).fields).toEqual({
      baseUrl: 'A live gateway is reached over https only: start with https://, e.g. https://pay.example.com/api/v2',
    });
    const missing = await failure('profiles:create', { name: 'x', environment: 'sandbox' });
    expect(Object.keys(missing.fields ?? {}).sort()).toEqual(['baseUrl', 'merchantId', 'merchantSiteId']);
    expect((await failure('profiles:create', { name: '', environment: 'local' })).code).toBe('invalid_input');
  });

  it('switches the active profile at once, marks live in the environment, and refuses deleting the active one', async () => {
    const live = await call('profiles:create', { name: 'Shop', environment: 'live', baseUrl: 'https://pay.example.com/api/v2', merchantId: 'm', merchantSiteId: 's' });
    await call('profiles:activate', { id: live.id, confirmed: true });
    expect((await call('app:get-info')).environment).toEqual({ kind: 'live', label: 'Live · Shop' });
    expect((await call('profiles:list')).filter((p) => p.isActive).map((p) => p.id)).toEqual([live.id]);
    expect((await failure('profiles:delete', { id: live.id })).code).toBe('conflict');
    const local = (await call('profiles:list')).find((p) => p.environment === 'local');
    await call('profiles:activate', { id: local?.id ?? '' });
    await expect(call('profiles:delete', { id: live.id })).resolves.toEqual({ deleted: true });
  });

  it('keeps profiles across restarts and follows the emulator to its new port', async () => {
    await call('profiles:create', { name: 'Demo', environment: 'sandbox', baseUrl: 'https://sandbox.example.com/api/', merchantId: 'm', merchantSiteId: 's' });
    const merchant = core.local.merchant.merchant_id;
    await core.close();
    core = await testCore(dataDir, new KeytarSecretStore(service));
    const profiles = await call('profiles:list');
    expect(profiles.map((p) => p.name)).toEqual(['Local emulator', 'Demo']);
    expect(profiles[0]?.baseUrl).toBe(core.local.baseUrl);
    expect(core.local.merchant.merchant_id).toBe(merchant);
  });
});

const sandboxAt = (name: string, more: Record<string, unknown> = {}) => ({ name, environment: 'sandbox' as const, baseUrl: 'https://sandbox.example.com/api/', merchantId: 'm-1', merchantSiteId: 's-1', ...more });
const liveAt = (name: string, more: Record<string, unknown> = {}) => ({ name, environment: 'live' as const, baseUrl: 'https://pay.example.com/api/v2', merchantId: 'm-1', merchantSiteId: 's-1', ...more });

describe('profile names', () => {
  it('are unique per desk whatever their case and spaces, and the emulator keeps its own', async () => {
    const shop = await call('profiles:create', sandboxAt('Shop EU'));
    for (const same of ['shop eu', '  SHOP   EU ', 'ShopEU', 'Shop\tEu']) {
      const refused = await failure('profiles:create', sandboxAt(same));
      expect(refused.code, same).toBe('invalid_input');
      expect(refused.fields, same).toEqual({ name: 'A profile is already named “Shop EU”: names must differ by more than case and spaces.' });
    }
    for (const emulator of ['Local emulator', 'LOCAL  EMULATOR', 'localemulator']) {
      expect((await failure('profiles:create', liveAt(emulator))).fields?.name, emulator).toMatch(/“Local emulator” is the embedded emulator's name: give this live profile a name of its own/);
    }
    // Renamed: into another's name refused, its own name in another case taken.
    const other = await call('profiles:create', sandboxAt('Shop UK'));
    expect((await failure('profiles:update', { id: other.id, patch: { name: 'SHOP eu' } })).fields).toEqual({ name: expect.stringMatching(/already named “Shop EU”/) });
    await expect(call('profiles:update', { id: shop.id, patch: { name: 'SHOP EU' } })).resolves.toMatchObject({ name: 'SHOP EU' });
    // A sandbox profile turned live cannot keep the emulator's name either (it never had it: refused at create).
    expect((await failure('profiles:update', { id: other.id, patch: { name: 'Local Emulator', environment: 'live', baseUrl: 'https://pay.example.com/api/v2' } })).fields?.name).toMatch(/embedded emulator's name/);
    expect((await call('profiles:list')).map((p) => p.name)).toEqual(['Local emulator', 'SHOP EU', 'Shop UK']);
  });

  it('are kept apart by the ledger itself, on this engine, when the service is bypassed', async () => {
    const repos = createRepositories(core.ledger);
    const facts = { environment: 'sandbox' as const, baseUrl: 'https://sandbox.example.com/api/v2', merchantId: 'm', merchantSiteId: 's' };
    const first = await repos.profiles.create({ name: 'Shop', ...facts });
    await expect(repos.profiles.create({ name: 'SHOP', ...facts })).rejects.toBeInstanceOf(ProfileNameTakenError);
    await expect(repos.profiles.create({ name: 'S h o p', ...facts })).rejects.toBeInstanceOf(ProfileNameTakenError);
    const second = await repos.profiles.create({ name: 'Shop two', ...facts });
    await expect(repos.profiles.update(second.id, { name: 'shop' })).rejects.toBeInstanceOf(ProfileNameTakenError);
    expect((await repos.profiles.get(second.id))?.name).toBe('Shop two');
    expect((await repos.profiles.update(first.id, { name: 'sHoP' })).name).toBe('sHoP');
  });
});

describe('the profile form\'s rules, in main', () => {
  it('refuses an address without its scheme once, on the field, with an example that passes the rule and no channel name', async () => {
    for (const environment of ['sandbox', 'live'] as const) {
      const entered = environment === 'sandbox' ? 'sandbox.example.com/api/' : 'pay.example.com/api/v2';
      const refused = await failure('profiles:create', { ...(environment === 'live' ? liveAt('X') : sandboxAt('X')), baseUrl: entered });
      expect(refused.code).toBe('invalid_input');
      expect(Object.keys(refused.fields ?? {})).toEqual(['baseUrl']);
      expect(refused.message).not.toMatch(/profiles:/);
      const example = /e\.g\. (\S+)$/.exec(refused.fields?.baseUrl ?? '')?.[1];
      expect(example, refused.fields?.baseUrl).toBeDefined();
      await expect(call('profiles:create', { ...(environment === 'live' ? liveAt(`Example ${environment}`) : sandboxAt(`Example ${environment}`)), baseUrl: example })).resolves.toMatchObject({ environment });
    }
  });

  it('refuses a live profile an http notification URL and a merchant_id or site id with a space, naming each field', async () => {
    const refused = await failure('profiles:create', liveAt('Shop', { merchantId: 'm 1', merchantSiteId: 's\t1', notificationPublicUrl: 'http://notify.example.com/' }));
    expect(refused.fields).toEqual({
      merchantId: 'A merchant_id has no spaces: copy it again from your integration settings.',
      merchantSiteId: 'A merchant_site_id has no spaces: copy it again from your integration settings.',
      notificationPublicUrl: 'A live gateway posts payment news here: it must start with https://, e.g. https://notify.example.com',
    });
    expect(refused.message).toMatch(/^The profile was not saved\. merchant_id: .* Notification public URL: /);
    // A sandbox may be posted to over http; it becomes live only with an https URL.
    const sandbox = await call('profiles:create', sandboxAt('Test', { notificationPublicUrl: 'http://notify.example.com/' }));
    expect((await failure('profiles:update', { id: sandbox.id, patch: { environment: 'live', baseUrl: 'https://pay.example.com/api/v2' } })).fields).toEqual({ notificationPublicUrl: expect.stringMatching(/must start with https/) });
    await expect(call('profiles:create', liveAt('Shop', { notificationPublicUrl: 'https://notify.example.com/' }))).resolves.toMatchObject({ notificationPublicUrl: 'https://notify.example.com/' });
    expect((await call('profiles:list')).map((p) => p.name)).toEqual(['Local emulator', 'Test', 'Shop']);
  });
});

describe('switching to a live profile', () => {
  it('is refused without the confirmation that names it live, and done with it', async () => {
    const live = await call('profiles:create', liveAt('Shop'));
    const refused = await failure('profiles:activate', { id: live.id });
    expect(refused).toMatchObject({ code: 'invalid_input', message: 'Profile “Shop” is live: every pay-in and payout sent while it is active moves real money. Confirm the switch to it.' });
    expect((await call('profiles:list')).find((p) => p.isActive)?.environment).toBe('local');
    await expect(call('profiles:activate', { id: live.id, confirmed: true })).resolves.toMatchObject({ isActive: true });
    // Already active: nothing to confirm.
    await expect(call('profiles:activate', { id: live.id })).resolves.toMatchObject({ isActive: true });
  });

  it('is refused by another door too: the active profile edited into a live one, without the confirmation', async () => {
    const sandbox = await call('profiles:create', sandboxAt('Soon live'));
    await call('profiles:activate', { id: sandbox.id });
    const toLive = { environment: 'live' as const, baseUrl: 'https://pay.example.com/api/v2' };
    const refused = await failure('profiles:update', { id: sandbox.id, patch: toLive });
    expect(refused.fields).toEqual({ confirmed: 'This is the active profile: saving it as live switches you to real money. Confirm it.' });
    expect((await call('app:get-info')).environment.kind).toBe('sandbox');
    await expect(call('profiles:update', { id: sandbox.id, patch: toLive, confirmed: true })).resolves.toMatchObject({ environment: 'live', isActive: true });
    // Not active: an edit, not a switch.
    const other = await call('profiles:create', sandboxAt('Later live'));
    await expect(call('profiles:update', { id: other.id, patch: toLive })).resolves.toMatchObject({ environment: 'live', isActive: false });
  });
});

describe('deleting, archiving and restoring a profile', () => {
  it('refuses to delete a profile with transactions, saying why and what to do; archived, it leaves the pickers and keeps its transactions', async () => {
    const local = (await call('profiles:list'))[0]!;
    const second = await call('profiles:create', { name: 'Emulator two', environment: 'local' });
    const sent = await call('payins:create', payinForm('blik', { profileId: second.id }));
    const refused = await failure('profiles:delete', { id: second.id });
    expect(refused.code).toBe('conflict');
    expect(refused.message).toBe(
      'Profile “Emulator two” cannot be deleted: it has transactions in the ledger (pay-ins, payouts or notifications), which keep the profile they were sent with. ' +
        'Archive it instead: an archived profile leaves the profile switcher and the pickers, its transactions stay visible and filterable, and it can be restored at any time.',
    );

    const archived = await call('profiles:archive', { id: second.id });
    expect(archived.archivedAt).toEqual(expect.any(String));
    expect((await failure('profiles:activate', { id: second.id })).message).toBe('Profile “Emulator two” is archived: restore it first (Settings → Profiles).');
    expect((await call('payins:list', { profileId: second.id })).items.map((p) => p.id)).toEqual([sent.payin?.id]);
    // Nothing is sent from it, whoever names it: a pay-in, a payout, a token, a batch.
    const archivedRefusal = 'Profile “Emulator two” is archived: nothing is sent from it. Restore it first (Settings → Profiles).';
    for (const [channel, input] of [
      ['payins:create', payinForm('blik', { profileId: second.id })],
      ['payouts:review', payoutForm('open_banking', { profileId: second.id })],
      ['batches:create', { profileId: second.id, fileName: 'b.csv', rows: 1 }],
    ] as const) {
      expect(await failure(channel, input), channel).toMatchObject({ code: 'conflict', message: archivedRefusal });
    }
    expect((await call('payins:list', { profileId: second.id })).items).toHaveLength(1);
    expect((await failure('profiles:delete', { id: second.id })).message).toMatch(/It stays archived/);
    expect((await failure('profiles:archive', { id: local.id })).message).toBe('Profile “Local emulator” is the active profile and cannot be archived: activate another one first.');
    expect((await failure('profiles:delete', { id: local.id })).message).toBe('Profile “Local emulator” is the active profile and cannot be deleted: activate another one first.');

    const restored = await call('profiles:restore', { id: second.id });
    expect(restored.archivedAt).toBeNull();
    await call('profiles:activate', { id: second.id });
    const audit = (await createRepositories(core.ledger).audit.list()).filter((e) => e.action.startsWith('profile.')).map((e) => [e.action, e.subject]);
    expect(audit.slice(0, 3)).toEqual([['profile.activate', 'Emulator two'], ['profile.restore', 'Emulator two'], ['profile.archive', 'Emulator two']]);
  });
});

describe('credentials', () => {
  it('stores the merchant-token in the keychain only and shows back a fingerprint, never the token', async () => {
    const live = await call('profiles:create', { name: 'Shop', environment: 'live', baseUrl: 'https://pay.example.com/api/v2', merchantId: 'm', merchantSiteId: 's' });
    const sentinel = `tok_SENTINEL_${randomUUID()}`;
    const view = await call('credentials:set-merchant-token', { profileId: live.id, token: sentinel });
    expect(view.credentials.merchantToken.set).toBe(true);
    expect(view.credentials.merchantToken.fingerprint).toMatch(/^[0-9a-f]{16}$/);
    expect(JSON.stringify(await call('profiles:list'))).not.toContain(sentinel);
    expect(await keytar.getPassword(service, `${live.id}/merchant-token`)).toBe(sentinel);
    await core.close();
    for (const file of filesUnder(dataDir)) expect(readFileSync(file).includes(sentinel), file).toBe(false);
    expect(await postgresLedgerHolds(sentinel)).toBe(false);
    expect(await postgresLedgerHolds(live.id)).toBe(testEngine === 'postgres'); // the search does find what is there
    core = await testCore(dataDir, new KeytarSecretStore(service));
    const cleared = await call('credentials:clear-merchant-token', { profileId: live.id });
    expect(cleared.credentials.merchantToken).toEqual({ set: false, fingerprint: null });
  });

  it('pushes the profiles after every credential change, so every screen shows the new state', async () => {
    const live = await call('profiles:create', { name: 'Shop', environment: 'live', baseUrl: 'https://pay.example.com/api/v2', merchantId: 'm', merchantSiteId: 's' });
    const pushed: string[] = [];
    const stop = core.events.subscribe((channel, payload) => {
      if (channel !== 'profiles:profiles-changed') return;
      const shown = (payload as InvokeOutput<'profiles:list'>).find((p) => p.id === live.id)?.credentials;
      pushed.push(`token ${String(shown?.merchantToken.set)}, key ${String(shown?.privateKey.set)}`);
    });
    await call('credentials:set-merchant-token', { profileId: live.id, token: `tok_${randomUUID()}` });
    await call('credentials:generate-key', { profileId: live.id, kid: 'pushed-kid' });
    await call('credentials:clear-merchant-token', { profileId: live.id });
    await call('credentials:export-public-key', { profileId: live.id });
    stop();
    expect(pushed).toEqual(['token true, key false', 'token true, key true', 'token false, key true']);
    expect(await failure('credentials:set-merchant-token', { profileId: 'no-such-profile', token: `tok_${randomUUID()}` })).toMatchObject({ code: 'not_found' });
  });

  it('drops the spaces around a pasted merchant-token and refuses one with a space or line break inside', async () => {
    const live = await call('profiles:create', liveAt('Shop'));
    for (const token of ['tok_abc def123', 'tok_abc\ndef123', 'tok_abc\tdef123']) {
      const refused = await failure('credentials:set-merchant-token', { profileId: live.id, token });
      expect(refused.fields, JSON.stringify(token)).toEqual({ token: 'A merchant-token has no spaces or line breaks inside: paste it again, whole, from your integration settings.' });
      expect(refused.message).not.toMatch(/credentials:/);
    }
    expect(await keytar.getPassword(service, `${live.id}/merchant-token`)).toBeNull();
    await call('credentials:set-merchant-token', { profileId: live.id, token: '  tok_abcdef123 \n' });
    expect(await keytar.getPassword(service, `${live.id}/merchant-token`)).toBe('tok_abcdef123');
    expect((await call('app:get-info')).keychain.custody).toBe('keychain');
  });

  it('refuses a merchant-token that cannot travel in an HTTP header, and one left so in the keychain stops a create cleanly', async () => {
    const sandbox = await call('profiles:create', { name: 'Sandbox', environment: 'sandbox', baseUrl: `${new URL(core.local.baseUrl).origin}/api/v2`, merchantId: core.local.merchant.merchant_id, merchantSiteId: core.local.merchant.merchant_site_id });
    const refused = await failure('credentials:set-merchant-token', { profileId: sandbox.id, token: 'tok\u{1F600}-emoji-token' });
    expect(refused.code).toBe('invalid_input');
    expect(refused.fields?.token).toMatch(/printable ASCII/);
    expect(await keytar.getPassword(service, `${sandbox.id}/merchant-token`)).toBeNull();
    // Written around Paydesk (by hand, or by an older version): the create refuses, it does not crash.
    await keytar.setPassword(service, `${sandbox.id}/merchant-token`, 'tok\u00e9-accented-token');
    const create = await failure('payins:create', {
      profileId: sandbox.id, payment_method: 'open_banking', amount: '10.00', currency: 'EUR', request_id: `req-${randomUUID()}`, email: 'ana@example.com', country: 'DEU',
      device_ip: '203.0.113.7', first_name: 'Ana', last_name: 'Lima', success_url: 'https://shop.example/s', pending_url: 'https://shop.example/p', fail_url: 'https://shop.example/f', back_url: 'https://shop.example/b',
    });
    expect(create.code).toBe('unavailable');
    expect(create.message).toMatch(/cannot be sent/);
  });

  it('generates an Ed25519 key, keeps the private half in the keychain, exports the public half and registers it with the emulator', async () => {
    const local = (await call('profiles:list'))[0];
    const exported = await call('credentials:generate-key', { profileId: local?.id ?? '', kid: 'paydesk-test-1' });
    expect(exported).toMatchObject({ kid: 'paydesk-test-1', registeredWithEmulator: true, jwk: { kty: 'OKP', crv: 'Ed25519' } });
    expect(exported.jwk).not.toHaveProperty('d');
    expect(exported.pem).toContain('-----BEGIN PUBLIC KEY-----');
    const stored = await keytar.getPassword(service, `${local?.id}/jwt-private-key`);
    expect(stored).toContain('-----BEGIN PRIVATE KEY-----');
    const view = (await call('profiles:list'))[0];
    expect(view).toMatchObject({ kid: 'paydesk-test-1', credentials: { privateKey: { set: true, fingerprint: exported.fingerprint } } });
    expect(JSON.stringify(view)).not.toContain(stored ?? 'x');
    // Registered: the emulator now holds exactly this public key under this kid.
    const keys = (await (await fetch(`${core.local.adminUrl}/keys`)).json()) as { keys: { kid: string; public_jwk: { x: string } }[] };
    expect(keys.keys.find((key) => key.kid === 'paydesk-test-1')?.public_jwk.x).toBe(exported.jwk.x);
  });

  it('imports an existing private key (PEM) and refuses anything else with a clear error', async () => {
    const local = (await call('profiles:list'))[0];
    const pair = await generateMerchantKeyPair('imported-kid');
    const imported = await call('credentials:import-key', { profileId: local?.id ?? '', privateKey: await exportPrivatePem(pair), kid: 'imported-kid' });
    expect(imported.kid).toBe('imported-kid');
    expect(imported.jwk).toMatchObject({ x: pair.publicJwk.x });
    await expect(call('credentials:export-public-key', { profileId: local?.id ?? '' })).resolves.toMatchObject({ fingerprint: imported.fingerprint });
    const bad = await failure('credentials:import-key', { profileId: local?.id ?? '', privateKey: '-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----' });
    expect(bad.code).toBe('invalid_input');
    expect(bad.message).not.toContain('not a key');
  });
});
