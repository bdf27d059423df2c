// The PostgreSQL ledger engine (team mode) at the SQLite benchmarks' sizes and with their data:
// seeding, lookups and filtered keyset pages through the real repositories, then durable listener
// ingest: its process's CPU per notification beside a bare node:http server's per request under the
// same generator, same run (the database's backends' CPU in the note). Runs in a database of its own on the machine's server at 127.0.0.1:5432 (else a private
// cluster, as the tests do: test/setup/postgres.ts), dropped at the end, also on a failure, a
// signal or --timeout (bench/run.ts's SIGKILL would leave it behind).
//
// Seeding writes bench/seed-ledger.ts's rows (each a function of its index), in bulk: one
// INSERT … SELECT FROM unnest(…) per 20,000 rows, secondary indexes dropped before and built again
// after. So that the bulk rows are exactly the repositories' rows, a sample of each table is first
// written both ways, under two profiles of their own, and compared column by column (id and
// profile aside); any difference stops the benchmark before it seeds.
//   node --import tsx bench/postgres.ts [--payins N] [--payouts N] [--notifications N]
//     [--samples 2000] [--connections 64] [--seconds 5] [--generators 1] [--warmup 1] [--timeout 840]
//     [--scale 1m|10m] [--no-ingest] [--cold-start] [--keep] [--reuse-database URL] (the read targets: --scale 10m is `npm run bench -- --scale 10m --engine postgres`)
// --cold-start also times the team server's cold start to its first pay-ins page in Chromium on the
// seeded database (bench/team-cold-start.ts; needs the built out/main/server.js, as npm run bench makes it).
// --keep leaves the seeded database behind after a run that finished (its name and URL printed; one
// that failed or was stopped is still dropped), for another benchmark to read: the ten-million seeding
// takes the better part of an hour. Drop it afterwards with `dropdb -h 127.0.0.1 -U postgres NAME`.
// --reuse-database URL reads such a database again instead of seeding one (it is neither seeded nor dropped).
// Each read is timed beside its floor, the same statements through `pg` alone, then a full
// reconciliation (totals and every exception list read in full, as ledger-queries.ts on SQLite).
import pg from 'pg';
import findPostgres from '../test/setup/postgres';
import { createTestDatabase, type TestDatabase } from '../test/helpers/test-database';
import { commitsAreDurable, openLedger } from '../src/main/ledger/connection';
import type { PostgresEngine } from '../src/main/ledger/engine/postgres';
import { createRepositories, type Repositories } from '../src/main/ledger/repositories/index';
import type { TransactionFilter } from '../src/main/ledger/repositories/transactions';
import { startListener } from '../src/main/listener/server';
import { readFileSync, rmSync } from 'node:fs';
import { arg, argText, bareServerLoad, log, percentile, prng, report, round, runLoad, timeFullReconciliation, withCpu, type Figure, type LoadResult } from './lib';
import { teamColdStart, teamColdStartDir } from './team-cold-start';
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
/** The targets for the PostgreSQL engine: at a million rows, and at ten million. */
const READS = {
  '1m': { lookupMs: 5, pageMs: 25, reconciliationS: 30 },
  '10m': { lookupMs: 2, pageMs: 10, reconciliationS: 30 },
};
/** Each read's p99 at most this many times its floor's (the same SQL through pg alone). */
const FLOOR_RATIO = 1.5;
/** The profile the seeded rows belong to (how --reuse-database finds them). */
const BENCH_PROFILE = 'bench';
const reuse = argText('reuse-database', '');
const INGEST_PER_S = 10_000;
/** The listener's CPU per durable notification at most 2.2× the bare server's per request; its acknowledgement p99. */
const CPU_RATIO_TARGET = 2.2;
const ACK_P99_MS = 10;

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
// Reads, as bench/ledger-queries.ts times them on SQLite, through the same repositories, each beside
// its floor: the very statements the repository sent (text and values, captured from
// the engine's pool), run through one plain `pg` client, prepared by name as the engine prepares a
// text it runs twice. The same inputs, interleaved call by call.

