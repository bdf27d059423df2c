// A stored notification whose event is not one of the spec's (written by a later Paydesk, or by
// hand) is nobody's: it is never applied, counted or shown as a pay-in's, which is what the old
// `event === 'v2_payout_notification' ? 'payout' : 'payin'` branches made of it. Real ledger.
import { afterEach, describe, expect, it } from 'vitest';
import type { NewNotification } from '../../../src/main/ledger/repositories/notifications';
import { LedgerViews } from '../../../src/main/services/ledger-views/ledger-views';
import { notificationSummary } from '../../../src/main/services/ledger-views/notification-inspector';
import { NotificationApplier } from '../../../src/main/services/notification-applier';
import { testLedger, type TestLedger } from '../../helpers/ledger';
import { applyCreateAnswer } from '../../../src/main/services/payments/apply';

let ledger: TestLedger;
afterEach(async () => {
  await ledger?.close();
});

const UNKNOWN = 'v3_refund_notification';

function stored(l: TestLedger, event: string, over: Partial<NewNotification> = {}): NewNotification {
  const body = Buffer.from(JSON.stringify({ event, payin_id: 'p-1', request_id: 'r-1', status_code: 200 }));
  return {
    profileId: l.profile.id,
    receivedAt: l.clock.now().toISOString(),
    sourceAddress: '127.0.0.1:50000',
    rawHeaders: ['Content-Type', 'application/json'],
    body,
    bodySize: body.length,
    bodyTruncated: false,
    answerStatus: 200,
    event,
    transactionRef: 'p-1',
    requestRef: 'r-1',
    statusCode: '200',
    dedupeKey: `v2_payin_notification|p-1|200`,
    outcome: 'pending',
    detail: null,
    ...over,
  };
}

async function withPayin(l: TestLedger) {
  const { payins } = l.repos;
  const row = await payins.recordRequest({ profileId: l.profile.id, kind: 'payin', requestId: 'r-1', method: 'blik', amount: '10.00', currency: 'PLN', email: 'a@b.c' });
  return (await applyCreateAnswer(payins, row.id, { gatewayId: 'p-1', statusCode: 100 })).record;
}

describe('a notification of an unknown event', () => {
  it('is malformed, about no transaction, even when its dedupe key is a pay-in notification’s', async () => {
    ledger = await testLedger();
    const row = await withPayin(ledger);
    const applier = new NotificationApplier({ repos: ledger.repos });
    const [payinNews, unknown] = (await ledger.repos.notifications.insertMany([stored(ledger, 'v2_payin_notification'), stored(ledger, UNKNOWN)])) as [number, number];
    const results = await applier.applyMany([payinNews, unknown]);
    expect(results.find((r) => r.id === payinNews)).toMatchObject({ outcome: 'applied', subject: 'payin', rowId: row.id });
    expect(results.find((r) => r.id === unknown)).toMatchObject({ outcome: 'malformed', subject: null, rowId: null, detail: `unknown event ${UNKNOWN}` });
    expect((await ledger.repos.notifications.forPayin(row.id)).map((n) => n.id)).toEqual([payinNews]);
  });

  it('kept as an orphan, is not taken for the pay-in its references name', async () => {
    ledger = await testLedger();
    const id = await ledger.repos.notifications.insert(stored(ledger, UNKNOWN, { dedupeKey: null }));
    await ledger.repos.notifications.markOutcome(id, 'orphan');
    const row = await withPayin(ledger);
    const applier = new NotificationApplier({ repos: ledger.repos });
    expect(await applier.retryOrphans()).toEqual([]);
    expect(await applier.matchOrphans('payin', row.id)).toEqual([]);
    expect((await ledger.repos.notifications.byId(id))?.outcome).toBe('orphan');
    // Global search does not offer it as a pay-in's orphan either.
    expect(await new LedgerViews(ledger.repos, ledger.clock.now).lookupOrphans('p-1')).toEqual([]);
  });

  it('is shown with its status unknown and counted for no code of the explorer', async () => {
    ledger = await testLedger();
    const applier = new NotificationApplier({ repos: ledger.repos });
    const [unknown] = (await ledger.repos.notifications.insertMany([stored(ledger, UNKNOWN, { statusCode: '302', dedupeKey: `${UNKNOWN}|p-1|302` })])) as [number];
    await applier.applyMany([unknown]);
    // As if a later version had applied it: the inspector and the code explorer still read it as nobody's.
    await ledger.db.run("UPDATE notifications SET outcome = 'orphan' WHERE id = ?", [unknown]);
    const summary = await ledger.repos.notifications.summaryById(unknown);
    expect(summary && notificationSummary(summary)).toMatchObject({ event: UNKNOWN, statusCode: '302', statusKnown: false });
    const usage = await new LedgerViews(ledger.repos, ledger.clock.now).codesUsage();
    expect(usage.codes.find((c) => c.kind === 'payin_status' && c.code === '302')?.notifications).toBe(0);
    expect(usage.unknown).toEqual([]);
  });
});
