// The ledger_copies table (`npm run ledger:copy`) as an upgrade from the version before it, on each
// engine: SQLite's migration 0014 from a version-13 ledger, PostgreSQL's 0002 from a version-1
// database. Every row the old ledger held is kept, the new table starts empty, and the upgraded
// ledger copies and is copied into as a new one does: a copy goes into an empty upgraded ledger
// and is recorded there, and one holding other data is refused untouched.
import { describe, expect, it } from 'vitest';
import { openLedger, schemaVersion, type Ledger, type LedgerAddress } from '../../../src/main/ledger/connection';
import { copyLedger } from '../../../src/main/ledger/copy/copy';
import { migrations, postgresMigrations } from '../../../src/main/ledger/migrations/index';
import { createRepositories } from '../../../src/main/ledger/repositories/index';
import { inColumnsOf, ledgerAtVersion, ledgerRows, ManualClock, testEngine } from '../../helpers/ledger';
import { cleanupsAfterEach } from '../../helpers/cleanups';

const clock = new ManualClock();
const cleanups = cleanupsAfterEach();

/** This run's engine: the version before ledger_copies, and the version that adds it. */
const VERSIONS = testEngine === 'sqlite' ? { before: 13, added: migrations.at(-1)?.version } : { before: 1, added: postgresMigrations.at(-1)?.version };

/** An empty ledger at the version before ledger_copies, on this run's engine (the caller closes it), and its address. */
const ledgerBefore = () => ledgerAtVersion(VERSIONS.before, clock.now, cleanups);

/** Opens the ledger with every migration of this Paydesk: the upgrade. */
async function upgraded(address: LedgerAddress): Promise<Ledger> {
  const db = await openLedger(address, { now: clock.now });
  cleanups.push(() => db.close());
  return db;
}

describe(`ledger_copies as an upgrade from version ${VERSIONS.before} (${testEngine})`, () => {
  it('keeps every row, starts empty, and the upgraded ledgers copy as new ones do', async () => {
    const desk = await ledgerBefore();
    expect(await schemaVersion(desk.db)).toBe(VERSIONS.before);
    await expect(desk.db.all('SELECT * FROM ledger_copies')).rejects.toThrow(/ledger_copies/);
    // What an older ledger holds, written by the repositories (no column of theirs is newer than it).
    const repos = createRepositories(desk.db, clock.now);
    const profile = await repos.profiles.create({ name: 'Local emulator', environment: 'local', baseUrl: 'http://127.0.0.1:9/api/v2', merchantId: 'm-1', merchantSiteId: 's-1' });
    await repos.settings.put(new Map([['theme', '"dark"']]));
    await repos.attempts.prepare({ profileId: profile.id, kind: 'payin', idempotencyKey: 'key-1', reference: 'r-1', body: { request_id: 'r-1', amount: '10.50' } });
    for (const theme of ['dark', 'light']) await repos.audit.append({ actor: 'user', action: 'settings.update', profileId: profile.id, details: { theme } });
    const before = await ledgerRows(desk.db);
    await desk.db.close();
    const empty = await ledgerBefore();
    await empty.db.close();

    const source = await upgraded(desk.address);
    expect(await schemaVersion(source)).toBe(VERSIONS.added);
    expect(inColumnsOf(before, await ledgerRows(source))).toEqual(before);
    expect(await source.all('SELECT * FROM ledger_copies')).toEqual([]);

    // A copy into the upgraded empty ledger is recorded there, verified, and holds every row.
    const target = await upgraded(empty.address);
    const report = await copyLedger(source, target, { now: clock.now });
    expect(report.resumed).toBe(false);
    expect(await target.all('SELECT source_location, started_at, verified_at FROM ledger_copies')).toEqual([
      { source_location: source.location, started_at: clock.now().toISOString(), verified_at: clock.now().toISOString() },
    ]);
    expect(inColumnsOf(before, await ledgerRows(target))).toEqual(before);
    // One record per source: the table's key.
    await expect(target.run('INSERT INTO ledger_copies (source, source_location, started_at) SELECT source, source_location, started_at FROM ledger_copies')).rejects.toThrow(/UNIQUE|duplicate key/);

    // The upgraded desk holds data that is no copy: a copy into it is refused, and it is left as it was.
    await expect(copyLedger(target, source, { now: clock.now })).rejects.toThrow(/already holds data/);
    expect(inColumnsOf(before, await ledgerRows(source))).toEqual(before);
    expect(await source.all('SELECT * FROM ledger_copies')).toEqual([]);
  });
});
