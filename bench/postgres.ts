// The PostgreSQL ledger engine (team mode) at the SQLite benchmarks' sizes and with their data:
// seeding, lookups and filtered keyset pages through the real repositories, then durable listener
// ingest. Runs in a database of its own on the machine's server at 127.0.0.1:5432 (else a private
// cluster, as the tests do: test/setup/postgres.ts), dropped at the end, also on a failure, a
// signal or --timeout (bench/run.ts's SIGKILL would leave it behind).
//
// Seeding writes bench/seed-ledger.ts's rows (each a function of its index), in bulk: one
// INSERT … SELECT FROM unnest(…) per 20,000 rows, secondary indexes dropped before and built again
// after. So that the bulk rows are exactly the repositories' rows, a sample of each table is first
// written both ways, under two profiles of their own, and compared column by column (id and
// profile aside); any difference stops the benchmark before it seeds.
//   node --import tsx bench/postgres.ts [--payins N] [--payouts N] [--notifications N]
//     [--samples 2000] [--connections 64] [--seconds 5] [--generators 1] [--timeout 840]
import pg from 'pg';
import findPostgres from '../test/setup/postgres';
import { createTestDatabase, type TestDatabase } from '../test/helpers/test-database';
import { commitsAreDurable, openLedger } from '../src/main/ledger/connection';
import type { PostgresEngine } from '../src/main/ledger/engine/postgres';
import { createRepositories, type Repositories } from '../src/main/ledger/repositories/index';
import type { TransactionFilter } from '../src/main/ledger/repositories/transactions';
import { startListener } from '../src/main/listener/server';
import { arg, log, percentile, prng, report, round, runLoad, sample, type Figure, type LoadResult } from './lib';
import { notificationRow, payinRow, payoutRow, rowDifferences, SEED_START, seeds, seedShape, writeThroughRepositories, type Row, type SeedSizes } from './seed-ledger';

/** Rows per bulk statement (each column one array parameter). */
const CHUNK = 20_000;
/**
 * Rows of each table written both ways before seeding, and compared: fewer than seed-ledger.ts's
 * SAMPLE (each pay-in through the repositories is ~8 round trips to the server), with every tenth
 * given a noted conflict so the rare paths are compared too.
 */
const SAMPLE: SeedSizes = { payins: 500, payouts: 200, notifications: 500 };
/** Ids of the bulk-written sample rows: far above the seeded ones, and deleted before the seeding. */
const SAMPLE_ID_BASE = 900_000_000_000;
/** The issue's targets for the PostgreSQL engine at a million rows. */
const LOOKUP_MS = 5;
const PAGE_MS = 25;
const INGEST_PER_S = 10_000;

// ---------------------------------------------------------------------------------------------
// The bulk path: one statement per chunk, every column an array.

class BulkWriter {
  private readonly types = new Map<string, Map<string, string>>();

  constructor(private readonly client: pg.Client) {}

  async insert(table: string, rows: readonly Row[]): Promise<void> {
    if (rows.length === 0) return;
    const columns = Object.keys(rows[0]!);
    const types = await this.columnTypes(table);
    const arrays = columns.map((c) => rows.map((r) => r[c] ?? null));
    const casts = columns.map((c, i) => `$${i + 1}::${types.get(c) ?? fail(`${table}.${c} is not a column`)}[]`);
    await this.client.query(`INSERT INTO ${table} (${columns.join(', ')}) SELECT * FROM unnest(${casts.join(', ')})`, arrays);
  }

  private async columnTypes(table: string): Promise<Map<string, string>> {
    let types = this.types.get(table);
    if (!types) {
      const { rows } = await this.client.query<{ column_name: string; udt_name: string }>('SELECT column_name, udt_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1', [table]);
      types = new Map(rows.map((r) => [r.column_name, r.udt_name]));
      this.types.set(table, types);
    }
    return types;
  }
}

function fail(message: string): never {
  throw new Error(message);
}

// ---------------------------------------------------------------------------------------------
// The check: SAMPLE written both ways, under two profiles of their own, compared column by column.

