// Times ledger lookups and keyset pages on a pay-ins table of N rows (default 1,000,000).
//   npx tsx bench/ledger-pages.ts [rows]
// Rows are inserted with raw SQL (this measures reads, not inserts) into a temp file ledger.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openLedger } from '../src/main/ledger/connection';
import { createRepositories } from '../src/main/ledger/repositories/index';
import type { TransactionFilter } from '../src/main/ledger/repositories/transactions';
import { statusFacts } from '../src/main/ledger/status';

const rows = Number(process.argv[2] ?? 1_000_000);
const dir = mkdtempSync(path.join(os.tmpdir(), 'paydesk-bench-'));
const db = openLedger({ file: path.join(dir, 'ledger.sqlite') });
const repos = createRepositories(db);
const profile = repos.profiles.create({ name: 'bench', environment: 'local', baseUrl: 'http://x/api/v2', merchantId: 'm', merchantSiteId: 's' });

const methods = ['credit_card', 'credit_card_ftd', 'open_banking', 'crypto', 'blik', 'googlepay', 'applepay', 'interac'];
const codes = ['100', '101', '200', '200', '200', '200', '302', '305', '500', '501', '517', '777'];
const currencies = ['EUR', 'USD', 'GBP', 'PLN', 'CAD'];
let seed = 42;
/** mulberry32: a small PRNG whose low bits are usable (an LCG's are not, and skew the data). */
const rand = (n: number) => {
  seed = (seed + 0x6d2b79f5) | 0;
  let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
  return ((x ^ (x >>> 14)) >>> 0) % n;
};

const start = Date.parse('2025-01-01T00:00:00Z');
const insert = db.prepare(
  `INSERT INTO payins (profile_id, kind, request_id, payin_id, method, amount, currency, email, status_code, status_category, final,
     mismatch, created_at, updated_at) VALUES (?, 'payin', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
);
let t = performance.now();
for (let done = 0; done < rows; ) {
  db.transaction(() => {
    for (let i = 0; i < 50_000 && done < rows; i++, done++) {
      const code = codes[rand(codes.length)] as string;
      const facts = statusFacts('payin', code);
      const at = new Date(start + done * 30_000 + rand(1000)).toISOString();
      insert.run(profile.id, `req-${done}`, `pid-${done}`, methods[rand(methods.length)], `${rand(1000)}.${rand(90) + 10}`,
        currencies[rand(currencies.length)], `user${rand(50_000)}@example.com`, facts.code, facts.category, facts.final ? 1 : 0,
        rand(1000) === 0 ? 1 : 0, at, at);
    }
  })();
}
console.log(`inserted ${rows} rows in ${((performance.now() - t) / 1000).toFixed(1)} s`);
if (process.env.BENCH_NO_ANALYZE !== '1') {
  t = performance.now();
  db.exec('ANALYZE');
  console.log(`ANALYZE in ${((performance.now() - t) / 1000).toFixed(1)} s`);
}

function time(label: string, run: () => unknown, repeat = 20): void {
  run();
  const t0 = performance.now();
  for (let i = 0; i < repeat; i++) run();
  console.log(`${label.padEnd(70)} ${((performance.now() - t0) / repeat).toFixed(2)} ms`);
}

const mid = new Date(start + (rows / 2) * 30_000).toISOString();
const filters: [string, TransactionFilter][] = [
  ['no filter', {}],
  ['status 200', { statusCodes: ['200'] }],
  ['status 517 + method blik', { statusCodes: ['517'], methods: ['blik'] }],
  ['status 517 + method blik + 30-day range', { statusCodes: ['517'], methods: ['blik'], createdFrom: mid, createdTo: new Date(Date.parse(mid) + 30 * 86_400_000) }],
  ['status in (302, 305) + method in (blik, crypto)', { statusCodes: ['302', '305'], methods: ['blik', 'crypto'] }],
  ['category decline + currency PLN', { categories: ['decline'], currencies: ['PLN'] }],
  ['unknown codes', { categories: ['unknown'] }],
  ['mismatch', { mismatch: true }],
  ['not final', { final: false }],
  ['profile', { profileId: profile.id }],
];
for (const [label, filter] of filters) {
  const first = repos.payins.page(filter, { limit: 50 });
  time(`first page: ${label} (${first.items.length} rows)`, () => repos.payins.page(filter, { limit: 50 }));
  const deep = repos.payins.page(filter, { limit: 50, cursor: first.nextCursor });
  time(`next page:  ${label}`, () => repos.payins.page(filter, { limit: 50, cursor: deep.nextCursor }));
}
time('lookup by request_id', () => repos.payins.byRequestId(profile.id, `req-${rand(rows)}`), 1000);
time('lookup by payin_id', () => repos.payins.byPayinId(`pid-${rand(rows)}`), 1000);
time('lookup by e-mail (all rows of one customer)', () => repos.payins.byEmail(`user${rand(50_000)}@example.com`), 200);
time('global search by reference', () => repos.payins.search(`req-${rand(rows)}`), 1000);
time('count by status (code explorer)', () => repos.payins.countByStatus(), 3);
db.close();
rmSync(dir, { recursive: true, force: true });
