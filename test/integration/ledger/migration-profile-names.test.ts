// Unique profile names as an upgrade from the version before, on each engine: SQLite's 0020 and
// PostgreSQL's 0007 (the same expectations for both: the two migrations agree). A ledger may hold
// one name twice in another case or spacing, and a live or sandbox profile named like the emulator:
// the first profile of each name keeps it (the emulator's own first), each later one gets a suffix,
// the emulator's name goes back to the emulator; every other row is kept, each rename is audited
// once at the next start, and the ledger refuses a repeated name from then on.
import { describe, expect, it } from 'vitest';
import { schemaVersion } from '../../../src/main/ledger/connection';
import { createRepositories } from '../../../src/main/ledger/repositories/index';
import { ProfileNameTakenError } from '../../../src/main/ledger/repositories/profiles';
import type { CredentialService } from '../../../src/main/services/credential-service';
import type { EventBus } from '../../../src/main/services/event-bus';
import type { LocalGateway } from '../../../src/main/services/local-gateway';
import { ProfileService } from '../../../src/main/services/profile-service';
import { LEDGER_TABLES } from '../../../src/main/ledger/copy/copy';
import { inColumnsOf, ledgerAtVersion, ledgerRows, ManualClock, testEngine, upgradedLedger, upgradeVersions } from '../../helpers/ledger';
import { cleanupsAfterEach } from '../../helpers/cleanups';

const clock = new ManualClock();
const cleanups = cleanupsAfterEach();

const { added: ADDED, before: BEFORE } = upgradeVersions({ sqlite: 20, postgres: 7 });

/** Profiles as the version before held them, oldest first: [environment, name]. */
const OLD: [string, string][] = [
  ['live', 'Live profile'],
  ['sandbox', 'Shop'],
  ['live', 'Local emulator'],
  ['local', 'Local emulator'],
  ['live', 'shop'],
  ['sandbox', 'Shop (2)'],
  ['sandbox', 'local  EMULATOR'],
  ['live', 'SHOP EU'],
  ['sandbox', 'ShopEU'],
];

const AFTER = ['Live profile', 'Shop', 'Live profile (2)', 'Local emulator', 'shop (3)', 'Shop (2)', 'Sandbox profile', 'SHOP EU', 'ShopEU (2)'];

/** Only what ensureLocalProfile touches: the ledger, and the emulator's address. */
function profileService(repos: ReturnType<typeof createRepositories>): ProfileService {
  const local = { baseUrl: 'http://127.0.0.1:9/api/v2', merchant: { merchant_id: 'm-local', merchant_site_id: 's-local' } } as LocalGateway;
  return new ProfileService({
    profiles: repos.profiles,
    audit: repos.audit,
    transaction: repos.transaction,
    credentials: {} as CredentialService,
    events: {} as EventBus,
    local,
    notificationUrl: () => '',
    onPathsChanged: () => {},
  });
}