async function checkBulkRowsMatchRepositories(ledger: PostgresEngine, repos: Repositories, setClock: (at: number) => void, bulk: BulkWriter): Promise<string> {
  const profile = (name: string) => repos.profiles.create({ name, environment: 'local', baseUrl: 'http://127.0.0.1:9/api/v2', merchantId: 'm', merchantSiteId: 's' });
  const [viaRepositories, viaBulk] = [await profile('check-repositories'), await profile('check-bulk')];
  // First, on the fresh tables: the repositories' pay-ins are rows 1…, which the notifications link to (both ways).
  await writeThroughRepositories(repos, setClock, seeds(viaRepositories.id, SAMPLE, true), SAMPLE);
  const ids = (n: number) => Array.from({ length: n }, (_, i) => i);
  const bulkSeeds = seeds(viaBulk.id, SAMPLE, true);
  await bulk.insert('payins', ids(SAMPLE.payins).map((i) => payinRow(bulkSeeds.payin(i), SAMPLE_ID_BASE + i)));
  await bulk.insert('payouts', ids(SAMPLE.payouts).map((i) => payoutRow(bulkSeeds.payout(i), SAMPLE_ID_BASE + i)));
  await bulk.insert('notifications', ids(SAMPLE.notifications).map((i) => notificationRow(bulkSeeds.notification(i), SAMPLE_ID_BASE + i)));

  const differences: string[] = [];
  for (const table of ['payins', 'payouts', 'notifications'] as const) differences.push(...(await compareTables(ledger, table, SAMPLE[table], viaRepositories.id, viaBulk.id)));
  for (const table of ['notifications', 'payins', 'payouts']) await ledger.run(`DELETE FROM ${table} WHERE profile_id IN (?, ?)`, [viaRepositories.id, viaBulk.id]);
  await ledger.run('DELETE FROM profiles WHERE id IN (?, ?)', [viaRepositories.id, viaBulk.id]);
  if (differences.length > 0) throw new Error(`the bulk seeding path does not write what the repositories write:\n  ${differences.slice(0, 20).join('\n  ')}`);
  const rows = SAMPLE.payins + SAMPLE.payouts + SAMPLE.notifications;
  return `${rows.toLocaleString('en')} rows (${SAMPLE.payins} pay-ins, ${SAMPLE.payouts} payouts, ${SAMPLE.notifications} notifications) equal both ways, every column but id and profile_id`;
}

/** Differences between the two profiles' rows of a table, in id order, every column but id and profile_id. */
async function compareTables(ledger: PostgresEngine, table: string, count: number, expectedProfile: string, actualProfile: string): Promise<string[]> {
  const rowsOf = (profileId: string) => ledger.all<Row>(`SELECT * FROM ${table} WHERE profile_id = ? ORDER BY id`, [profileId]);
  const [expected, actual] = [await rowsOf(expectedProfile), await rowsOf(actualProfile)];
  if (expected.length !== count || actual.length !== count) return [`${table}: ${expected.length} rows through the repositories, ${actual.length} in bulk, ${count} expected`];
  return rowDifferences(table, expected, actual, ['id', 'profile_id']);
}

// ---------------------------------------------------------------------------------------------
// Seeding: secondary indexes dropped, rows in bulk, indexes rebuilt (each table's in its time).

