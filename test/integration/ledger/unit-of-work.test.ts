// The repositories' unit of work (repos.transaction), the one way services make several writes
// atomic, and the one page cursor: its position is checked against the list it is given to.
import { afterEach, describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../../../src/main/ledger/repositories/page';
import { testLedger, type TestLedger } from '../../helpers/ledger';

let ledger: TestLedger | undefined;
afterEach(async () => {
  await ledger?.close();
  ledger = undefined;
});

const limit = { environment: 'live' as const, currency: 'EUR', perPayoutMax: '100', dailyMax: null };

describe('repos.transaction', () => {
  it('commits every write in it together, returns what it returns, and rolls all of them back when it throws', async () => {
    ledger = await testLedger();
    const { repos } = ledger;
    expect(
      await repos.transaction(async () => {
        await repos.limits.upsert(limit);
        return (await repos.audit.append({ actor: 'user', action: 'limits.set' })).seq;
      }),
    ).toBe(1);
    expect(await repos.limits.all()).toHaveLength(1);

    await expect(
      repos.transaction(async () => {
        await repos.limits.remove('live', 'EUR');
        await repos.audit.append({ actor: 'user', action: 'limits.remove' });
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(await repos.limits.all()).toHaveLength(1);
    expect((await repos.audit.head())?.seq).toBe(1);
  });

  it('joins an outer transaction: a nested one that throws rolls back alone', async () => {
    ledger = await testLedger();
    const { repos } = ledger;
    await repos.transaction(async () => {
      await repos.limits.upsert(limit);
      await expect(
        repos.transaction(async () => {
          await repos.limits.upsert({ ...limit, currency: 'USD' });
          throw new Error('inner');
        }),
      ).rejects.toThrow('inner');
      await repos.settings.put(new Map([['theme', '"dark"']]));
    });
    expect((await repos.limits.all()).map((r) => r.currency)).toEqual(['EUR']);
    expect(await repos.settings.get('theme')).toBe('"dark"');
  });
});

describe('sql.atomic', () => {
  it('is a transaction of its own when none is open: all of its writes or none', async () => {
    ledger = await testLedger();
    const { db, repos } = ledger;
    await expect(
      db.atomic(async () => {
        await repos.limits.upsert(limit);
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(await repos.limits.all()).toHaveLength(0);
  });

  it('joins an open transaction without a savepoint: a failure fails the caller, and nothing undoes its writes alone', async () => {
    ledger = await testLedger();
    const { db, repos } = ledger;
    await expect(
      repos.transaction(async () => {
        await repos.limits.upsert(limit);
        await db.atomic(async () => {
          await repos.limits.upsert({ ...limit, currency: 'USD' });
          throw new Error('inner');
        });
      }),
    ).rejects.toThrow('inner');
    expect(await repos.limits.all()).toHaveLength(0);
    // Caught and gone past (what a caller must wrap in transaction() to undo): its write commits with the caller's.
    await repos.transaction(async () => {
      await expect(
        db.atomic(async () => {
          await repos.limits.upsert(limit);
          throw new Error('inner');
        }),
      ).rejects.toThrow('inner');
    });
    expect((await repos.limits.all()).map((r) => r.currency)).toEqual(['EUR']);
  });
});

describe('the page cursor', () => {
  it('names a position that decodes as the shape it was made in', () => {
    expect(decodeCursor(encodeCursor(['2025-01-01T00:00:00.000Z', 1, 7]), ['string', 'number', 'number'])).toEqual(['2025-01-01T00:00:00.000Z', 1, 7]);
  });

  it('is refused by a list ordered another way', async () => {
    ledger = await testLedger();
    const { repos } = ledger;
    const byId = encodeCursor([5]);
    const byCreation = encodeCursor(['2025-01-01T00:00:00.000Z', 5]);
    await expect(repos.payins.page({}, { cursor: byId })).rejects.toThrow(/invalid page cursor/);
    await expect(repos.batches.page({ cursor: byCreation, limit: 10 })).rejects.toThrow(/invalid page cursor/);
    await expect(repos.notifications.summaryPage({}, { cursor: byCreation, limit: 10 })).rejects.toThrow(/invalid page cursor/);
    await expect(repos.exceptions.page({ kind: 'status_mismatch', pendingBefore: '', interruptedBefore: '' }, { cursor: byId, limit: 10 })).rejects.toThrow(/invalid page cursor/);
    await expect(repos.exceptions.page({ kind: 'orphans', pendingBefore: '', interruptedBefore: '' }, { cursor: byCreation, limit: 10 })).rejects.toThrow(/invalid page cursor/);
  });
});
