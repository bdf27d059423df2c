// Migration 0010 (batch history), tested as an upgrade from a version-9 ledger with batches in it:
// what the audit log and the batch rows recorded becomes each batch's history (starts, pauses,
// resumes by a person or at start-up, cancels, ends, in time order, counts unknown), drafts get
// none, and the history is append-only. The upgrade is SQLite's (PostgreSQL ledgers start past it,
// docs/ledger.md); the history itself is tried on either engine.
import { afterEach, describe, expect, it } from 'vitest';
import { openLedger, schemaVersion } from '../../../src/main/ledger/connection';
import { migrations } from '../../../src/main/ledger/migrations/index';
import { BatchEventsRepository } from '../../../src/main/ledger/repositories/batch-events';
import { BatchesRepository } from '../../../src/main/ledger/repositories/batches';
import { BatchHistory } from '../../../src/main/services/payouts-batch/batch-history';
import { testEngine, testLedger, type TestLedger } from '../../helpers/ledger';
import { batchMove } from '../../../src/main/services/payouts-batch/batch-states';

let ledger: TestLedger | undefined;
afterEach(async () => {
  await ledger?.close();
  ledger = undefined;
});

describe('migration 0010: batch history', () => {
  it.runIf(testEngine === 'sqlite')('upgrades a version-9 ledger: each batch gets the history its audit entries and rows recorded', async () => {
    ledger = await testLedger({ migrations: migrations.filter((m) => m.version <= 9) });
    if (!('file' in ledger.address)) throw new Error('a SQLite ledger was expected');
    const { file } = ledger.address;
    const { db, repos, clock, profile } = ledger;
    const store = new BatchesRepository(db, clock.now);
    // A draft as version 9 wrote it (today's repository writes columns later versions added).
    const batch = async (name: string) => {
      const at = clock.now().toISOString();
      return (await db.get<{ id: number }>("INSERT INTO batches (profile_id, environment, file_name, state, declared_rows, created_at, updated_at) VALUES (?, 'local', ?, 'draft', 1, ?, ?) RETURNING id", [profile.id, name, at, at]))!;
    };
    const audit = async (action: string, batchId: number, actor = 'user', extra: Record<string, unknown> = {}) => {
      clock.advance(1_000);
      await repos.audit.append({ actor, action, profileId: profile.id, subject: `batch:${batchId}`, details: { batchId, fileName: 'x.csv', environment: 'local', ...extra } });
    };

    // A batch paused and resumed by a person, then resumed by Paydesk at start-up, then done.
    const crashed = await batch('crashed.csv');
    clock.advance(1_000);
    await store.moveBatch(crashed.id, batchMove('draft', 'running'), { started: true });
    await audit('batch.start', crashed.id);
    await audit('batch.pause', crashed.id);
    await audit('batch.resume', crashed.id);
    await audit('batch.resume', crashed.id, 'system', { reason: 'start-up' });
    clock.advance(1_000);
    await store.moveBatch(crashed.id, batchMove('running', 'done'), { finished: true });
    // A cancelled one, a draft, and one still running.
    const cancelled = await batch('cancelled.csv');
    clock.advance(1_000);
    await store.moveBatch(cancelled.id, batchMove('draft', 'running'), { started: true });
    await audit('batch.cancel', cancelled.id);
    await store.moveBatch(cancelled.id, batchMove('running', 'cancelled'), { finished: true });
    const draft = await batch('draft.csv');
    const running = await batch('running.csv');
    clock.advance(1_000);
    await store.moveBatch(running.id, batchMove('draft', 'running'), { started: true });
    await audit('batch.start', running.id);
    await db.close();

    const upgraded = await openLedger({ file }, { now: clock.now });
    try {
      expect(await schemaVersion(upgraded)).toBe(migrations.at(-1)?.version);
      const events = new BatchEventsRepository(upgraded);
      const history = new BatchHistory(events, clock.now, () => Promise.resolve({ pending: 1, sending: 0, sent: 0, refused: 0, unknown: 0, cancelled: 0 }));
      const course = async (id: number) => (await events.latest(id, 50)).map((e) => `${e.kind}:${e.actor}${e.note ? ` (${e.note})` : ''}`);
      expect(await course(crashed.id)).toEqual(['started:user', 'paused:user', 'resumed:user', 'resumed:system (at start-up)', 'finished:system']);
      expect(await course(cancelled.id)).toEqual(['started:user', 'cancelled:user']);
      expect(await course(draft.id)).toEqual([]);
      expect(await course(running.id)).toEqual(['started:user']);
      // In time order, counts never recorded then.
      const crashedEvents = await events.latest(crashed.id, 50);
      expect(crashedEvents.map((e) => e.at)).toEqual([...crashedEvents.map((e) => e.at)].sort());
      expect(crashedEvents.every((e) => e.items === null && e.cause === null && e.stoppedAt === null)).toBe(true);

      // New events go on the same history; nothing in it can be changed or removed.
      await history.recordInterruption(running.id, 'closed');
      await history.recordInterruption(running.id, 'closed');
      expect((await events.latest(running.id, 50)).map((e) => [e.kind, e.cause, e.items])).toEqual([
        ['started', null, null],
        ['interrupted', 'closed', { pending: 1, inFlight: 0, unknown: 0 }],
      ]);
      await expect(upgraded.run("UPDATE batch_events SET actor = 'user'")).rejects.toThrow(/append-only/);
      await expect(upgraded.run('DELETE FROM batch_events')).rejects.toThrow(/append-only/);
      // An interruption says how and when the app stopped.
      await expect(upgraded.run("INSERT INTO batch_events (batch_id, kind, at, actor) VALUES (?, 'interrupted', 'x', 'system')", [running.id])).rejects.toThrow(/CHECK/);
    } finally {
      await upgraded.close();
    }
  });

  it('shows the latest events of a long history, oldest first, and counts them all', async () => {
    ledger = await testLedger();
    const { batches: store, batchEvents } = ledger.repos;
    const history = new BatchHistory(batchEvents, ledger.clock.now, (id) => store.counts(id));
    const { id } = await store.createDraft({ profileId: ledger.profile.id, environment: 'local', fileName: 'long.csv', declaredRows: 1 });
    await history.record(id, 'started', 'user');
    for (let i = 0; i < 30; i++) {
      await history.record(id, 'paused', 'user');
      await history.record(id, 'resumed', 'user');
    }
    const latest = await batchEvents.latest(id, 50);
    expect(await batchEvents.count(id)).toBe(61);
    expect(latest).toHaveLength(50);
    expect(latest.map((e) => e.id)).toEqual([...latest.map((e) => e.id)].sort((a, b) => a - b));
    expect(latest.at(-1)?.kind).toBe('resumed');
    expect(latest[0]?.kind).toBe('paused');
  });
});
