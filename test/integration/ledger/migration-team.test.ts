// The team server's tables as an upgrade from the version before them, on each engine: SQLite's
// migration 0015 from a version-14 ledger, PostgreSQL's 0003 from a version-2 database; and the
// approvals' (SQLite 0016 from 15, PostgreSQL 0004 from 3). Every row the old ledger held is kept,
// the new tables start empty, and what they hold is written and read on the upgraded ledger as on
// a new one.
import { describe, expect, it } from 'vitest';
import { schemaVersion } from '../../../src/main/ledger/connection';
import { LEDGER_TABLES } from '../../../src/main/ledger/copy/copy';
import { createRepositories } from '../../../src/main/ledger/repositories/index';
import { inColumnsOf, ledgerAtVersion, ledgerRows, ManualClock, testEngine, upgradedLedger } from '../../helpers/ledger';
import { approvalMove } from '../../../src/main/services/approvals/approval-states';
import { cleanupsAfterEach } from '../../helpers/cleanups';

const clock = new ManualClock();
const cleanups = cleanupsAfterEach();

const TEAM_TABLES = ['team_users', 'team_sessions', 'team_login_failures', 'server_secrets'];
const VERSIONS = testEngine === 'sqlite' ? { before: 14, added: 15 } : { before: 2, added: 3 };

const APPROVAL_TABLES = ['approval_policies', 'approvals'];
const APPROVAL_VERSIONS = testEngine === 'sqlite' ? { before: 15, added: 16 } : { before: 3, added: 4 };

const ledgerBefore = (before = VERSIONS.before) => ledgerAtVersion(before, clock.now, cleanups);

describe(`the team tables as an upgrade from version ${VERSIONS.before} (${testEngine})`, () => {
  it('keeps every row, adds the team tables empty, and people and sealed credentials work on the upgraded ledger', async () => {
    const old = await ledgerBefore();
    expect(await schemaVersion(old.db)).toBe(VERSIONS.before);
    for (const table of TEAM_TABLES) await expect(old.db.all(`SELECT * FROM ${table}`)).rejects.toThrow(new RegExp(table));
    const repos = createRepositories(old.db, clock.now);
    const profile = await repos.profiles.create({ name: 'Local emulator', environment: 'local', baseUrl: 'http://127.0.0.1:9/api/v2', merchantId: 'm-1', merchantSiteId: 's-1' });
    await repos.audit.append({ actor: 'user', action: 'settings.update', profileId: profile.id, details: { theme: 'dark' } });
    const before = await ledgerRows(old.db);
    await old.db.close();

    const db = await upgradedLedger(old.address, clock.now, cleanups);
    expect(await schemaVersion(db)).toBeGreaterThanOrEqual(VERSIONS.added);
    expect(inColumnsOf(before, await ledgerRows(db))).toEqual(before);
    for (const table of TEAM_TABLES) expect(await db.all(`SELECT * FROM ${table}`), table).toEqual([]);

    const upgraded = createRepositories(db, clock.now);
    const user = await upgraded.team.createUser({ id: 'u-1', username: 'alice', displayName: 'Alice', role: 'admin', passwordHash: 'scrypt$1$1$1$a$b' });
    const session = await upgraded.team.createSession({ id: 's-1', tokenHash: 'h-1', userId: user.id, client: 'browser', expiresAt: '2099-01-01T00:00:00.000Z' });
    expect(await upgraded.team.sessionByTokenHash('h-1')).toEqual(session);
    await expect(upgraded.team.createUser({ id: 'u-2', username: 'alice', displayName: 'Another', role: 'support', passwordHash: 'x' })).rejects.toThrow();
    await upgraded.serverSecrets.put('merchant-token:p', 'v1.k.iv.ct.tag', 'k');
    expect(await upgraded.serverSecrets.get('merchant-token:p')).toEqual({ sealed: 'v1.k.iv.ct.tag', keyId: 'k' });
    expect(await upgraded.audit.verify()).toMatchObject({ ok: true, count: 1 });
  });
});

