// The status poller on a real ledger with a frozen clock: it reads a transaction whose
// notifications cannot arrive with growing pauses, stops once it is final, and stops for good a
// day after its creation however it answers (bounded in reads and time); rows not marked, and
// final ones, are never polled.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Sql } from '../../../src/main/ledger/engine/types';
import { createRepositories } from '../../../src/main/ledger/repositories/index';
import { StatusPoller } from '../../../src/main/services/verification/status-poller';
import { silentLogger } from '../../helpers/app-core';
import { testLedger, type TestLedger } from '../../helpers/ledger';
import { applyStatus } from '../../../src/main/services/payments/apply';

let ledger: TestLedger;
const reads: { at: number; rowId: number }[] = [];
/** Ledger statements of the poller still running (real I/O on PostgreSQL, which fake timers do not wait for). */
let busy = 0;

/** The ledger as the poller sees it, counting its statements in flight. */
function counting(db: Sql): Sql {
  const counted = async <T>(statement: Promise<T>): Promise<T> => {
    busy++;
    try {
      return await statement;
    } finally {
      busy--;
    }
  };
  return {
    engine: db.engine,
    all: (sql, params) => counted(db.all(sql, params)),
    get: (sql, params) => counted(db.get(sql, params)),
    run: (sql, params) => counted(db.run(sql, params)),
    transaction: (fn) => db.transaction(fn),
    atomic: (fn) => db.atomic(fn),
    atCommit: (write) => db.atCommit(write),
    lock: (name) => db.lock(name),
    lockAndRead: (name, sql) => db.lockAndRead(name, sql),
  };
}

beforeEach(async () => {
  ledger = await testLedger(); // opened on real timers: only the poller's pauses are faked
  vi.useFakeTimers();
  reads.length = 0;
  busy = 0;
});
afterEach(async () => {
  vi.useRealTimers();
  await ledger.close();
});

function poller(maxAgeMs = 60_000) {
  return new StatusPoller({
    repos: createRepositories(counting(ledger.db), ledger.clock.now),
    now: ledger.clock.now,
    log: silentLogger,
    timings: { delaysMs: [1_000, 2_000, 4_000], maxAgeMs },
    verifier: {
      verifyNow: async (_subject, rowId) => {
        reads.push({ at: ledger.clock.now().getTime(), rowId });
        return { subject: 'payin', rowId, verdict: 'verified', read: null };
      },
    },
  });
}

const payin = async (requestId: string, notifyUnreachable: string | null) =>
  (await ledger.repos.payins.recordRequest({ profileId: ledger.profile.id, kind: 'payin', requestId, method: 'blik', amount: '1.00', currency: 'PLN', email: 'a@example.com', notifyUnreachable })).id;

/** The event loop's own setImmediate, kept before the fake timers replace it. */
const realSetImmediate = setImmediate;

/**
 * Moves the ledger's clock and the timers together, one second at a time; each second ends once
 * the poller's ledger reads of it have answered: checked after a real turn of the event loop, when
 * what follows an answer has run too, so the poller is waiting on its next pause or has stopped.
 */
async function pass(ms: number) {
  for (let left = ms; left > 0; left -= 1_000) {
    ledger.clock.advance(1_000);
    await vi.advanceTimersByTimeAsync(1_000);
    do await new Promise((resolve) => realSetImmediate(resolve));
    while (busy > 0);
  }
}

describe('StatusPoller', () => {
  it('reads with growing pauses until the transaction is final, then stops', async () => {
    const id = await payin('p-1', 'http://127.0.0.1:9/n/x');
    const p = poller();
    await p.track('payin', id);
    await p.track('payin', id); // tracked once
    await pass(11_000);
    const start = Date.parse('2026-03-01T10:00:00.000Z');
    expect(reads.map((r) => r.at - start)).toEqual([1_000, 3_000, 7_000, 11_000]);
    // Final (here by another read): the next turn finds it so and reads no more.
    await applyStatus(ledger.repos.payins, id, { statusCode: 200, source: 'status_read' });
    await pass(12_000);
    expect(reads).toHaveLength(4);
    expect(p.size()).toBe(0);
    p.close();
  });

  it('stops a day (here a minute) after creation, however the gateway answers', async () => {
    const id = await payin('p-2', 'http://127.0.0.1:9/n/x');
    const p = poller(20_000);
    await p.track('payin', id);
    await pass(40_000);
    // 1 s, 3 s, 7 s, 11 s, 15 s, 19 s after creation; none from 20 s on.
    expect(reads).toHaveLength(6);
    expect(p.size()).toBe(0);
    p.close();
  });

  it('never polls a row whose notifications can arrive, a final one, or after close; recover() finds the open marked ones', async () => {
    const reachable = await payin('p-3', null);
    const marked = await payin('p-4', 'http://localhost:9/n/x');
    const finalRow = await payin('p-5', 'http://localhost:9/n/x');
    await applyStatus(ledger.repos.payins, finalRow, { statusCode: 302, source: 'status_read' });
    const p = poller();
    await p.track('payin', reachable);
    await p.track('payin', finalRow);
    expect(p.size()).toBe(0);
    expect(await p.recover()).toBe(1);
    await pass(1_000);
    expect(reads.map((r) => r.rowId)).toEqual([marked]);
    p.close();
    await pass(10_000);
    expect(reads).toHaveLength(1);
  });
});