describe(`unique profile names as an upgrade from version ${BEFORE} (${testEngine})`, () => {
  it('renames the later of two same names and a sandbox or live "Local emulator", keeps every other row, audits each rename once, then refuses repeats', async () => {
    const old = await ledgerAtVersion(BEFORE, clock.now, cleanups);
    expect(await schemaVersion(old.db)).toBe(BEFORE);
    const ids: string[] = [];
    for (const [i, [environment, name]] of OLD.entries()) {
      const id = `p-${i}`;
      const at = new Date(Date.parse('2026-01-01T00:00:00.000Z') + i * 60_000).toISOString();
      await old.db.run(
        `INSERT INTO profiles (id, name, environment, base_url, merchant_id, merchant_site_id, listener_path_secret, is_active, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [id, name, environment, 'https://pay.example.com/api/v2', 'm', 's', `secret-${i}-${'x'.repeat(40)}`, environment === 'local' ? 1 : 0, at, at],
      );
      ids.push(id);
    }
    // A renamed profile's transactions stay with it.
    await old.db.run("INSERT INTO payins (profile_id, kind, request_id, method, amount, currency, email, final, created_at, updated_at) VALUES ('p-4', 'payin', 'r-1', 'blik', '1.00', 'PLN', 'a@example.com', 0, '2026-01-02T00:00:00.000Z', '2026-01-02T00:00:00.000Z')");
    await createRepositories(old.db, clock.now).audit.append({ actor: 'user', action: 'settings.update', details: { theme: 'dark' } });
    const before = await ledgerRows(old.db);
    await old.db.close();

    const db = await upgradedLedger(old.address, clock.now, cleanups);
    expect(await schemaVersion(db)).toBeGreaterThanOrEqual(ADDED);
    const profiles = await db.all<{ id: string; name: string; archived_at: string | null }>('SELECT id, name, archived_at FROM profiles ORDER BY created_at');
    expect(profiles.map((p) => p.name)).toEqual(AFTER);
    expect(profiles.every((p) => p.archived_at === null)).toBe(true);
    // Every row but the renamed names as it was.
    const renamedBack = { ...before, profiles: before.profiles!.map((row) => ({ ...(row as object), name: AFTER[ids.indexOf((row as { id: string }).id)] })) };
    // Every row kept (the upgrade's own record of its renames, read below, aside).
    expect(inColumnsOf(before, await ledgerRows(db, LEDGER_TABLES.filter((t) => t.table !== 'profile_renames')))).toEqual(renamedBack);
    const renames = await db.all<{ profile_id: string; old_name: string; new_name: string; reason: string; audited_at: string | null }>('SELECT profile_id, old_name, new_name, reason, audited_at FROM profile_renames ORDER BY id');
    expect(renames).toEqual([
      { profile_id: 'p-2', old_name: 'Local emulator', new_name: 'Live profile (2)', reason: 'reserved', audited_at: null },
      { profile_id: 'p-4', old_name: 'shop', new_name: 'shop (3)', reason: 'duplicate', audited_at: null },
      { profile_id: 'p-6', old_name: 'local  EMULATOR', new_name: 'Sandbox profile', reason: 'reserved', audited_at: null },
      { profile_id: 'p-8', old_name: 'ShopEU', new_name: 'ShopEU (2)', reason: 'duplicate', audited_at: null },
    ]);

    // The next start audits each rename, once, even when two instances start together.
    const repos = createRepositories(db, clock.now);
    await Promise.all([profileService(repos).ensureLocalProfile(), profileService(createRepositories(db, clock.now)).ensureLocalProfile()]);
    await profileService(repos).ensureLocalProfile();
    const audited = (await repos.audit.list()).filter((e) => e.action === 'profile.rename').reverse();
    expect(audited.map((e) => [e.actor, e.profileId, e.subject, JSON.parse(e.details)])).toEqual([
      ['system', 'p-2', 'Live profile (2)', expect.objectContaining({ from: 'Local emulator', to: 'Live profile (2)', why: '“Local emulator” is the embedded emulator\'s name', upgrade: true })],
      ['system', 'p-4', 'shop (3)', expect.objectContaining({ from: 'shop', to: 'shop (3)', why: 'an older profile has the same name' })],
      ['system', 'p-6', 'Sandbox profile', expect.objectContaining({ from: 'local  EMULATOR', to: 'Sandbox profile' })],
      ['system', 'p-8', 'ShopEU (2)', expect.objectContaining({ from: 'ShopEU', to: 'ShopEU (2)' })],
    ]);
    expect(await repos.profiles.pendingRenames()).toEqual([]);
    expect(await repos.audit.verify()).toMatchObject({ ok: true, count: 5 });

    // From now on the ledger itself refuses a name taken in another case or spacing.
    await expect(repos.profiles.create({ name: 'shop  eu', environment: 'sandbox', baseUrl: 'https://s.example.com/api/v2', merchantId: 'm', merchantSiteId: 's' })).rejects.toBeInstanceOf(ProfileNameTakenError);
    await expect(repos.profiles.update('p-1', { name: 'LIVE PROFILE' })).rejects.toBeInstanceOf(ProfileNameTakenError);
  });
});