describe(`the approval tables as an upgrade from version ${APPROVAL_VERSIONS.before} (${testEngine})`, () => {
  it('keeps every row and the people, adds the approval tables empty, and policies and approvals work on the upgraded ledger', async () => {
    const old = await ledgerBefore(APPROVAL_VERSIONS.before);
    expect(await schemaVersion(old.db)).toBe(APPROVAL_VERSIONS.before);
    for (const table of APPROVAL_TABLES) await expect(old.db.all(`SELECT * FROM ${table}`)).rejects.toThrow(new RegExp(table));
    const repos = createRepositories(old.db, clock.now);
    const profile = await repos.profiles.create({ name: 'Live', environment: 'live', baseUrl: 'https://live.example.com/api/v2', merchantId: 'm-1', merchantSiteId: 's-1' });
    await repos.team.createUser({ id: 'u-1', username: 'fin', displayName: 'Fin', role: 'finance', passwordHash: 'scrypt$1$1$1$a$b' });
    await repos.audit.append({ actor: 'user', action: 'settings.update', profileId: profile.id, details: { theme: 'dark' } });
    const kept = [...LEDGER_TABLES, { table: 'team_users', key: 'id' }];
    const before = await ledgerRows(old.db, kept);
    await old.db.close();

    const db = await upgradedLedger(old.address, clock.now, cleanups);
    expect(await schemaVersion(db)).toBeGreaterThanOrEqual(APPROVAL_VERSIONS.added);
    expect(inColumnsOf(before, await ledgerRows(db, kept))).toEqual(before);
    for (const table of APPROVAL_TABLES) expect(await db.all(`SELECT * FROM ${table}`), table).toEqual([]);

    const upgraded = createRepositories(db, clock.now);
    await upgraded.approvalPolicies.upsert({ environment: 'live', currency: 'EUR', mode: 'threshold', payoutAbove: '1000', batchAbove: null });
    await upgraded.approvalPolicies.upsert({ environment: 'any', currency: 'EUR', mode: 'always', payoutAbove: null, batchAbove: null });
    expect(await upgraded.approvalPolicies.ruleFor('live', 'EUR')).toMatchObject({ environment: 'live', payoutAbove: '1000' });
    expect(await upgraded.approvalPolicies.ruleFor('local', 'EUR')).toMatchObject({ environment: 'any', mode: 'always' });
    const approval = await upgraded.approvals.insert({ kind: 'payout', profileId: profile.id, environment: 'live', subject: 'ref-1', currency: 'EUR', amount: '1500.00', itemCount: 1, body: '{}', bodyHash: 'h', reviewed: '{}', policy: 'p', makerId: 'u-1', makerName: 'Fin', expiresAt: '2099-01-01T00:00:00.000Z' });
    expect(await upgraded.approvals.decide(approval.id, approvalMove('awaiting', 'approved'), { reason: null, decidedById: 'u-2', decidedByName: 'App' })).toBe(true);
    // A decision is taken once.
    expect(await upgraded.approvals.decide(approval.id, approvalMove('awaiting', 'rejected'), { reason: 'late', decidedById: 'u-3', decidedByName: 'Other' })).toBe(false);
    expect(await upgraded.approvals.byId(approval.id)).toMatchObject({ state: 'approved', decidedByName: 'App' });
    await expect(db.run("INSERT INTO approvals (kind, profile_id, environment, subject, currency, amount, item_count, body, body_hash, reviewed, policy, maker_id, maker_name, state, created_at, expires_at) VALUES ('payout', 'p', 'live', 's', 'EUR', '1', 1, '{}', 'h', '{}', 'p', 'u', 'U', 'sent', 't', 't')")).rejects.toThrow();
    expect(await upgraded.audit.verify()).toMatchObject({ ok: true, count: 1 });
  });
});
