// Several instances on one ledger, as an upgrade from the version before, on each engine: SQLite's
// migration 0017 from a version-16 ledger, PostgreSQL's 0005 from a version-4 database. Every row
// is kept; a send in flight and a running batch from before the upgrade name no instance, so the
// first start after it takes them back (nothing could be running them); and on the upgraded
// ledger an instance's claims are its own: recovery with it alive leaves them, with it dead takes them.
import { describe, expect, it } from 'vitest';
import { schemaVersion } from '../../../src/main/ledger/connection';
import { createRepositories } from '../../../src/main/ledger/repositories/index';
import { inColumnsOf, ledgerAtVersion, ledgerRows, ManualClock, testEngine, upgradedLedger } from '../../helpers/ledger';
import { cleanupsAfterEach } from '../../helpers/cleanups';

const clock = new ManualClock();
const cleanups = cleanupsAfterEach();

const VERSIONS = testEngine === 'sqlite' ? { before: 16, added: 17 } : { before: 4, added: 5 };

const ledgerBefore = () => ledgerAtVersion(VERSIONS.before, clock.now, cleanups);

const claim = (key: string) => ({ profileId: '', kind: 'payout' as const, idempotencyKey: key, reference: `ref-${key}`, requestHash: 'h', requestBody: '{}', replayable: true, state: 'sending' as const });

describe(`instances and their claims as an upgrade from version ${VERSIONS.before} (${testEngine})`, () => {
  it('keeps every row, takes back what was in flight before it, and leaves a live instance its claims', async () => {
    const old = await ledgerBefore();
    expect(await schemaVersion(old.db)).toBe(VERSIONS.before);
    await expect(old.db.all('SELECT * FROM ledger_instances')).rejects.toThrow(/ledger_instances/);
    const repos = createRepositories(old.db, clock.now);
    const profile = await repos.profiles.create({ name: 'Local emulator', environment: 'local', baseUrl: 'http://127.0.0.1:9/api/v2', merchantId: 'm-1', merchantSiteId: 's-1' });
    // Written as the version before wrote them (its repositories knew no owner columns).
    const at = clock.now().toISOString();
    await old.db.run(`INSERT INTO attempts (profile_id, kind, idempotency_key, reference, request_hash, request_body, replayable, state, try_count, last_sent_at, created_at, updated_at)
      VALUES (?, 'payout', 'before-upgrade', 'ref-before', 'h', '{}', 1, 'sending', 1, ?, ?, ?)`, [profile.id, at, at, at]);
    const batch = (await old.db.get<{ id: number }>("INSERT INTO batches (profile_id, environment, file_name, state, declared_rows, created_at, updated_at, started_at) VALUES (?, 'local', 'old.csv', 'running', 1, ?, ?, ?) RETURNING id", [profile.id, at, at, at]))!;
    await repos.audit.append({ actor: 'user', action: 'settings.update', profileId: profile.id, details: { theme: 'dark' } });
    const before = await ledgerRows(old.db);
    await old.db.close();

    const db = await upgradedLedger(old.address, clock.now, cleanups);
    expect(await schemaVersion(db)).toBeGreaterThanOrEqual(VERSIONS.added);
    // Later versions add columns of their own: a batch's left-out rows (SQLite 0019, PostgreSQL 0006), profiles.archived_at.
    const added = { attempts: { claimed_by: null }, batches: { run_by: null, left_out_rows: 0 } } as Record<string, Record<string, null | number>>;
    const expected = Object.fromEntries(Object.entries(before).map(([table, rows]) => [table, rows.map((row) => ({ ...(row as object), ...added[table] }))]));
    expect(inColumnsOf(expected, await ledgerRows(db))).toEqual(expected);
    expect(await db.all('SELECT * FROM ledger_instances')).toEqual([]);

    // Instance A (alive) claims a send; the claim from before the upgrade names no one.
    const a = createRepositories(db, clock.now, { instance: 'instance-a' });
    const b = createRepositories(db, clock.now, { instance: 'instance-b' });
    await a.instances.register('instance-a', 'host-a', 1);
    await b.instances.register('instance-b', 'host-b', 2);
    await a.attempts.record({ ...claim('a-live'), profileId: profile.id });
    expect((await db.get<{ claimed_by: string }>('SELECT claimed_by FROM attempts WHERE idempotency_key = ?', ['a-live']))?.claimed_by).toBe('instance-a');

    // B starts while A is alive: it takes back only the claim and the batch no one holds.
    expect(await b.attempts.takeOverClaims(['instance-a'], 'interrupted')).toEqual(['before-upgrade']);
    // Its batch names no runner: nothing from before the upgrade does.
    expect(await b.batches.takeOver(['instance-a'])).toEqual([{ id: batch.id, runBy: null }]);
    expect((await b.attempts.byKey('a-live'))?.state).toBe('sending');
    expect((await b.attempts.byKey('before-upgrade'))).toMatchObject({ state: 'unknown', error: 'interrupted' });

    // A falls silent: once it is dead, its claim is taken, once.
    clock.advance(60_000);
    await b.instances.heartbeat('instance-b');
    expect(await b.attempts.takeOverClaims(['instance-b'], 'interrupted')).toEqual(['a-live']);
    expect(await a.attempts.takeOverClaims(['instance-b'], 'interrupted')).toEqual([]);
    await b.instances.forget(['instance-a'], new Date(clock.now().getTime() - 20_000));
    expect((await b.instances.list()).map((i) => i.id)).toEqual(['instance-b']);
    expect(await b.audit.verify()).toMatchObject({ ok: true, count: 1 });
  });
});
