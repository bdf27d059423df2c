// Reads on a seeded ledger (bench/seed-ledger.ts): lookups by request_id, payin_id and e-mail;
// a filtered, sorted page of 50 pay-ins (status + method + date range, newest first), first and
// 10,000 rows deep through the keyset cursor; then a full reconciliation (totals and every
// exception list in full, as the CSV exports read them). The targets are measured on a ledger the
// operating system holds in memory, as it does for an app in use: the file is read through once
// first. How it was found is reported before that: e-mail lookups on the cache as found (each
// reads ~20 rows scattered across the file, so a cold cache makes them wait for the disk).
//   node --import tsx bench/ledger-queries.ts --ledger FILE [--samples N] [--scale quick|1m|10m]  (the scale picks the targets)
import { closeSync, openSync, readSync } from 'node:fs';
import { openLedger } from '../src/main/ledger/connection';
import { createRepositories } from '../src/main/ledger/repositories/index';
import type { TransactionFilter } from '../src/main/ledger/repositories/transactions';
import { arg, argText, log, percentile, prng, report, round, sample, timeFullReconciliation, type Figure } from './lib';
import { READ_TARGETS, SEED_START, seedShape, type Scale } from './seed-ledger';

const file = argText('ledger', '');
if (!file) throw new Error('usage: ledger-queries.ts --ledger FILE [--samples N] [--scale quick|1m|10m]');
const targets = READ_TARGETS[argText('scale', '1m') as Scale];
const samples = arg('samples', 2_000);
const db = await openLedger({ file });
const repos = createRepositories(db);
const profileId = (await repos.profiles.list())[0]?.id;
if (!profileId) throw new Error(`${file} holds no profile: seed it first`);
const payins = (await db.get<{ n: number }>('SELECT count(*) AS n FROM payins'))?.n ?? 0;
const rand = prng(7);
const { stepMs, customers } = seedShape(payins);
const figures: Figure[] = [];
const p99 = (name: string, latencies: number[], limit: number, note: string) => {
  figures.push({ name, value: round(percentile(latencies, 0.99), 3), unit: 'ms p99', target: { op: '<', value: limit }, note: `${note}; p50 ${round(percentile(latencies, 0.5), 3)} ms, ${latencies.length} samples` });
};

const emailLookup = () => repos.payins.byEmail(`user${rand(customers)}@example.com`);
const asFound: number[] = [];
for (let i = 0; i < 500; i++) {
  const t = performance.now();
  await emailLookup();
  asFound.push(performance.now() - t);
}
asFound.sort((a, b) => a - b);
const warming = performance.now();
const warmedBytes = readThrough(file);
const warmSeconds = (performance.now() - warming) / 1000;
log(`read the ledger through (${round(warmedBytes / 2 ** 20)} MB) in ${round(warmSeconds, 2)} s`);
figures.push({ name: 'lookup by e-mail, page cache as found', value: round(percentile(asFound, 0.99), 3), unit: 'ms p99',
  note: `first ${asFound.length} lookups, before the file was read through (${round(warmSeconds, 1)} s: a cold cache reads it from disk); p50 ${round(percentile(asFound, 0.5), 3)} ms` });

p99('lookup by request_id', await sample(() => repos.payins.byRequestId(profileId, `req-${rand(payins)}`), samples), targets.lookupMs, `${payins.toLocaleString('en')} pay-ins`);
p99('lookup by payin_id', await sample(() => repos.payins.byPayinId(`pid-${rand(payins)}`), samples), targets.lookupMs, 'any profile');
p99('lookup by e-mail', await sample(emailLookup, samples), targets.lookupMs, `every pay-in of one customer (~${Math.round(payins / customers)} rows)`);

// The list screen's filter: two statuses, three methods, a 90-day window in the second half.
const span = payins * stepMs;
const from = new Date(SEED_START + span / 4);
const filter: TransactionFilter = { statusCodes: ['200', '517'], methods: ['credit_card', 'open_banking', 'blik'], createdFrom: from, createdTo: new Date(from.getTime() + span / 2) };
const depth = Math.min(10_000, Math.max(50, Math.floor((await repos.payins.count(filter)) / 2)));
let deepCursor: string | null = null;
for (let seen = 0, cursor: string | null = null; seen < depth; ) {
  const page = await repos.payins.page(filter, { limit: 200, cursor });
  seen += page.items.length;
  cursor = page.nextCursor;
  deepCursor = cursor;
  if (!cursor) break;
}
const pageSamples = Math.max(50, Math.floor(samples / 4));
p99('page of 50 pay-ins, first', await sample(() => repos.payins.page(filter, { limit: 50 }), pageSamples), targets.pageMs, 'status in 2 + method in 3 + date range, newest first');
p99(`page of 50 pay-ins, ${depth.toLocaleString('en')} rows deep`, await sample(() => repos.payins.page(filter, { limit: 50, cursor: deepCursor }), pageSamples), targets.pageMs, 'keyset cursor');
const countTimes = await sample(() => repos.payins.count(filter), 5);
log(`count of the filtered list (shown once per filter change): ${round(percentile(countTimes, 0.5), 1)} ms`);

// Full reconciliation: totals over everything, every exception list's count and every row.
const { seconds, note } = await timeFullReconciliation(repos, new Date(SEED_START + span + 86_400_000));
figures.push({ name: 'full reconciliation', value: round(seconds, 2), unit: 's', target: { op: '<', value: targets.reconciliationS }, note });
await db.close();
report(figures);

/** Reads the file once, start to end, into the operating system's page cache; returns its size. */
function readThrough(path: string): number {
  const fd = openSync(path, 'r');
  const buffer = Buffer.allocUnsafe(4 * 2 ** 20);
  let total = 0;
  try {
    for (let n = readSync(fd, buffer); n > 0; n = readSync(fd, buffer)) total += n;
  } finally {
    closeSync(fd);
  }
  return total;
}
