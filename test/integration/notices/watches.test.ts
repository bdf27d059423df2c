// The time-based watches on a manual clock: an approval still awaiting after its
// reminder time is told again to its approvers (never its maker); before it expires undecided,
// to admins; a live profile with pay-ins waiting and no notification for silenceMinutes is told
// to admins and finance, once per silent spell, and at once when its pay-ins were sent with a
// notification link the gateway cannot reach. Each once: not before its time, not on the next
// round, not by a watcher started again, and on PostgreSQL not by a second instance watching at
// the same time or taking the leadership over. Real ledger (SQLite, or PostgreSQL with its config).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openLedger } from '../../../src/main/ledger/connection';
import { openCluster } from '../../../src/main/ledger/cluster';
import type { Ledger } from '../../../src/main/ledger/connection';
import { createRepositories, type Repositories } from '../../../src/main/ledger/repositories/index';
import type { Profile } from '../../../src/main/ledger/repositories/profiles';
import { EventBus } from '../../../src/main/services/event-bus';
import { LedgerNotices, Notices } from '../../../src/main/services/notices/notices';
import { Watches } from '../../../src/main/services/notices/watches';
import { applyStatus } from '../../../src/main/services/payments/apply';
import { DEFAULT_NOTICE_THRESHOLDS } from '../../../src/shared/contract';
import { silentLogger } from '../../helpers/app-core';
import { freshLedger, ManualClock, testEngine, type TestLedger } from '../../helpers/ledger';
import { waitFor } from '../../helpers/poll';

const MINUTE = 60_000;
const PEOPLE = [
  ['ada', 'admin'],
  ['fin', 'finance'],
  ['app', 'approver'],
  ['ines', 'approver'],
  ['sue', 'support'],
] as const;

interface Instance {
  repos: Repositories;
  notices: Notices;
  watches: Watches;
}

let clock: ManualClock;
let db: Ledger;
let address: TestLedger['address'];
let main: Instance;
let live: Profile;
let sandbox: Profile;
const cleanups: (() => Promise<void> | void)[] = [];
let seq = 0;

function instanceOn(ledger: Ledger): Instance {
  const told = new LedgerNotices();
  const repos = createRepositories(ledger, clock.now, { events: told });
  const notices = new Notices({ repos, team: true, person: () => undefined, screens: new EventBus(), log: silentLogger });
  told.connect(notices);
  const watches = new Watches({ repos, notices, now: clock.now, log: silentLogger, everyMs: 50 });
  cleanups.push(() => watches.close());
  return { repos, notices, watches };
}