/** The statements `work` sends through the engine's pool, in order. */
async function statementsOf(ledger: PostgresEngine, work: () => Promise<unknown>): Promise<{ text: string; values: unknown[] }[]> {
  const pool = ledger.pool;
  const original = pool.query.bind(pool);
  const seen: { text: string; values: unknown[] }[] = [];
  pool.query = ((config: unknown, ...rest: unknown[]) => {
    if (typeof config === 'object' && config !== null && 'text' in config) seen.push({ text: (config as pg.QueryConfig).text, values: [...((config as pg.QueryConfig).values ?? [])] });
    return (original as (...args: unknown[]) => unknown)(config, ...rest);
  }) as typeof pool.query;
  try {
    await work();
  } finally {
    pool.query = original;
  }
  return seen;
}

async function measureReads(ledger: PostgresEngine, repos: Repositories, floorClient: pg.Client, profileId: string, samples: number, targets: { lookupMs: number; pageMs: number; reconciliationS: number }): Promise<Figure[]> {
  const payins = (await ledger.get<{ n: number }>('SELECT count(*) AS n FROM payins'))?.n ?? 0;
  const rand = prng(7);
  const { stepMs, customers } = seedShape(payins);
  const figures: Figure[] = [];
  const names = new Map<string, string>();
  /** Times `calls` through the repositories, then the same statements through `pg` alone; both figures, and the ratio with its target. */
  const paired = async (name: string, calls: (() => Promise<unknown>)[], limit: number, note: string) => {
    // Capturing runs each call once: it is also the warm-up of both paths' plans and pages.
    const statements: { text: string; values: unknown[] }[][] = [];
    for (const call of calls) statements.push(await statementsOf(ledger, call));
    // Interleaved, one call through the repositories and its statements through pg alone: on a
    // shared machine both see the same moments of load.
    const replay = async (i: number) => {
      for (const { text, values } of statements[i]!) {
        let named = names.get(text);
        if (named === undefined) names.set(text, (named = `floor_${names.size + 1}`));
        await floorClient.query({ name: named, text, values });
      }
    };
    for (let i = 0; i < Math.min(50, calls.length); i++) await replay(i);
    const through: number[] = [];
    const floor: number[] = [];
    const deadline = performance.now() + 60_000;
    // Which goes first alternates: the second of a pair finds the first's pages and plan freshly used.
    const timed = async (work: () => Promise<unknown>, into: number[]) => {
      const t = performance.now();
      await work();
      into.push(performance.now() - t);
    };
    for (let i = 0; i < calls.length && performance.now() < deadline; i++) {
      const ours = () => timed(calls[i]!, through);
      const alone = () => timed(() => replay(i), floor);
      if (i % 2 === 0) {
        await ours();
        await alone();
      } else {
        await alone();
        await ours();
      }
    }
    through.sort((a, b) => a - b);
    floor.sort((a, b) => a - b);
    const value = round(percentile(through, 0.99), 3);
    const base = round(percentile(floor, 0.99), 3);
    const perCall = round(statements.reduce((sum, list) => sum + list.length, 0) / Math.max(1, statements.length), 1);
    figures.push(
      { name: `PostgreSQL ${name}`, value, unit: 'ms p99', target: { op: '<', value: limit }, baseline: base,
        note: `${note}; p50 ${round(percentile(through, 0.5), 3)} ms, ${through.length} samples; baseline: the same ${perCall} statement(s) per call through pg alone (p50 ${round(percentile(floor, 0.5), 3)} ms)` },
      { name: `PostgreSQL ${name} ÷ pg alone`, value: round(value / Math.max(0.001, base), 2), unit: '×', target: { op: '<', value: FLOOR_RATIO }, note: `p99 ${value} ms ÷ ${base} ms (target ≤ ${FLOOR_RATIO}×)` },
    );
  };
  const inputs = <T>(n: number, make: () => T) => Array.from({ length: n }, make);
  await paired('lookup by request_id', inputs(samples, () => `req-${rand(payins)}`).map((id) => () => repos.payins.byRequestId(profileId, id)), targets.lookupMs, `${payins.toLocaleString('en')} pay-ins`);
  await paired('lookup by payin_id', inputs(samples, () => `pid-${rand(payins)}`).map((id) => () => repos.payins.byPayinId(id)), targets.lookupMs, 'any profile');
  await paired('lookup by e-mail', inputs(samples, () => `user${rand(customers)}@example.com`).map((email) => () => repos.payins.byEmail(email)), targets.lookupMs, `every pay-in of one customer (~${Math.round(payins / customers)} rows)`);

  // ledger-queries.ts's filter: two statuses, three methods, half the span from its first quarter.
  const span = payins * stepMs;
  const from = new Date(SEED_START + span / 4);
  const filter: TransactionFilter = { statusCodes: ['200', '517'], methods: ['credit_card', 'open_banking', 'blik'], createdFrom: from, createdTo: new Date(from.getTime() + span / 2) };
  const depth = Math.min(10_000, Math.max(50, Math.floor((await repos.payins.count(filter)) / 2)));
  const deepCursor = await cursorAt(repos, filter, depth);
  const pageSamples = Math.max(50, Math.floor(samples / 4));
  await paired('page of 50 pay-ins, first', inputs(pageSamples, () => () => repos.payins.page(filter, { limit: 50 })), targets.pageMs, 'status in 2 + method in 3 + date range, newest first');
  await paired(`page of 50 pay-ins, ${depth.toLocaleString('en')} rows deep`, inputs(pageSamples, () => () => repos.payins.page(filter, { limit: 50, cursor: deepCursor })), targets.pageMs, 'keyset cursor');

  // Full reconciliation, as ledger-queries.ts runs it on SQLite: totals over everything, every exception list's count and every row.
  const { seconds, note } = await timeFullReconciliation(repos, new Date(SEED_START + span + 86_400_000));
  figures.push({ name: 'PostgreSQL full reconciliation', value: round(seconds, 2), unit: 's', target: { op: '<', value: targets.reconciliationS }, note });
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

async function measureIngest(ledger: PostgresEngine, repos: Repositories, load: { connections: number; seconds: number; generators: number; warmup: number }): Promise<Figure[]> {
  const settings = await ledger.get<{ synchronous_commit: string; fsync: string }>("SELECT current_setting('synchronous_commit') AS synchronous_commit, current_setting('fsync') AS fsync");
  const durable = await commitsAreDurable(ledger);
  if (!durable) throw new Error(`synchronous_commit is ${settings?.synchronous_commit}: the listener refuses a ledger whose commits are not durable`);
  const profile = await repos.profiles.create({ name: 'listener', environment: 'local', baseUrl: 'http://127.0.0.1:9/api/v2', merchantId: 'm', merchantSiteId: 's' });
  const listener = await startListener({ db: ledger });
  const url = listener.url(profile.listenerPathSecret);
  let ingest: LoadResult;
  let warm: LoadResult;
  let cpuUs: number;
  let backendUs: number | null;
  try {
    // Warmed up first (the JIT, the pool's connections), unmeasured; its notifications are counted in the rows' check.
    warm = await runLoad({ url, kind: 'notification', connections: load.connections, seconds: load.warmup, generators: load.generators });
    // This process's CPU per notification (the listener's: the issue's figure); the database
    // server's backends' own CPU beside it, read from /proc (the server is on this machine).
    const backendsBefore = await backendCpu(ledger);
    ({ result: ingest, cpuUs } = await withCpu(() => runLoad({ url, kind: 'notification', connections: load.connections, seconds: load.seconds, generators: load.generators })));
    const backendsAfter = await backendCpu(ledger);
    backendUs = backendsBefore && backendsAfter ? [...backendsAfter].reduce((sum, [pid, us]) => sum + us - (backendsBefore.get(pid) ?? 0), 0) : null;
  } finally {
    await listener.close();
  }
  const cpuPerNotification = round(cpuUs / Math.max(1, ingest.ok), 1);
  const backendPerNotification = backendUs === null ? null : round(backendUs / Math.max(1, ingest.ok), 1);
  const stats = listener.stats();
  const rows = (await ledger.get<{ n: number; distinct_refs: number }>('SELECT count(*) AS n, count(DISTINCT request_ref) AS distinct_refs FROM notifications WHERE profile_id = ?', [profile.id])) ?? { n: 0, distinct_refs: 0 };
  const perCommit = round(stats.stored / Math.max(1, stats.batches), 1);
  log(`listener: ${JSON.stringify(ingest)}; ${stats.batches} commits (${perCommit} per commit), ${cpuPerNotification} µs CPU each (PostgreSQL backends ${backendPerNotification ?? '?'} µs); synchronous_commit=${settings?.synchronous_commit}, fsync=${settings?.fsync}`);
  // The floor: a bare node:http server in this process under the same generator, right after.
  const bare = await bareServerLoad(load);
  log(`bare node:http: ${JSON.stringify(bare)}`);
  const acknowledged = warm.ok + ingest.ok;
  return [
    { name: 'PostgreSQL listener CPU per durable notification', value: cpuPerNotification, unit: 'µs', baseline: bare.cpuPerRequestUs,
      note: `the listener's process, user + system time during the load ÷ ${ingest.ok.toLocaleString('en')} acknowledged; baseline: the bare node:http server's per request, same generator, same run; PostgreSQL's backends spent ${backendPerNotification ?? 'an unreadable'} µs more per notification (not in the ratio)` },
    { name: 'PostgreSQL listener CPU per notification ÷ bare server CPU per request', value: round(cpuPerNotification / Math.max(0.1, bare.cpuPerRequestUs), 2), unit: '×', target: { op: '<', value: CPU_RATIO_TARGET },
      note: `${cpuPerNotification} µs ÷ ${bare.cpuPerRequestUs} µs (target ≤ ${CPU_RATIO_TARGET}×)` },
    { name: 'PostgreSQL listener ingest (durable)', value: ingest.rate, unit: 'notifications/s', target: { op: '>=', value: INGEST_PER_S }, baseline: bare.rate,
      note: `${load.connections} senders, ${load.generators} generator process(es), ${ingest.ok.toLocaleString('en')} acknowledged, ${ingest.failed} failed, synchronous_commit=${settings?.synchronous_commit} (fsync=${settings?.fsync}), ${perCommit} per commit` },
    { name: 'PostgreSQL listener acknowledgement', value: ingest.p99_ms, unit: 'ms p99', target: { op: '<', value: ACK_P99_MS }, baseline: bare.p99_ms, note: `p50 ${ingest.p50_ms} ms; baseline: the bare server's p99` },
    // Each acknowledged notification carries its own reference: a missing row or a second one for a reference counts.
    { name: 'PostgreSQL listener notifications without exactly one row', value: Math.abs(acknowledged - rows.distinct_refs) + (rows.n - rows.distinct_refs), unit: 'notifications', target: { op: '<', value: 1 },
      note: `${rows.n} rows, ${rows.distinct_refs} distinct, ${acknowledged} acknowledged (${warm.ok} in the warm-up)` },
  ];
}

/** Each backend of this database: its CPU so far in µs (utime + stime of /proc/PID/stat); null when /proc cannot be read. */
async function backendCpu(ledger: PostgresEngine): Promise<Map<number, number> | null> {
  const pids = await ledger.all<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database()');
  const ticks = 100; // USER_HZ on Linux
  const out = new Map<number, number>();
  try {
    for (const { pid } of pids) {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(pid), ((Number(fields[11]) + Number(fields[12])) / ticks) * 1e6);
    }
  } catch {
    return null;
  }
  return out;
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
    const figures: Figure[] = [];
    let profileId: string;
    if (reuse) {
      const { rows } = await client.query<{ id: string }>('SELECT id FROM profiles WHERE name = $1', [BENCH_PROFILE]);
      profileId = rows[0]?.id ?? fail(`--reuse-database: ${database.name} has no profile named ${BENCH_PROFILE}: not a database this benchmark seeded`);
      log(`--reuse-database: ${database.name} as it was seeded (seeding not measured)`);
    } else {
      const repos = createRepositories(ledger, () => new Date(clock));
      const bulk = new BulkWriter(client);
      profileId = (await repos.profiles.create({ name: BENCH_PROFILE, environment: 'local', baseUrl: 'http://127.0.0.1:9/api/v2', merchantId: 'bench-m', merchantSiteId: 'bench-s' })).id;
      const checked = await checkBulkRowsMatchRepositories(ledger, repos, (at) => (clock = at), bulk);
      log(`bulk path checked against the repositories: ${checked}`);
      figures.push(...(await seed(ledger, bulk, client, profileId, sizes)));
      figures.push({ name: 'PostgreSQL bulk rows = repositories\' rows', value: 1, unit: 'check', target: { op: '>=', value: 1 }, note: checked });
    }
    const live = createRepositories(ledger);
    figures.push(...(await measureReads(ledger, live, client, profileId, arg('samples', 2_000), READS[argText('scale', '1m') === '10m' ? '10m' : '1m'])));
    if (process.argv.includes('--cold-start')) figures.push(...(await teamColdStart(database.url)));
    if (!process.argv.includes('--no-ingest')) figures.push(...(await measureIngest(ledger, live, { connections: arg('connections', 64), seconds: arg('seconds', 5), generators: arg('generators', 1), warmup: arg('warmup', 1) })));
    return figures;
  } finally {
    await client.end().catch(() => undefined);
    await ledger.close();
  }
}

