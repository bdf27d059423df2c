// The event-driven notices' tables as an upgrade from the version before, on each engine: SQLite's
// 0025 and PostgreSQL's 0013 (the same expectations for both). Every row stays; the addresses of the
// sign-ins already in the audit log are taken over per person (so the upgrade tells nothing new of
// them); no decline rate is told high yet; the decline rate's index is there.
import { describe, expect, it } from 'vitest';
import { schemaVersion } from '../../../src/main/ledger/connection';
import { createRepositories } from '../../../src/main/ledger/repositories/index';
import { inColumnsOf, ledgerAtVersion, ledgerRows, ManualClock, testEngine, upgradedLedger, upgradeVersions } from '../../helpers/ledger';
import { cleanupsAfterEach } from '../../helpers/cleanups';

const clock = new ManualClock();
const cleanups = cleanupsAfterEach();

const { added: ADDED, before: BEFORE } = upgradeVersions({ sqlite: 25, postgres: 13 });

describe(`the notice watches as an upgrade from version ${BEFORE} (${testEngine})`, () => {
  it('keeps every row, takes over the sign-in addresses of the audit log, and adds the decline rates and their index', async () => {
    const old = await ledgerAtVersion(BEFORE, clock.now, cleanups);
    const repos = createRepositories(old.db, clock.now);
    const sue = await repos.team.createUser({ id: 'u-sue', username: 'sue', displayName: 'Sue', role: 'support', passwordHash: 'x' });
    for (const address of ['10.0.0.1', '10.0.0.2', '10.0.0.1']) await repos.audit.append({ actor: 'sue', action: 'team.sign-in', subject: 'sue', details: { client: 'desktop', address, session: 's' } });
    await repos.audit.append({ actor: 'user', action: 'settings.update', details: { theme: 'dark' } });
    const before = await ledgerRows(old.db);
    await old.db.close();

    const db = await upgradedLedger(old.address, clock.now, cleanups);
    expect(await schemaVersion(db)).toBeGreaterThanOrEqual(ADDED);
    expect(inColumnsOf(before, await ledgerRows(db))).toEqual(before);
    expect(await db.all('SELECT user_id, address FROM team_sign_in_addresses ORDER BY address')).toEqual([
      { user_id: sue.id, address: '10.0.0.1' },
      { user_id: sue.id, address: '10.0.0.2' },
    ]);
    expect(await db.all('SELECT * FROM decline_rate_alerts')).toEqual([]);
    const indexes = db.engine === 'sqlite'
      ? await db.all<{ name: string }>("SELECT name FROM sqlite_schema WHERE type = 'index' AND name LIKE '%final_by_method'")
      : await db.all<{ name: string }>("SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() AND indexname LIKE '%final_by_method'");
    expect(indexes.map((i) => i.name).sort()).toEqual(['payins_final_by_method', 'payouts_final_by_method']);

    // A sign-in from a known address is not new; one from another is.
    const upgraded = createRepositories(db, clock.now);
    expect(await upgraded.noticeWatches.recordSignIn(sue.id, '10.0.0.2')).toEqual({ first: false, before: 0 });
    expect(await upgraded.noticeWatches.recordSignIn(sue.id, '10.0.0.3')).toEqual({ first: true, before: 2 });
  });
});
