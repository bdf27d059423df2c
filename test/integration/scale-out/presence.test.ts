// When an instance is dead (services/scale-out/instance.ts), with real session locks on one
// PostgreSQL database, each "instance" its own pool and dedicated connection as separate processes
// have, and a manual clock for the heartbeats:
//   - an instance whose session ended (its cluster closed, as a killed process's connection
//     closes) is dead once it has missed two heartbeats, long before the instance timeout; not
//     before those two, and one whose lock alone is gone while its heartbeat goes on is not dead;
//   - one whose session lives but whose heartbeat stopped is dead after the instance timeout;
//   - a missing lock does not count until the observer's own connection has been up long enough
//     for the others' to be back (after a database restart every lock is gone for a while);
//   - a new leader takes over a dead one at once, and forgets it only once;
//   - a lock is taken again after its connection is back.
// PostgreSQL only: a SQLite ledger is one desk's, and it has no other instances.
import { describe, expect, it } from 'vitest';
import { openCluster, presenceKey, type Cluster } from '../../../src/main/ledger/cluster';
import { openLedger, type Ledger } from '../../../src/main/ledger/connection';
import { createRepositories } from '../../../src/main/ledger/repositories/index';
import { InstancePresence } from '../../../src/main/services/scale-out/instance';
import { Takeover } from '../../../src/main/services/scale-out/takeover';
import { silentLogger } from '../../helpers/app-core';
import { ManualClock, testEngine } from '../../helpers/ledger';
import { waitFor } from '../../helpers/poll';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-database';
import { cleanupsAfterEach } from '../../helpers/cleanups';

const cleanups = cleanupsAfterEach();

const TIMINGS = { heartbeatMs: 1_000, deadAfterMs: 6_000 };

/** `steadyMs`: 0 here, so that a missing lock counts at once; the default waits out the others' reconnection. */
async function instance(db: TestDatabase, id: string, clock: ManualClock, steadyMs = 0) {
  const ledger: Ledger = await openLedger({ url: db.url }, { now: clock.now });
  cleanups.push(() => ledger.close());
  const cluster: Cluster = openCluster(ledger, { log: silentLogger, retryMs: 100, steadyMs });
  cleanups.push(() => cluster.close());
  const repos = createRepositories(ledger, clock.now, { instance: id });
  // Shared, but no heartbeat timer: the test says when each one beats.
  const presence = new InstancePresence({ repos, id, shared: true, sessions: cluster, now: clock.now, log: silentLogger, timings: TIMINGS });
  await cluster.hold(id);
  await repos.instances.register(id, 'host', 1);
  const beat = () => repos.instances.heartbeat(id);
  return { ledger, cluster, repos, presence, beat };
}

/** A database of its own and a clock the heartbeats are read on. */
async function fresh(): Promise<{ db: TestDatabase; clock: ManualClock }> {
  const db = await createTestDatabase();
  cleanups.push(() => db.drop());
  return { db, clock: new ManualClock() };
}

/** The backends holding `id`'s presence lock in this database, read on `ledger` (not through the cluster, which may decline to tell). */
async function lockHolders(ledger: Ledger, id: string): Promise<number[]> {
  const rows = await ledger.all<{ pid: number }>(
    "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2 AND objid = ?::bigint::oid AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
    [presenceKey(id)],
  );
  return rows.map((row) => row.pid);
}

/** Its process is killed: its session ends, and its lock with it. */
async function endSession(victim: { cluster: Cluster; ledger: Ledger }, id: string): Promise<void> {
  await victim.cluster.close();
  await waitFor(() => lockHolders(victim.ledger, id), (pids) => pids.length === 0, `${id}'s lock gone`, 5_000);
}

