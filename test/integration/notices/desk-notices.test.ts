// What a desk's one person is told of a live payout, written in the transaction that
// records its cause. A live payout declined (its C-code and reason) or whose outcome became unknown
// (a failed send, an interrupted one taken over) is told once; a live batch that finished with
// refusals or unknown outcomes is told with its counts (one that paid everything is not); a sandbox payout is not news; a
// cause rolled back leaves no notice. Real ledger (SQLite, or PostgreSQL with the postgres config).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_NOTICE_THRESHOLDS } from '../../../src/shared/contract';
import type { Repositories } from '../../../src/main/ledger/repositories/index';
import type { Profile } from '../../../src/main/ledger/repositories/profiles';
import { EventBus } from '../../../src/main/services/event-bus';
import { Notices } from '../../../src/main/services/notices/notices';
import { applyStatus } from '../../../src/main/services/payments/apply';
import { BatchHistory } from '../../../src/main/services/payouts-batch/batch-history';
import { silentLogger } from '../../helpers/app-core';
import { deskNotices } from '../../helpers/desk-notices';

let repos: Repositories;
let notices: Notices;
let live: Profile;
let sandbox: Profile;
let remove: () => Promise<void>;
let seq = 0;

beforeEach(async () => {
  let ledger;
  ({ ledger, repos, notices, live, sandbox } = await deskNotices());
  remove = ledger.remove;
});

afterEach(async () => {
  await remove();
});

async function payout(profile: Profile) {
  const reference = `po-${++seq}`;
  const attempt = await repos.attempts.record({ profileId: profile.id, kind: 'payout', idempotencyKey: `key-${seq}`, reference, requestHash: 'h', requestBody: '{}', replayable: false, state: 'sending' });
  const row = await repos.payouts.recordRequest({ profileId: profile.id, merchantReference: reference, method: 'open_banking', amount: '250.00', currency: 'EUR', email: 'a@example.com', attemptId: attempt.id });
  return { attempt, row };
}

const inbox = () => notices.list({});

describe("a desk's notices of live payouts", () => {
  it('tells a live payout declined once, with its C-code and reason, linking to it', async () => {
    const { row } = await payout(live);
    await applyStatus(repos.payouts, row.id, { statusCode: 'P100', source: 'create' });
    expect((await inbox()).items).toEqual([]);
    await applyStatus(repos.payouts, row.id, { statusCode: 'C501', reasonCode: 'GENERIC_DECLINE', source: 'notification' });
    await applyStatus(repos.payouts, row.id, { statusCode: 'C501', reasonCode: 'GENERIC_DECLINE', source: 'status_read' });
    const { items, unread } = await inbox();
    expect(unread).toBe(1);
    expect(items).toEqual([
      expect.objectContaining({ kind: 'payout.declined', title: `Payout ${row.merchantReference} declined: C501`, link: `#/payouts/${row.id}`, read: false, body: expect.stringContaining('GENERIC_DECLINE') }),
    ]);
  });

  it('tells nothing of a sandbox payout, and nothing of a decline whose transaction rolled back', async () => {
    const { row: test } = await payout(sandbox);
    await applyStatus(repos.payouts, test.id, { statusCode: 'C405', source: 'create' });
    const { row } = await payout(live);
    await expect(
      repos.transaction(async () => {
        await applyStatus(repos.payouts, row.id, { statusCode: 'C501', source: 'create' });
        throw new Error('the rest of the transaction failed');
      }),
    ).rejects.toThrow('the rest of the transaction failed');
    expect((await repos.payouts.byId(row.id))?.statusCode).toBeNull();
    expect((await inbox()).items).toEqual([]);
  });

  it("tells a live payout whose outcome became unknown (card numbers in the reason masked), and an interrupted one taken over", async () => {
    const { attempt, row } = await payout(live);
    await repos.attempts.markUnknown(attempt.idempotencyKey, { error: 'timeout after 30 s sending card 4111111111111111' });
    const second = await payout(live);
    expect(await repos.attempts.takeOverClaims(['some-live-instance'], 'interrupted: the app stopped')).toEqual([second.attempt.idempotencyKey]);
    const { items } = await inbox();
    expect(items.map((n) => [n.kind, n.link])).toEqual([
      ['payout.unknown', `#/payouts/${second.row.id}`],
      ['payout.unknown', `#/payouts/${row.id}`],
    ]);
    expect(items[1]!.body).toContain('411111******1111');
    expect(items[1]!.body).not.toContain('4111111111111111');
    expect(await notices.markRead({ all: true })).toEqual({ unread: 0 });
  });

  it('tells a live batch that finished with refusals or unknown outcomes, with its end; not one that paid all', async () => {
    const counts = { pending: 0, sending: 0, sent: 7, refused: 2, unknown: 1, cancelled: 0 };
    const history = new BatchHistory(repos.batchEvents, () => new Date(), async () => counts, null, (id, c) => notices.batchFinished(id, c));
    const mixed = await repos.batches.createDraft({ profileId: live.id, environment: 'live', fileName: 'june.csv', declaredRows: 10 });
    const clean = await repos.batches.createDraft({ profileId: live.id, environment: 'live', fileName: 'july.csv', declaredRows: 7 });
    const test = await repos.batches.createDraft({ profileId: sandbox.id, environment: 'sandbox', fileName: 'test.csv', declaredRows: 10 });
    await repos.transaction(() => history.record(mixed.id, 'finished', 'system'));
    await repos.transaction(() => history.record(test.id, 'finished', 'system'));
    const paidAll = new BatchHistory(repos.batchEvents, () => new Date(), async () => ({ ...counts, sent: 10, refused: 0, unknown: 0 }), null, (id, c) => notices.batchFinished(id, c));
    await repos.transaction(() => paidAll.record(clean.id, 'finished', 'system'));
    expect((await inbox()).items).toEqual([
      expect.objectContaining({ kind: 'batch.finished', title: `Batch ${mixed.id} finished: 2 refused, 1 unknown`, link: `#/payouts?tab=batch&batch=${mixed.id}`, body: expect.stringContaining('june.csv on Shop live: 7 sent') }),
    ]);
  });
});

describe("the watches' thresholds", () => {
  it('are the documented defaults until an admin sets them, then kept in the ledger with an audit entry', async () => {
    expect(await notices.thresholds()).toEqual(DEFAULT_NOTICE_THRESHOLDS);
    const changed = { ...DEFAULT_NOTICE_THRESHOLDS, silenceMinutes: 5, declineRatePercent: 35 };
    expect(await notices.setThresholds(changed)).toEqual(changed);
    const again = new Notices({ repos, team: false, person: () => undefined, screens: new EventBus(), log: silentLogger });
    expect(await again.thresholds()).toEqual(changed);
    const [entry] = await repos.audit.list({ limit: 1 });
    expect(entry?.action).toBe('notices.thresholds-set');
    expect(JSON.parse(String(entry?.details))).toEqual({ from: DEFAULT_NOTICE_THRESHOLDS, to: changed });
  });
});