async function seed(ledger: PostgresEngine, bulk: BulkWriter, client: pg.Client, profileId: string, sizes: SeedSizes): Promise<Figure[]> {
  const figures: Figure[] = [];
  const started = performance.now();
  /** Rows [0, count) of a table, CHUNK per statement, with ids from 1 as seed-ledger.ts gives them. */
  const fill = async (name: string, table: string, count: number, row: (i: number) => Row) => {
    const t = performance.now();
    const indexes = await dropSecondaryIndexes(client, table);
    // One statement in flight while the next chunk is built: the server inserts as this process computes.
    let inFlight = Promise.resolve();
    for (let from = 0; from < count; from += CHUNK) {
      const rows: Row[] = [];
      for (let i = from; i < Math.min(count, from + CHUNK); i++) rows.push(row(i));
      await inFlight;
      inFlight = bulk.insert(table, rows);
      if (from > 0 && from % 200_000 === 0) log(`${table}: ${from.toLocaleString('en')} rows`);
    }
    await inFlight;
    const loaded = performance.now();
    for (const definition of indexes) await client.query(definition);
    // The identity goes on after the explicit ids, as after ledger:copy.
    await client.query(`SELECT setval(pg_get_serial_sequence('${table}', 'id'), greatest(1, (SELECT max(id) FROM ${table})))`);
    const seconds = (performance.now() - t) / 1000;
    const indexSeconds = (performance.now() - loaded) / 1000;
    log(`${table}: ${count.toLocaleString('en')} rows in ${round(seconds, 1)} s (${indexes.length} indexes built in ${round(indexSeconds, 1)} s)`);
    figures.push({ name: `PostgreSQL seed ${name} (bulk)`, value: Math.round(count / Math.max(seconds, 1e-9)), unit: 'rows/s',
      note: `${count.toLocaleString('en')} rows in ${round(seconds, 1)} s: INSERT … unnest, ${CHUNK.toLocaleString('en')} per statement, then ${indexes.length} indexes (${round(indexSeconds, 1)} s)` });
  };
  const from = seeds(profileId, sizes);
  await fill('pay-ins', 'payins', sizes.payins, (i) => payinRow(from.payin(i), i + 1));
  await fill('payouts', 'payouts', sizes.payouts, (i) => payoutRow(from.payout(i), i + 1));
  await fill('notifications', 'notifications', sizes.notifications, (i) => notificationRow(from.notification(i), i + 1));
  const t = performance.now();
  // VACUUM as well as ANALYZE: a ledger in use has been vacuumed by autovacuum (visibility map, hint bits).
  for (const table of ['payins', 'payouts', 'notifications']) await ledger.run(`VACUUM (ANALYZE) ${table}`);
  const total = sizes.payins + sizes.payouts + sizes.notifications;
  const seconds = (performance.now() - started) / 1000;
  const size = (await ledger.get<{ bytes: number }>('SELECT pg_database_size(current_database()) AS bytes'))?.bytes ?? 0;
  figures.push({ name: 'PostgreSQL seed all tables', value: Math.round(total / seconds), unit: 'rows/s',
    note: `${total.toLocaleString('en')} rows in ${round(seconds, 1)} s (VACUUM ANALYZE ${round((performance.now() - t) / 1000, 1)} s), ${round(size / 2 ** 30, 2)} GB` });
  return figures;
}

/** Drops a table's indexes but its primary key; returns their definitions, to create them again. */
async function dropSecondaryIndexes(client: pg.Client, table: string): Promise<string[]> {
  const { rows } = await client.query<{ name: string; definition: string }>(
    `SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS definition FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
      WHERE i.indrelid = $1::regclass AND NOT i.indisprimary ORDER BY c.relname`, [table]);
  for (const { name } of rows) await client.query(`DROP INDEX ${name}`);
  return rows.map((r) => r.definition);
}

// ---------------------------------------------------------------------------------------------
// Reads, as bench/ledger-queries.ts times them on SQLite, through the same repositories.

