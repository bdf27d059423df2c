// Several instances on one PostgreSQL ledger, piece by piece (the whole servers under SIGKILL:
// test/e2e/team-scale-out.test.ts). Each "instance" here is its own pool and its own dedicated
// connections on one database, as separate processes have:
//   - a push published on one instance reaches the streams of another within a second, with its
//     audience; the instance that published it shows it once (never again from the relay); sessions
//     ended on one are ended on the others; old relay rows are pruned;
//   - one instance at a time leads the recovery, and when the leader's connection goes (its process
//     died) another leads within the retry; an exclusive run (a sweep) happens in one instance at a
//     time, and in no other until it ends.
// PostgreSQL only: a SQLite ledger is one desk's.
import { describe, expect, it } from 'vitest';
import { openCluster, type Cluster } from '../../../src/main/ledger/cluster';
import { openLedger, type Ledger } from '../../../src/main/ledger/connection';
import { PushRelayStore } from '../../../src/main/ledger/push-relay-store';
import type { PostgresEngine } from '../../../src/main/ledger/engine/postgres';
import { EventBus, type PushAudience } from '../../../src/main/services/event-bus';
import { PushRelay } from '../../../src/main/services/scale-out/push-relay';
import type { PushChannel } from '../../../src/shared/contract';
import { silentLogger } from '../../helpers/app-core';
import { testEngine } from '../../helpers/ledger';
import { waitFor } from '../../helpers/poll';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-database';
import { cleanupsAfterEach } from '../../helpers/cleanups';

const cleanups = cleanupsAfterEach();

async function database(): Promise<TestDatabase> {
  const db = await createTestDatabase();
  cleanups.push(() => db.drop());
  return db;
}

async function ledgerOn(db: TestDatabase, now = () => new Date()): Promise<Ledger> {
  const ledger = await openLedger({ url: db.url }, { now });
  cleanups.push(() => ledger.close());
  return ledger;
}

interface Shown {
  channel: string;
  payload: unknown;
  audience: PushAudience | undefined;
  at: number;
}

async function instance(db: TestDatabase, origin: string, now = () => new Date(), options: { insertAnswerDelayMs?: number } = {}) {
  const ledger = await ledgerOn(db, now);
  const services = new EventBus();
  const screens = new EventBus();
  const shown: Shown[] = [];
  const ended: string[][] = [];
  /** The relay ids this instance read from the ledger. */
  const read: number[] = [];
  screens.subscribe((channel, payload, audience) => shown.push({ channel, payload, audience, at: Date.now() }));
  const store = new PushRelayStore(ledger as PostgresEngine, now, origin);
  const readIds = store.read.bind(store);
  store.read = async (ids) => {
    read.push(...ids);
    return readIds(ids);
  };
  const writeRows = store.write.bind(store);
  store.write = async (pushes) => {
    const ids = await writeRows(pushes);
    // The insert's answer can come after its NOTIFYs (which the listening connection gets on commit).
    if (options.insertAnswerDelayMs) await new Promise((resolve) => setTimeout(resolve, options.insertAnswerDelayMs));
    return ids;
  };
  const relay = new PushRelay({ store, from: services, to: screens, sessionsEnded: (ids) => ended.push(ids), now, log: silentLogger, pruneEveryMs: 100 });
  await relay.start();
  cleanups.push(() => relay.close());
  return { ledger, services, relay, shown, ended, read };
}

const CHANGED = 'settings:settings-changed' as PushChannel;

