// Reads on a seeded ledger (bench/seed-ledger.ts): lookups by request_id, payin_id and e-mail;
// a filtered, sorted page of 50 pay-ins (status + method + date range, newest first), first and
// 10,000 rows deep through the keyset cursor; then a full reconciliation (totals and every
// exception list in full, as the CSV exports read them).
//   node --import tsx bench/ledger-queries.ts --ledger FILE [--samples N]
import { openLedger } from '../src/main/ledger/connection';
import { createRepositories } from '../src/main/ledger/repositories/index';
import type { TransactionFilter } from '../src/main/ledger/repositories/transactions';
import { ExceptionLists } from '../src/main/services/reconciliation/exceptions';
import { MAX_CSV_ROWS } from '../src/main/services/reconciliation/reconciliation-service';
import { computeTotals } from '../src/main/services/reconciliation/totals';
import { exceptionKindSchema } from '../src/shared/contract';
import { arg, argText, log, percentile, prng, report, round, sample, type Figure } from './lib';
import { CUSTOMERS, SEED_START, SEED_STEP_MS } from './seed-ledger';

const file = argText('ledger', '');
if (!file) throw new Error('usage: ledger-queries.ts --ledger FILE');
const samples = arg('samples', 2_000);
const db = openLedger({ file });
const repos = createRepositories(db);
const profileId = repos.profiles.list()[0]?.id;
if (!profileId) throw new Error(`${file} holds no profile: seed it first`);
const payins = (db.prepare('SELECT count(*) AS n FROM payins').get() as { n: number }).n;
const rand = prng(7);
const figures: Figure[] = [];
const p99 = (name: string, latencies: number[], limit: number, note: string) => {
  figures.push({ name, value: round(percentile(latencies, 0.99), 3), unit: 'ms p99', target: { op: '<', value: limit }, note: `${note}; p50 ${round(percentile(latencies, 0.5), 3)} ms, ${latencies.length} samples` });
};

p99('lookup by request_id', sample(() => repos.payins.byRequestId(profileId, `req-${rand(payins)}`), samples), 2, `${payins.toLocaleString('en')} pay-ins`);
p99('lookup by payin_id', sample(() => repos.payins.byPayinId(`pid-${rand(payins)}`), samples), 2, 'any profile');
p99('lookup by e-mail', sample(() => repos.payins.byEmail(`user${rand(CUSTOMERS)}@example.com`), samples), 2, `every pay-in of one customer (~${Math.round(payins / CUSTOMERS)} rows)`);

// The list screen's filter: two statuses, three methods, a 90-day window in the second half.
const span = payins * SEED_STEP_MS;
const from = new Date(SEED_START + span / 4);
const filter: TransactionFilter = { statusCodes: ['200', '517'], methods: ['credit_card', 'open_banking', 'blik'], createdFrom: from, createdTo: new Date(from.getTime() + span / 2) };
const depth = Math.min(10_000, Math.max(50, Math.floor(repos.payins.count(filter) / 2)));
let deepCursor: string | null = null;
for (let seen = 0, cursor: string | null = null; seen < depth; ) {
  const page = repos.payins.page(filter, { limit: 200, cursor });
  seen += page.items.length;
  cursor = page.nextCursor;
  deepCursor = cursor;
  if (!cursor) break;
}
const pageSamples = Math.max(50, Math.floor(samples / 4));
p99('page of 50 pay-ins, first', sample(() => repos.payins.page(filter, { limit: 50 }), pageSamples), 25, 'status in 2 + method in 3 + date range, newest first');
p99(`page of 50 pay-ins, ${depth.toLocaleString('en')} rows deep`, sample(() => repos.payins.page(filter, { limit: 50, cursor: deepCursor }), pageSamples), 25, 'keyset cursor');
const countTimes = sample(() => repos.payins.count(filter), 5);
log(`count of the filtered list (shown once per filter change): ${round(percentile(countTimes, 0.5), 1)} ms`);

// Full reconciliation: totals over everything, every exception list's count and every row.
const lists = new ExceptionLists(db, () => new Date(SEED_START + span + 86_400_000));
const t = performance.now();
const totals = computeTotals(db, {});
const counts = lists.counts(undefined, undefined);
let rows = 0;
for (const kind of exceptionKindSchema.options) rows += lists.all({ kind }, MAX_CSV_ROWS).items.length;
const seconds = (performance.now() - t) / 1000;
figures.push({ name: 'full reconciliation', value: round(seconds, 2), unit: 's', target: { op: '<', value: 5 }, note: `${totals.rows.length} totals rows, ${counts.length} lists, ${rows.toLocaleString('en')} exception rows` });
db.close();
report(figures);