const sizes: SeedSizes = { payins: arg('payins', 1_000_000), payouts: arg('payouts', 200_000), notifications: arg('notifications', 1_000_000) };
// --reuse-database: a database an earlier --keep run seeded, left as it is found (and its cold-start setup kept).
const stopCluster = reuse ? undefined : await findPostgres();
const database: TestDatabase = reuse ? { name: new URL(reuse).pathname.slice(1), url: reuse, drop: async () => undefined } : await createTestDatabase();
log(`database ${database.name} on ${new URL(database.url).host}`);
let cleaned: Promise<void> | undefined;
const cleanUp = () =>
  (cleaned ??= (async () => {
    if (reuse) return;
    rmSync(teamColdStartDir(database.url), { recursive: true, force: true });
    await database.drop().catch((error: unknown) => log(`could not drop ${database.name}: ${String(error)}`));
    stopCluster?.();
  })());
// bench/run.ts kills a child that overruns with SIGKILL, which leaves nothing a chance to drop the
// database: stop first, and on a signal, dropping it (WITH FORCE ends this process's connections).
const abort = (why: string) => {
  log(`stopping: ${why}`);
  void cleanUp().finally(() => process.exit(1));
};
const watchdog = setTimeout(() => abort(`over --timeout ${arg('timeout', 840)} s`), arg('timeout', 840) * 1000);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => abort(signal));
let finished = false;
try {
  report(await run(database, sizes));
  finished = true;
} finally {
  clearTimeout(watchdog);
  if (finished && process.argv.includes('--keep')) log(`--keep: database ${database.name} kept (${database.url}); drop it with dropdb -h 127.0.0.1 -U postgres ${database.name}`);
  else await cleanUp();
}
