// The repositories' unit of work (repos.transaction), the one way services make several writes
// atomic, and the one page cursor: its position is checked against the list it is given to.
import { afterEach, describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../../../src/main/ledger/repositories/page';
import { openReader, testEngine, testLedger, type TestLedger } from '../../helpers/ledger';

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
        await repos.audit.append({ actor: 'user', action: 'limits.set' });
        return 'done';
      }),
    ).toBe('done');
    expect(await repos.limits.all()).toHaveLength(1);
    expect((await repos.audit.head())?.seq).toBe(1);

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
  /** An atomic write of this limit's row that then fails. */
  const failingAtomic = (db: TestLedger['db'], repos: TestLedger['repos'], row: typeof limit) =>
    db.atomic(async () => {
      await repos.limits.upsert(row);
      throw new Error('refused');
    });

  it('is a transaction of its own when none is open: all of its writes or none', async () => {
    ledger = await testLedger();
    const { db, repos } = ledger;
    await expect(failingAtomic(db, repos, limit)).rejects.toThrow('refused');
    expect(await repos.limits.all()).toHaveLength(0);
  });

  it('joins an open transaction without a savepoint: a failure fails the caller, and nothing undoes its writes alone', async () => {
    ledger = await testLedger();
    const { db, repos } = ledger;
    await expect(
      repos.transaction(async () => {
        await repos.limits.upsert(limit);
        await failingAtomic(db, repos, { ...limit, currency: 'USD' });
      }),
    ).rejects.toThrow('refused');
    expect(await repos.limits.all()).toHaveLength(0);
    // Caught and gone past (what a caller must wrap in transaction() to undo): its write commits with the caller's.
    await repos.transaction(async () => {
      await expect(failingAtomic(db, repos, limit)).rejects.toThrow('refused');
    });
    expect((await repos.limits.all()).map((r) => r.currency)).toEqual(['EUR']);
  });
});

describe('sql.atCommit (the audit log appends through it)', () => {
  it('runs a write last in the transaction, after the ones queued before it, and commits it with the rest', async () => {
    ledger = await testLedger();
    const { db, repos } = ledger;
    await repos.transaction(async () => {
      await repos.audit.append({ actor: 'user', action: 'first' });
      await db.atCommit(async () => {
        // Last: the transaction's own writes are done by now.
        expect((await repos.limits.all()).map((r) => r.currency)).toEqual(['EUR']);
      });
      await repos.audit.append({ actor: 'user', action: 'second' });
      expect(await repos.audit.head()).toBeNull();
      await repos.limits.upsert(limit);
    });
    expect((await repos.audit.list()).map((e) => e.action)).toEqual(['second', 'first']);
    expect(await repos.audit.verify()).toMatchObject({ ok: true, count: 2 });
  });

  it('drops what a savepoint that rolled back queued, and keeps what the transaction queued', async () => {
    ledger = await testLedger();
    const { repos } = ledger;
    await repos.transaction(async () => {
      await repos.audit.append({ actor: 'user', action: 'kept' });
      await expect(
        repos.transaction(async () => {
          await repos.audit.append({ actor: 'user', action: 'undone' });
          throw new Error('inner');
        }),
      ).rejects.toThrow('inner');
    });
    expect((await repos.audit.list()).map((e) => e.action)).toEqual(['kept']);
  });

  it('appends nothing when the transaction rolls back, and at once outside one', async () => {
    ledger = await testLedger();
    const { repos } = ledger;
    await expect(
      repos.transaction(async () => {
        await repos.audit.append({ actor: 'user', action: 'undone' });
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(await repos.audit.head()).toBeNull();
    await repos.audit.append({ actor: 'user', action: 'now' });
    expect((await repos.audit.list()).map((e) => e.action)).toEqual(['now']);
  });
});

describe('statements on PostgreSQL', () => {
  it.runIf(testEngine === 'postgres')('are prepared on a connection once run a second time, a text run once is not', async () => {
    ledger = await testLedger();
    const { db } = ledger;
    const statements = await db.transaction(async () => {
      await db.get('SELECT id FROM profiles WHERE id = ?', ['once']);
      for (let i = 0; i < 3; i++) await db.get('SELECT name FROM profiles WHERE id = ?', [`again-${i}`]);
      return db.all<{ statement: string }>('SELECT statement FROM pg_prepared_statements');
    });
    const texts = statements.map((s) => s.statement);
    expect(texts).toContain('SELECT name FROM profiles WHERE id = $1');
    expect(texts).not.toContain('SELECT id FROM profiles WHERE id = $1');
  });
});

describe('statements on PostgreSQL during a rolling upgrade', () => {
  it.runIf(testEngine === 'postgres')('keep reading `*` outside a transaction after another instance adds a column: prepared until then, then refused once, run again unprepared and never prepared again', async () => {
    ledger = await testLedger();
    const { db, profile } = ledger;
    // What the engine hands the driver: whether each run of the text was named (prepared).
    const pool = (db as unknown as { pool: { query: (config: unknown) => Promise<unknown> } }).pool;
    const original = pool.query.bind(pool);
    const runs: { named: boolean; failed: boolean }[] = [];
    const text = 'SELECT * FROM profiles WHERE id = $1';
    pool.query = async (config: unknown) => {
      const mine = typeof config === 'object' && config !== null && (config as { text?: string }).text === text;
      try {
        const result = await original(config);
        if (mine) runs.push({ named: 'name' in (config as object), failed: false });
        return result;
      } catch (error) {
        if (mine) runs.push({ named: 'name' in (config as object), failed: true });
        throw error;
      }
    };
    const read = () => db.get<Record<string, unknown>>('SELECT * FROM profiles WHERE id = ?', [profile.id]);
    // Run a second time (the test ledger's set-up may have run it once already), it is named.
    for (let i = 0; i < 3; i++) await read();
    expect(runs.slice(1)).toEqual([{ named: true, failed: false }, { named: true, failed: false }]);
    const other = await openReader(ledger.address);
    await other.run('ALTER TABLE profiles ADD COLUMN added_by_a_newer_instance TEXT');
    await other.close();
    runs.length = 0;
    expect(await read()).toMatchObject({ id: profile.id, added_by_a_newer_instance: null });
    expect(await read()).toMatchObject({ id: profile.id, added_by_a_newer_instance: null });
    expect(runs).toEqual([{ named: true, failed: true }, { named: false, failed: false }, { named: false, failed: false }]);
  });

  it.runIf(testEngine === 'postgres')('keep reading `*` in a transaction after another instance adds a column to the table (there they are never prepared)', async () => {
    ledger = await testLedger();
    const { db, profile } = ledger;
    const read = () => db.transaction(() => db.get<Record<string, unknown>>('SELECT * FROM profiles WHERE id = ?', [profile.id]));
    for (let i = 0; i < 3; i++) await read();
    const other = await openReader(ledger.address);
    await other.run('ALTER TABLE profiles ADD COLUMN added_by_a_newer_instance TEXT');
    await other.close();
    expect(await read()).toMatchObject({ id: profile.id, added_by_a_newer_instance: null });
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
