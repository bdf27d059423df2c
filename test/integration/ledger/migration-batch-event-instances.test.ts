// Which instance recorded a batch's event, as an upgrade from the version before, on each engine:
// SQLite's migration 0021 from a version-20 ledger, PostgreSQL's 0009 from a version-8 database.
// Every row is kept; the events from before name no instance (their history reads as before); an
// event recorded after it names the instance and the one that ran the batch before.
import { describe, expect, it } from 'vitest';
import { schemaVersion } from '../../../src/main/ledger/connection';
import { createRepositories } from '../../../src/main/ledger/repositories/index';
import { ledgerAtVersion, ledgerRows, ManualClock, testEngine, upgradedLedger } from '../../helpers/ledger';
import { cleanupsAfterEach } from '../../helpers/cleanups';

const clock = new ManualClock();
const cleanups = cleanupsAfterEach();

const VERSIONS = testEngine === 'sqlite' ? { before: 20, added: 21 } : { before: 8, added: 9 };

describe(`the instances of a batch's events as an upgrade from version ${VERSIONS.before} (${testEngine})`, () => {
  it('keeps every row, leaves the events from before without an instance, and records one after', async () => {
    const old = await ledgerAtVersion(VERSIONS.before, clock.now, cleanups);
    const repos = createRepositories(old.db, clock.now);
    const profile = await repos.profiles.create({ name: 'Local emulator', environment: 'local', baseUrl: 'http://127.0.0.1:9/api/v2', merchantId: 'm-1', merchantSiteId: 's-1' });
    const at = clock.now().toISOString();
    const batch = (await old.db.get<{ id: number }>("INSERT INTO batches (profile_id, environment, file_name, state, declared_rows, created_at, updated_at, started_at) VALUES (?, 'local', 'old.csv', 'running', 1, ?, ?, ?) RETURNING id", [profile.id, at, at, at]))!;
    // Written as the version before wrote it.
    await old.db.run("INSERT INTO batch_events (batch_id, kind, at, actor, cause, stopped_at, pending, in_flight, unknown, note) VALUES (?, 'resumed', ?, 'system', NULL, NULL, 1, 0, 0, NULL)", [batch.id, at]);
    const before = await ledgerRows(old.db);
    await old.db.close();

    const db = await upgradedLedger(old.address, clock.now, cleanups);
    expect(await schemaVersion(db)).toBeGreaterThanOrEqual(VERSIONS.added);
    const added = { batch_events: { instance_id: null, instance_host: null, runner_before_id: null, runner_before_host: null } } as Record<string, Record<string, null>>;
    expect(await ledgerRows(db)).toEqual(Object.fromEntries(Object.entries(before).map(([table, rows]) => [table, rows.map((row) => ({ ...(row as object), ...added[table] }))])));
    const after = createRepositories(db, clock.now);
    expect(await after.batchEvents.latest(Number(batch.id), 10)).toEqual([expect.objectContaining({ kind: 'resumed', instance: null, runnerBefore: null })]);

    await after.batchEvents.append({ batchId: Number(batch.id), kind: 'resumed', at, actor: 'system', cause: null, stoppedAt: null, items: { pending: 1, inFlight: 0, unknown: 0 }, note: null, instance: { id: 'instance-b', host: 'host-b' }, runnerBefore: { id: 'instance-a', host: null } });
    expect((await after.batchEvents.latest(Number(batch.id), 10)).at(-1)).toMatchObject({ instance: { id: 'instance-b', host: 'host-b' }, runnerBefore: { id: 'instance-a', host: null } });
  });
});
