// A CSV export reads a whole exception list through its keyset pages, up to the cap: the export
// once stopped after its first page of 1,000 rows and called that complete.
import { afterEach, describe, expect, it } from 'vitest';
import type { NewNotification } from '../../../src/main/ledger/repositories/notifications';
import { ExceptionLists } from '../../../src/main/services/reconciliation/exceptions';
import { testLedger, type TestLedger } from '../../helpers/ledger';

let ledger: TestLedger;
afterEach(() => ledger?.close());

/** `n` orphan notifications, each about another pay-in the ledger does not know. */
async function orphans(l: TestLedger, n: number): Promise<number[]> {
  const stored = await l.repos.notifications.insertMany(
    Array.from({ length: n }, (_, i): NewNotification => {
      const body = Buffer.from(JSON.stringify({ event: 'v2_payin_notification', payin_id: `p-${i}`, status_code: 200, amount: '1.50', currency: 'EUR' }));
      return {
        profileId: l.profile.id,
        receivedAt: l.clock.now().toISOString(),
        sourceAddress: '127.0.0.1:50000',
        rawHeaders: [],
        body,
        bodySize: body.length,
        bodyTruncated: false,
        answerStatus: 200,
        event: 'v2_payin_notification',
        transactionRef: `p-${i}`,
        requestRef: null,
        statusCode: '200',
        dedupeKey: `v2_payin_notification|p-${i}|200`,
        outcome: 'pending',
        detail: null,
      };
    }),
  );
  await l.repos.transaction(async () => {
    for (const id of stored) await l.repos.notifications.markOutcome(id, 'orphan');
  });
  return stored;
}

describe('exporting an exception list', () => {
  it('reads every row past the first thousand, newest first, and says when the cap cut it', async () => {
    ledger = await testLedger();
    const ids = await orphans(ledger, 2_345);
    const lists = new ExceptionLists(ledger.repos.exceptions, ledger.clock.now);

    const all = await lists.all({ kind: 'orphans' }, 200_000);
    expect(all.truncated).toBe(false);
    expect(all.items.map((r) => r.notificationId)).toEqual([...ids].reverse());
    expect(all.items[0]).toMatchObject({ kind: 'orphans', subject: 'payin', amount: '1.50', currency: 'EUR' });

    expect(await lists.all({ kind: 'orphans' }, 2_345)).toMatchObject({ truncated: false, items: expect.any(Array) });
    const capped = await lists.all({ kind: 'orphans' }, 2_344);
    expect(capped.truncated).toBe(true);
    expect(capped.items).toHaveLength(2_344);

    // The same rows as paging through the list on screen, which counts them on its first page.
    const paged: (number | null)[] = [];
    let cursor: string | null = null;
    do {
      const page = await lists.page({ kind: 'orphans', cursor, limit: 500 });
      if (cursor === null) expect(page.total).toBe(2_345);
      paged.push(...page.items.map((r) => r.notificationId));
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(paged).toEqual(all.items.map((r) => r.notificationId));
  });
});