async function measureReads(ledger: PostgresEngine, repos: Repositories, profileId: string, samples: number): Promise<Figure[]> {
  const payins = (await ledger.get<{ n: number }>('SELECT count(*) AS n FROM payins'))?.n ?? 0;
  const rand = prng(7);
  const { stepMs, customers } = seedShape(payins);
  const figures: Figure[] = [];
  const p99 = (name: string, latencies: number[], limit: number, note: string) => {
    figures.push({ name: `PostgreSQL ${name}`, value: round(percentile(latencies, 0.99), 3), unit: 'ms p99', target: { op: '<', value: limit }, note: `${note}; p50 ${round(percentile(latencies, 0.5), 3)} ms, ${latencies.length} samples` });
  };
  p99('lookup by request_id', await sample(() => repos.payins.byRequestId(profileId, `req-${rand(payins)}`), samples), LOOKUP_MS, `${payins.toLocaleString('en')} pay-ins`);
  p99('lookup by payin_id', await sample(() => repos.payins.byPayinId(`pid-${rand(payins)}`), samples), LOOKUP_MS, 'any profile');
  p99('lookup by e-mail', await sample(() => repos.payins.byEmail(`user${rand(customers)}@example.com`), samples), LOOKUP_MS, `every pay-in of one customer (~${Math.round(payins / customers)} rows)`);

  // ledger-queries.ts's filter: two statuses, three methods, half the span from its first quarter.
  const span = payins * stepMs;
  const from = new Date(SEED_START + span / 4);
  const filter: TransactionFilter = { statusCodes: ['200', '517'], methods: ['credit_card', 'open_banking', 'blik'], createdFrom: from, createdTo: new Date(from.getTime() + span / 2) };
  const depth = Math.min(10_000, Math.max(50, Math.floor((await repos.payins.count(filter)) / 2)));
  const deepCursor = await cursorAt(repos, filter, depth);
  const pageSamples = Math.max(50, Math.floor(samples / 4));
  p99('page of 50 pay-ins, first', await sample(() => repos.payins.page(filter, { limit: 50 }), pageSamples), PAGE_MS, 'status in 2 + method in 3 + date range, newest first');
  p99(`page of 50 pay-ins, ${depth.toLocaleString('en')} rows deep`, await sample(() => repos.payins.page(filter, { limit: 50, cursor: deepCursor }), pageSamples), PAGE_MS, 'keyset cursor');
  return figures;
}

/** The cursor `depth` rows into the filtered list, walked page by page as the screen does. */
async function cursorAt(repos: Repositories, filter: TransactionFilter, depth: number): Promise<string | null> {
  let cursor: string | null = null;
  for (let seen = 0; seen < depth; ) {
    const page = await repos.payins.page(filter, { limit: 200, cursor });
    seen += page.items.length;
    if (!page.nextCursor) break;
    cursor = page.nextCursor;
  }
  return cursor;
}

// ---------------------------------------------------------------------------------------------
// Listener ingest: the real listener on this ledger, as core.ts binds it, under bench/load.ts.

async function measureIngest(ledger: PostgresEngine, repos: Repositories, load: { connections: number; seconds: number; generators: number }): Promise<Figure[]> {
  const settings = await ledger.get<{ synchronous_commit: string; fsync: string }>("SELECT current_setting('synchronous_commit') AS synchronous_commit, current_setting('fsync') AS fsync");
  const durable = await commitsAreDurable(ledger);
  if (!durable) throw new Error(`synchronous_commit is ${settings?.synchronous_commit}: the listener refuses a ledger whose commits are not durable`);
  const profile = await repos.profiles.create({ name: 'listener', environment: 'local', baseUrl: 'http://127.0.0.1:9/api/v2', merchantId: 'm', merchantSiteId: 's' });
  const listener = await startListener({ db: ledger });
  // This process's CPU per notification (the listener's share; the server's is PostgreSQL's): on a
  // busy machine the rate says how much CPU it got, this what a notification costs.
  const cpu = process.cpuUsage();
  let ingest: LoadResult;
  try {
    ingest = await runLoad({ url: listener.url(profile.listenerPathSecret), kind: 'notification', ...load });
  } finally {
    await listener.close();
  }
  const used = process.cpuUsage(cpu);
  const cpuPerNotification = round((used.user + used.system) / Math.max(1, ingest.ok), 1);
  const stats = listener.stats();
  const rows = (await ledger.get<{ n: number; distinct_refs: number }>('SELECT count(*) AS n, count(DISTINCT request_ref) AS distinct_refs FROM notifications WHERE profile_id = ?', [profile.id])) ?? { n: 0, distinct_refs: 0 };
  const perCommit = round(stats.stored / Math.max(1, stats.batches), 1);
  log(`listener: ${JSON.stringify(ingest)}; ${stats.batches} commits (${perCommit} per commit), ${cpuPerNotification} µs CPU each; synchronous_commit=${settings?.synchronous_commit}, fsync=${settings?.fsync}`);
  return [
    { name: 'PostgreSQL listener ingest (durable)', value: ingest.rate, unit: 'notifications/s', target: { op: '>=', value: INGEST_PER_S },
      note: `${load.connections} senders, ${load.generators} generator process(es), ${ingest.ok.toLocaleString('en')} acknowledged, ${ingest.failed} failed, synchronous_commit=${settings?.synchronous_commit} (fsync=${settings?.fsync}), ${perCommit} per commit, ${cpuPerNotification} µs CPU each in the listener's process` },
    { name: 'PostgreSQL listener acknowledgement', value: ingest.p99_ms, unit: 'ms p99', note: `p50 ${ingest.p50_ms} ms` },
    // Each acknowledged notification carries its own reference: a missing row or a second one for a reference counts.
    { name: 'PostgreSQL listener notifications without exactly one row', value: Math.abs(ingest.ok - rows.distinct_refs) + (rows.n - rows.distinct_refs), unit: 'notifications', target: { op: '<', value: 1 },
      note: `${rows.n} rows, ${rows.distinct_refs} distinct, ${ingest.ok} acknowledged` },
  ];
}