beforeEach(async () => {
  clock = new ManualClock();
  const fresh = await freshLedger({ now: clock.now });
  ({ db, address } = fresh);
  cleanups.push(fresh.remove);
  main = instanceOn(db);
  for (const [id, role] of PEOPLE) await main.repos.team.createUser({ id, username: id, displayName: id.toUpperCase(), role, passwordHash: 'x' });
  const profile = (name: string, environment: 'live' | 'sandbox') => main.repos.profiles.create({ name, environment, baseUrl: 'https://pay.example.com/api/v2', merchantId: 'm', merchantSiteId: 's' });
  live = await profile('Shop live', 'live');
  sandbox = await profile('Shop sandbox', 'sandbox');
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Who was told this kind, about what (one row per person), in the order written. */
async function told(kind: string): Promise<{ recipient: string; subject: string; title: string; body: string; link: string }[]> {
  return db.all(`SELECT recipient, subject, title, body, link FROM notices WHERE kind = ? ORDER BY id`, [kind]);
}
const recipients = async (kind: string) => (await told(kind)).map((n) => n.recipient).sort();

async function awaitingApproval(maker: string, expiresInMinutes: number) {
  return main.repos.approvals.insert({
    kind: 'payout', profileId: live.id, environment: 'live', subject: `po-${++seq}`, currency: 'EUR', amount: '1500.00', itemCount: 1, body: '{}', bodyHash: 'h', reviewed: '{}', policy: '{}',
    makerId: maker, makerName: maker.toUpperCase(), expiresAt: new Date(clock.now().getTime() + expiresInMinutes * MINUTE).toISOString(),
  });
}

async function waitingPayin(profile: Profile, notifyUnreachable: string | null = null) {
  const row = await main.repos.payins.recordRequest({ profileId: profile.id, kind: 'payin', requestId: `r-${++seq}`, method: 'open_banking', amount: '25.00', currency: 'EUR', email: 'a@example.com', notifyUnreachable });
  await db.run('UPDATE payins SET payin_id = ? WHERE id = ?', [`PI.${seq}`, row.id]);
  return row;
}

async function notificationArrives(profile: Profile) {
  await main.repos.notifications.insert({
    profileId: profile.id, receivedAt: clock.now().toISOString(), sourceAddress: '127.0.0.1', rawHeaders: [], body: Buffer.from('{}'), bodySize: 2, bodyTruncated: false,
    answerStatus: 200, event: null, transactionRef: null, requestRef: null, statusCode: null, dedupeKey: null, outcome: 'malformed', detail: 'test',
  });
}

async function after(minutes: number, watches: Watches = main.watches) {
  clock.advance(minutes * MINUTE);
  await watches.runRound();
}

describe('the approval watches', () => {
  it('reminds its approvers, not its maker, once, when it has waited the reminder time', async () => {
    const approval = await awaitingApproval('app', 24 * 60);
    const decided = await awaitingApproval('ines', 24 * 60);
    await main.repos.approvals.decide(decided.id, { from: ['awaiting'], to: 'approved' }, { reason: null, decidedById: 'app', decidedByName: 'APP' });
    await after(DEFAULT_NOTICE_THRESHOLDS.approvalReminderMinutes - 1);
    expect(await told('approval.reminder')).toEqual([]);
    await after(1);
    expect(await told('approval.reminder')).toEqual([
      expect.objectContaining({ recipient: 'ines', subject: `approval:${approval.id}`, link: `#/approvals/${approval.id}`, title: `Still waiting for approval: Payout ${approval.subject} of 1500.00 EUR`, body: expect.stringContaining("APP's request has waited 60 minutes") }),
    ]);
    await after(1);
    await after(DEFAULT_NOTICE_THRESHOLDS.approvalReminderMinutes);
    // A watcher started again (a restart) tells nothing again either.
    await instanceOn(db).watches.runRound();
    expect(await recipients('approval.reminder')).toEqual(['ines']);
  });

  it('escalates to admins, once, the set time before an undecided approval expires, and nothing once it expired', async () => {
    await main.notices.setThresholds({ ...DEFAULT_NOTICE_THRESHOLDS, approvalReminderMinutes: 7 * 24 * 60, approvalEscalationMinutes: 30 });
    const approval = await awaitingApproval('fin', 120);
    await after(89);
    expect(await told('approval.escalated')).toEqual([]);
    await after(1);
    expect(await told('approval.escalated')).toEqual([
      expect.objectContaining({ recipient: 'ada', subject: `approval:${approval.id}`, link: `#/approvals/${approval.id}`, title: `Expiring undecided: Payout ${approval.subject} of 1500.00 EUR`, body: expect.stringContaining(`expires at ${approval.expiresAt} (in 30 minutes or less)`) }),
    ]);
    await after(10);
    const late = await awaitingApproval('fin', 20);
    await after(1);
    expect(await recipients('approval.escalated')).toEqual(['ada', 'ada']);
    expect((await told('approval.escalated')).map((n) => n.subject)).toEqual([`approval:${approval.id}`, `approval:${late.id}`]);
    // Expired undecided: no reminder, no escalation of it ever after.
    const expired = await awaitingApproval('fin', 5);
    clock.advance(6 * MINUTE);
    await after(DEFAULT_NOTICE_THRESHOLDS.approvalReminderMinutes);
    expect((await told('approval.escalated')).filter((n) => n.subject === `approval:${expired.id}`)).toEqual([]);
    expect(await told('approval.reminder')).toEqual([]);
  });
});

describe('the silence watch', () => {
  it('tells admins and finance once per silent spell of a live profile whose pay-ins wait', async () => {
    await waitingPayin(live);
    await waitingPayin(sandbox);
    const silence = DEFAULT_NOTICE_THRESHOLDS.silenceMinutes;
    await after(silence - 1);
    expect(await told('profile.silent')).toEqual([]);
    await after(1);
    expect(await recipients('profile.silent')).toEqual(['ada', 'fin']);
    expect((await told('profile.silent'))[0]).toEqual(
      expect.objectContaining({ subject: `profile:${live.id}`, title: 'No notifications for Shop live', link: `#/settings?edit=${live.id}`, body: expect.stringContaining('1 pay-in waiting and has heard nothing from the gateway for over 30 minutes') }),
    );
    await after(silence * 3);
    expect(await told('profile.silent')).toHaveLength(2);

    // A notification ends the spell; a silence after it is a new one, told again after its time.
    await notificationArrives(live);
    await after(silence - 1);
    expect(await told('profile.silent')).toHaveLength(2);
    await after(1);
    expect(await told('profile.silent')).toHaveLength(4);
    expect((await told('profile.silent'))[3]?.body).toContain('last notification at');
    await after(silence * 2);
    expect(await told('profile.silent')).toHaveLength(4);
  });

  it('tells nothing of a live profile without pay-ins waiting, however long it is silent', async () => {
    const row = await waitingPayin(live);
    await applyStatus(main.repos.payins, row.id, { statusCode: '200', source: 'status_read' });
    await after(DEFAULT_NOTICE_THRESHOLDS.silenceMinutes * 4);
    expect(await told('profile.silent')).toEqual([]);
  });

  it('tells at once when the waiting pay-ins were sent with a notification link the gateway cannot reach, without its path', async () => {
    await waitingPayin(live, 'http://127.0.0.1:4711/n/unguessable-path-123');
    await after(1);
    const [notice] = await told('profile.silent');
    expect(notice).toEqual(expect.objectContaining({ title: 'Notifications cannot reach Shop live', body: expect.stringContaining('http://127.0.0.1:4711, which only this machine answers') }));
    expect(JSON.stringify(await told('profile.silent'))).not.toContain('unguessable-path-123');
    await after(DEFAULT_NOTICE_THRESHOLDS.silenceMinutes * 2);
    expect(await recipients('profile.silent')).toEqual(['ada', 'fin']);
  });
});

describe.runIf(testEngine === 'postgres')('two instances on one PostgreSQL ledger', () => {
  it('tell each watch once, watching at the same time or after one took the leadership over from the other', async () => {
    const other = await openLedger(address, { now: clock.now });
    cleanups.push(() => other.close());
    const second = instanceOn(other);
    await awaitingApproval('app', 90);
    await waitingPayin(live);
    clock.advance(DEFAULT_NOTICE_THRESHOLDS.approvalReminderMinutes * MINUTE);
    // Both at once (as when the leadership changes hands mid-round): the lock makes the second see the first's.
    await Promise.all([main.watches.runRound(), second.watches.runRound(), main.watches.runRound(), second.watches.runRound()]);
    expect(await recipients('approval.reminder')).toEqual(['ines']);
    expect(await recipients('approval.escalated')).toEqual(['ada']);
    expect(await recipients('profile.silent')).toEqual(['ada', 'fin']);

    // The leader goes away; the other takes over and runs its round: nothing is told again.
    const clusters = [openCluster(db, { log: silentLogger, retryMs: 50 }), openCluster(other, { log: silentLogger, retryMs: 50 })];
    cleanups.push(() => clusters[1]!.close());
    await clusters[0]!.lead('watches', { lead: () => main.watches.lead(), lost: () => main.watches.lost() });
    await clusters[1]!.lead('watches', { lead: () => second.watches.lead(), lost: () => second.watches.lost() });
    expect([clusters[0]!.leads('watches'), clusters[1]!.leads('watches')]).toEqual([true, false]);
    await clusters[0]!.close();
    await main.watches.close();
    await waitFor(async () => clusters[1]!.leads('watches'), (leads) => leads, 'the second instance to lead the watches', 10_000);
    clock.advance(10 * MINUTE);
    await second.watches.runRound();
    expect(await recipients('approval.reminder')).toEqual(['ines']);
    expect(await recipients('approval.escalated')).toEqual(['ada']);
    expect(await recipients('profile.silent')).toEqual(['ada', 'fin']);
  });
});