describe.skipIf(testEngine !== 'postgres')('several instances on one PostgreSQL ledger: the push relay and leadership', () => {
  it('shows a push of instance B to the streams of instance A within a second, with its audience, and once on B', async () => {
    const db = await database();
    const a = await instance(db, 'instance-a');
    const b = await instance(db, 'instance-b');
    const published = Date.now();
    b.services.publish(CHANGED, { theme: 'dark' } as never, { personId: 'p-1' });
    b.services.publish(CHANGED, { theme: 'light' } as never);
    // A large push is relayed too: a NOTIFY carries only its id.
    b.services.publish(CHANGED, { big: 'x'.repeat(20_000) } as never);
    await waitFor(async () => a.shown.length, (n) => n === 3, 'B\'s pushes on A', 5_000);
    expect(a.shown.map(({ payload, audience }) => ({ payload, audience }))).toEqual([
      { payload: { theme: 'dark' }, audience: { personId: 'p-1' } },
      { payload: { theme: 'light' }, audience: undefined },
      { payload: { big: 'x'.repeat(20_000) }, audience: undefined },
    ]);
    const latency = Math.max(...a.shown.map((s) => s.at)) - published;
    console.log(`push relay: B's pushes on A's streams after ${latency} ms`);
    expect(latency).toBeLessThan(1_000);
    // B showed its own at once, and never again from the relay, nor read them back (their NOTIFYs reach B too).
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(b.shown.map((s) => s.payload)).toEqual([{ theme: 'dark' }, { theme: 'light' }, { big: 'x'.repeat(20_000) }]);
    expect(a.read).toHaveLength(3);
    expect(b.read).toEqual([]);
    expect(a.ended).toEqual([]);
    b.relay.endSessions(['session-1']);
    await waitFor(async () => a.ended, (ended) => ended.length === 1, 'the ended session on A', 5_000);
    expect(a.ended).toEqual([['session-1']]);
    expect(b.ended).toEqual([]);
  });

  it('does not read back its own pushes when their NOTIFYs come before the insert\'s answer', async () => {
    const db = await database();
    const a = await instance(db, 'instance-a');
    const b = await instance(db, 'instance-b', undefined, { insertAnswerDelayMs: 300 });
    b.services.publish(CHANGED, { theme: 'dark' } as never);
    b.services.publish(CHANGED, { theme: 'light' } as never);
    await waitFor(async () => a.shown.length, (n) => n === 2, 'B\'s pushes on A', 5_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(b.read).toEqual([]);
    expect(b.shown.map((s) => s.payload)).toEqual([{ theme: 'dark' }, { theme: 'light' }]);
  });

  it('prunes relay rows older than a minute', async () => {
    const db = await database();
    let offset = 0;
    const now = () => new Date(Date.now() + offset);
    const a = await instance(db, 'instance-a', now);
    a.services.publish(CHANGED, { theme: 'dark' } as never);
    await waitFor(async () => (await a.ledger.all('SELECT id FROM push_relay')).length, (n) => n === 1, 'the relay row', 5_000);
    offset = 61_000;
    await waitFor(async () => (await a.ledger.all('SELECT id FROM push_relay')).length, (n) => n === 0, 'the old row pruned', 5_000);
  });

  it('lets one instance lead at a time, another when the leader\'s connection goes, and runs an exclusive run in one instance only', async () => {
    const db = await database();
    const clusters: Cluster[] = [];
    const leading: string[] = [];
    for (const name of ['a', 'b']) {
      const cluster = openCluster(await ledgerOn(db), { log: silentLogger, retryMs: 100 });
      cleanups.push(() => cluster.close());
      clusters.push(cluster);
      await cluster.lead('recovery', { lead: async () => void leading.push(name), lost: () => leading.push(`${name} lost`) });
    }
    expect(leading).toEqual(['a']);
    const [a, b] = clusters as [Cluster, Cluster];

    let finish: (() => void) | undefined;
    const sweeping = a.exclusive('sweep', () => new Promise<string>((resolve) => (finish = () => resolve('swept'))));
    await waitFor(async () => finish, (f) => f !== undefined, 'A to sweep', 2_000);
    expect(await b.exclusive('sweep', async () => 'b swept')).toEqual({ ran: false });
    expect(await a.exclusive('sweep', async () => 'again')).toEqual({ ran: false });
    finish?.();
    expect(await sweeping).toEqual({ ran: true, value: 'swept' });
    expect(await b.exclusive('sweep', async () => 'b swept')).toEqual({ ran: true, value: 'b swept' });

    // A's process dies: its session (and its locks) end with it.
    const started = Date.now();
    await a.close();
    await waitFor(async () => leading, (l) => l.includes('b'), 'B to lead', 5_000);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(leading).toEqual(['a', 'b']);
  });
});