// ---------------------------------------------------------------------------------------------
// The run: a database of its own, always dropped.

async function run(database: TestDatabase, sizes: SeedSizes): Promise<Figure[]> {
  let clock = SEED_START - 86_400_000;
  const ledger = (await openLedger({ url: database.url }, { now: () => new Date(clock) })) as PostgresEngine;
  const client = new pg.Client({ connectionString: database.url });
  try {
    await client.connect();
    // For the index builds after the load: room to sort in memory (this session only).
    await client.query("SET maintenance_work_mem = '512MB'");
    const repos = createRepositories(ledger, () => new Date(clock));
    const bulk = new BulkWriter(client);
    const profile = await repos.profiles.create({ name: 'bench', environment: 'local', baseUrl: 'http://127.0.0.1:9/api/v2', merchantId: 'bench-m', merchantSiteId: 'bench-s' });
    const checked = await checkBulkRowsMatchRepositories(ledger, repos, (at) => (clock = at), bulk);
    log(`bulk path checked against the repositories: ${checked}`);
    const figures = await seed(ledger, bulk, client, profile.id, sizes);
    figures.push({ name: 'PostgreSQL bulk rows = repositories\' rows', value: 1, unit: 'check', target: { op: '>=', value: 1 }, note: checked });
    const live = createRepositories(ledger);
    figures.push(...(await measureReads(ledger, live, profile.id, arg('samples', 2_000))));
    figures.push(...(await measureIngest(ledger, live, { connections: arg('connections', 64), seconds: arg('seconds', 5), generators: arg('generators', 1) })));
    return figures;
  } finally {
    await client.end().catch(() => undefined);
    await ledger.close();
  }
}

const sizes: SeedSizes = { payins: arg('payins', 1_000_000), payouts: arg('payouts', 200_000), notifications: arg('notifications', 1_000_000) };
const stopCluster = await findPostgres();
const database = await createTestDatabase();
log(`database ${database.name} on ${new URL(database.url).host}`);
let cleaned: Promise<void> | undefined;
const cleanUp = () =>
  (cleaned ??= database.drop().catch((error: unknown) => log(`could not drop ${database.name}: ${String(error)}`)).finally(() => stopCluster?.()));
// bench/run.ts kills a child that overruns with SIGKILL, which leaves nothing a chance to drop the
// database: stop first, and on a signal, dropping it (WITH FORCE ends this process's connections).
const abort = (why: string) => {
  log(`stopping: ${why}`);
  void cleanUp().finally(() => process.exit(1));
};
const watchdog = setTimeout(() => abort(`over --timeout ${arg('timeout', 840)} s`), arg('timeout', 840) * 1000);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => abort(signal));
try {
  report(await run(database, sizes));
} finally {
  clearTimeout(watchdog);
  await cleanUp();
}