describe.skipIf(testEngine !== 'postgres')('which instances are dead, by their sessions and their heartbeats (PostgreSQL)', () => {
  it('finds a killed instance dead after two missed heartbeats, one with only a dropped lock alive, a hung one after the timeout', async () => {
    const { db, clock } = await fresh();
    const a = await instance(db, 'instance-a', clock);
    const b = await instance(db, 'instance-b', clock);
    await instance(db, 'instance-c', clock);
    expect(await a.cluster.present(['instance-a', 'instance-b', 'instance-c', 'instance-never'])).toEqual(new Set(['instance-a', 'instance-b', 'instance-c']));
    expect(await a.presence.census()).toEqual({ alive: ['instance-a', 'instance-b', 'instance-c'], dead: [] });

    // B's process is killed: its session ends and its lock with it. C's heartbeat stops, its session lives.
    await endSession(b, 'instance-b');
    expect(await a.presence.census()).toEqual({ alive: ['instance-a', 'instance-b', 'instance-c'], dead: [] });
    clock.advance(1_500);
    await a.beat();
    expect(await a.presence.census()).toEqual({ alive: ['instance-a', 'instance-b', 'instance-c'], dead: [] }); // one heartbeat missed: not yet
    clock.advance(600);
    await a.beat();
    expect(await a.presence.census()).toEqual({ alive: ['instance-a', 'instance-c'], dead: ['instance-b'] });
    expect(await a.presence.othersAlive()).toEqual(['instance-c']);

    // C's heartbeat stopped with its session alive: dead only after the instance timeout.
    clock.advance(3_000);
    await a.beat();
    expect((await a.presence.census()).dead).toEqual(['instance-b']);
    clock.advance(1_000);
    await a.beat();
    expect((await a.presence.census()).dead).toEqual(['instance-b', 'instance-c']);
  });

  it('keeps an instance whose lock alone is gone while its heartbeat goes on, and takes a lock again after its connection was ended', async () => {
    const { db, clock } = await fresh();
    const a = await instance(db, 'instance-a', clock);
    const b = await instance(db, 'instance-b', clock);
    // B's lock goes (its dedicated connection), its pool and so its heartbeat stay.
    await endSession(b, 'instance-b');
    for (let i = 0; i < 5; i++) {
      clock.advance(1_000);
      await a.beat();
      await b.beat();
      expect(await a.presence.census()).toEqual({ alive: ['instance-a', 'instance-b'], dead: [] });
    }

    // The server ends C's dedicated connection: it connects again and holds its lock again.
    await instance(db, 'instance-c', clock);
    const holderOfC = () => lockHolders(a.ledger, 'instance-c');
    const first = (await holderOfC())[0] ?? 0;
    expect(first).toBeGreaterThan(0);
    expect(await a.ledger.all('SELECT pg_terminate_backend(?) AS ended', [first])).toEqual([{ ended: true }]);
    await waitFor(holderOfC, (pids) => pids.length === 1 && pids[0] !== first, "C's lock held again by its new connection", 10_000);
    expect(await a.cluster.present(['instance-c'])).toEqual(new Set(['instance-c']));
  });

  it("does not count a missing lock while its own connection has not been up long enough for the others' to be back", async () => {
    const { db, clock } = await fresh();
    const justBack = await instance(db, 'instance-a', clock, 60_000);
    const b = await instance(db, 'instance-b', clock);
    await endSession(b, 'instance-b');
    expect(await justBack.cluster.present(['instance-b'])).toEqual(new Set(['instance-b']));
    clock.advance(2_100);
    await justBack.beat();
    expect(await justBack.presence.census()).toEqual({ alive: ['instance-a', 'instance-b'], dead: [] });
    // Its heartbeat still tells.
    clock.advance(4_000);
    await justBack.beat();
    expect(await justBack.presence.census()).toEqual({ alive: ['instance-a'], dead: ['instance-b'] });
  });

  it('takes over a dead instance as soon as it leads, and forgets it once', async () => {
    const { db, clock } = await fresh();
    const a = await instance(db, 'instance-a', clock);
    const b = await instance(db, 'instance-b', clock);
    await endSession(b, 'instance-b');
    clock.advance(2_100);
    await a.beat();
    const recovered: string[][] = [];
    let pickedUp = 0;
    const takeover = new Takeover({
      presence: a.presence,
      attempts: { recoverInterrupted: async (alive) => (recovered.push([...alive]), []) },
      batches: { recover: async () => [] },
      pickUp: async () => void pickedUp++,
      log: silentLogger,
      watch: true,
    });
    cleanups.push(() => takeover.close());
    await takeover.lead();
    expect(recovered).toEqual([['instance-a']]);
    expect(pickedUp).toBe(1);
    expect((await a.repos.instances.list()).map((row) => row.id)).toEqual(['instance-a']);
    expect(await takeover.takeOverDead()).toEqual([]);
    expect(recovered).toHaveLength(1);
  });
});
