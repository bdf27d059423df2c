// Seeds a ledger file for the benchmarks: profiles through the real repository, then pay-ins,
// payouts and notifications by a bulk path (one prepared INSERT per row, secondary indexes built
// after the rows, as CREATE INDEX sorts far faster than ten million random inserts do). Before it
// seeds, it proves the bulk path writes what the real repositories write: a sample of each table
// goes through both into two fresh ledgers, and every table of the two must be equal, column by
// column. bench/run.ts caches the file so the later benchmarks of the same run (and `--reuse`
// runs) read the same ledger.
//   node --import tsx bench/seed-ledger.ts --out FILE [--payins N] [--payouts N] [--notifications N]
import { rmSync, statSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { openLedger } from '../src/main/ledger/connection';
import type { SqliteEngine } from '../src/main/ledger/engine/sqlite';
import { createRepositories, type Repositories } from '../src/main/ledger/repositories/index';
import type { NewNotification } from '../src/main/ledger/repositories/notifications';
import type { PayinRequest } from '../src/main/ledger/repositories/payins';
import type { PayoutRequest } from '../src/main/ledger/repositories/payouts';
import { canonicalAmount, type CreateAnswer } from '../src/main/ledger/repositories/transactions';
import { statusColumnsOf, type BaseRow } from '../src/main/ledger/repositories/transaction-record';
import { upsertFromCreate } from '../src/main/services/payments/apply';
import { isMismatch } from '../src/main/services/status-change';
import { decideTransition, statusFacts, type TransactionKind } from '../src/main/ledger/status';
import type { SqlValue } from '../src/main/ledger/engine/types';
import { isoTime, toFlag } from '../src/main/ledger/support';
import { arg, argText, log, prng, report, round, type Figure } from './lib';

export const SEED_START = Date.parse('2025-01-01T00:00:00Z');
/** Simulated time between two pay-ins: a million rows span about a year... */
const STEP_MS = 30_000;
/** ...and ten million at most two years (a merchant that size takes more than one a minute). */
const MAX_SPAN_MS = 2 * 365 * 86_400_000;
const PAYIN_METHODS = ['credit_card', 'credit_card_ftd', 'open_banking', 'crypto', 'blik', 'googlepay', 'applepay', 'interac'] as const;
const PAYIN_CODES = ['100', '101', '200', '200', '200', '200', '302', '305', '500', '501', '517', '777'];
const PAYOUT_METHODS = ['open_banking', 'crypto', 'fps'] as const;
const PAYOUT_CODES = ['P100', 'P101', 'P200', 'P200', 'P200', 'C402', 'C403', 'C501'];
const CURRENCIES = ['EUR', 'USD', 'GBP', 'PLN', 'CAD'];
/** Rows per bulk transaction. */
const CHUNK = 100_000;
/** Rows of each table written both ways before seeding, and compared. */
const SAMPLE: SeedSizes = { payins: 2_000, payouts: 400, notifications: 2_000 };

export interface SeedSizes {
  payins: number;
  payouts: number;
  notifications: number;
}

export const SCALES = {
  quick: { payins: 20_000, payouts: 4_000, notifications: 20_000 },
  '1m': { payins: 1_000_000, payouts: 200_000, notifications: 1_000_000 },
  '10m': { payins: 10_000_000, payouts: 2_000_000, notifications: 10_000_000 },
} satisfies Record<string, SeedSizes>;
export type Scale = keyof typeof SCALES;

/** The read targets of each size: the ten-million ledger is held to tighter ones than the default. */
export const READ_TARGETS: Record<Scale, { lookupMs: number; pageMs: number; reconciliationS: number }> = {
  quick: { lookupMs: 2, pageMs: 25, reconciliationS: 5 },
  '1m': { lookupMs: 2, pageMs: 25, reconciliationS: 5 },
  '10m': { lookupMs: 1, pageMs: 10, reconciliationS: 20 },
};

/** What the benchmarks that read the ledger need to know of how it was seeded, from its pay-in count. */
export interface SeedShape {
  stepMs: number;
  /** Distinct e-mails: about twenty pay-ins each at every size. */
  customers: number;
}

export function seedShape(payins: number): SeedShape {
  return { stepMs: Math.min(STEP_MS, Math.floor(MAX_SPAN_MS / Math.max(1, payins))), customers: Math.max(1, Math.round(payins / 20)) };
}

// ---------------------------------------------------------------------------------------------
// The rows: each a pure function of its index (its own seeded random stream), so the sample
// written both ways holds the same inputs, and a row does not depend on the ones before it.

export interface PayinSeed {
  at: number;
  request: PayinRequest;
  answer: CreateAnswer;
  /** One in a thousand disagrees with the gateway: the reconciliation's exception lists are not empty. */
  conflict: string | null;
}

export interface PayoutSeed {
  at: number;
  request: PayoutRequest;
  answer: CreateAnswer;
  conflict: string | null;
}

export interface NotificationSeed {
  at: number;
  notification: NewNotification;
  outcome: 'applied' | 'duplicate';
  payinRowId: number;
}

const amountFor = (method: string, rand: (n: number) => number) =>
  method === 'crypto' ? `0.${String(rand(99_999_999) + 1).padStart(8, '0')}` : `${rand(1000) + 1}.${String(rand(100)).padStart(2, '0')}`;
const pick = <T>(list: readonly T[], rand: (n: number) => number): T => list[rand(list.length)] as T;

export function payinSeed(i: number, profileId: string, sizes: SeedSizes): PayinSeed {
  const rand = prng(i * 4 + 1);
  const { stepMs, customers } = seedShape(sizes.payins);
  const at = SEED_START + i * stepMs + rand(1000);
  const method = pick(PAYIN_METHODS, rand);
  return {
    at,
    request: { kind: 'payin', profileId, requestId: `req-${i}`, method, amount: amountFor(method, rand), currency: pick(CURRENCIES, rand), email: `user${rand(customers)}@example.com` },
    answer: { gatewayId: `pid-${i}`, statusCode: pick(PAYIN_CODES, rand), createdAt: new Date(at).toISOString() },
    conflict: rand(1000) === 0 ? 'amount differs from the notification' : null,
  };
}

export function payoutSeed(i: number, profileId: string, sizes: SeedSizes): PayoutSeed {
  const rand = prng(i * 4 + 2);
  const { stepMs, customers } = seedShape(sizes.payins);
  const at = SEED_START + Math.floor((i * sizes.payins * stepMs) / Math.max(1, sizes.payouts)) + rand(1000);
  const method = pick(PAYOUT_METHODS, rand);
  return {
    at,
    request: { profileId, merchantReference: `ref-${i}`, method, amount: amountFor(method, rand), currency: method === 'fps' ? 'GBP' : 'EUR', email: `user${rand(customers)}@example.com` },
    answer: { gatewayId: `po-${i}`, statusCode: pick(PAYOUT_CODES, rand), createdAt: new Date(at).toISOString() },
    conflict: rand(1000) === 0 ? 'payout status contradicted' : null,
  };
}

export function notificationSeed(i: number, profileId: string, sizes: SeedSizes): NotificationSeed {
  const rand = prng(i * 4 + 3);
  const at = SEED_START + Math.floor((i * sizes.payins * seedShape(sizes.payins).stepMs) / Math.max(1, sizes.notifications));
  const n = rand(Math.max(1, sizes.payins));
  const body = Buffer.from(JSON.stringify({ event: 'v2_payin_notification', status_code: 200, request_id: `req-${n}`, payin_id: `pid-${n}`, amount: '10.00', currency: 'EUR' }));
  return {
    at,
    notification: {
      profileId, receivedAt: new Date(at).toISOString(), sourceAddress: '127.0.0.1:40000', rawHeaders: ['content-type', 'application/json'],
      body, bodySize: body.length, bodyTruncated: false, answerStatus: 200, event: 'v2_payin_notification', transactionRef: `pid-${n}`,
      requestRef: `req-${n}`, statusCode: '200', dedupeKey: `v2_payin_notification:pid-${n}:200`, outcome: 'pending', detail: null,
    },
    // Already processed, as in a ledger that has been running: nothing waits to be applied at start-up.
    outcome: i % 50 === 0 ? 'duplicate' : 'applied',
    // Ids follow the seeding order from 1 (a fresh table), so pay-in n is row n + 1.
    payinRowId: n + 1,
  };
}

// ---------------------------------------------------------------------------------------------
// The two ways to write them.

/** Where a table's rows come from: each a function of its index. */
export interface Seeds {
  payin(i: number): PayinSeed;
  payout(i: number): PayoutSeed;
  notification(i: number): NotificationSeed;
}

/** The seeded data. `sample`: every tenth pay-in and payout has a noted conflict too, so a sample of a few thousand covers that path. */
export function seeds(profileId: string, sizes: SeedSizes, sample = false): Seeds {
  const withConflict = <T extends { conflict: string | null }>(seed: T, i: number, note: string): T => (sample && i % 10 === 0 && seed.conflict === null ? { ...seed, conflict: note } : seed);
  return {
    payin: (i) => withConflict(payinSeed(i, profileId, sizes), i, 'amount differs from the notification'),
    payout: (i) => withConflict(payoutSeed(i, profileId, sizes), i, 'payout status contradicted'),
    notification: (i) => notificationSeed(i, profileId, sizes),
  };
}

/** Through the real repositories, one row at a time at its own time, as the app writes them. */
export async function writeThroughRepositories(repos: Repositories, setClock: (at: number) => void, from: Seeds, sizes: SeedSizes): Promise<void> {
  for (let i = 0; i < sizes.payins; i++) {
    const s = from.payin(i);
    setClock(s.at);
    const record = await upsertFromCreate(repos.payins, s.request, s.answer);
    if (s.conflict) await repos.payins.noteConflict(record.id, s.conflict, 'facts');
  }
  for (let i = 0; i < sizes.payouts; i++) {
    const s = from.payout(i);
    setClock(s.at);
    const record = await upsertFromCreate(repos.payouts, s.request, s.answer);
    if (s.conflict) await repos.payouts.noteConflict(record.id, s.conflict, 'status');
  }
  for (let i = 0; i < sizes.notifications; i++) {
    const s = from.notification(i);
    setClock(s.at);
    const [id] = await repos.notifications.insertMany([s.notification]);
    await repos.notifications.markOutcome(id as number, s.outcome, { payinRowId: s.payinRowId });
  }
}

/** A whole row, column by column, as the bulk paths insert it (SQLite and bench/postgres.ts). */
export type Row = Record<string, SqlValue>;

/** The row upsertFromCreate (recordRequest, then the create answer's status) leaves, plus noteConflict's columns. */
function transactionRow(kind: TransactionKind, id: number, { at: time, request, answer, conflict }: PayinSeed | PayoutSeed, conflictColumn: 'facts_conflict' | 'status_conflict'): Row {
  const at = isoTime(new Date(time));
  const incoming = statusFacts(kind, answer.statusCode ?? '');
  const advanced = decideTransition(kind, null, incoming) === 'advanced';
  const conflictText = conflict === null ? null : `${conflict} at ${at}`;
  const row = {
    id, profile_id: request.profileId, method: request.method, amount: canonicalAmount(request.amount, request.method, request.currency), currency: request.currency,
    email: request.email, status_code: advanced ? incoming.code : null, status_category: advanced ? incoming.category : null, final: toFlag(advanced && incoming.final),
    reason_code: null, status_changed_at: advanced ? at : null, gateway_created_at: answer.createdAt ?? null, attempt_id: null, last_notified_status: null,
    last_notified_at: null, last_verified_status: null, last_verified_at: null, verified_against: null, conflict: conflictText, mismatch: 0, created_at: at,
    updated_at: at, claim_state: null, status_conflict: conflictColumn === 'status_conflict' ? conflictText : null,
    facts_conflict: conflictColumn === 'facts_conflict' ? conflictText : null, notify_unreachable: null,
  };
  row.mismatch = toFlag(isMismatch(statusColumnsOf(row as unknown as BaseRow)));
  return row;
}

export const payinRow = (seed: PayinSeed, id: number): Row => ({
  ...transactionRow('payin', id, seed, 'facts_conflict'),
  kind: seed.request.kind, request_id: seed.request.requestId, payin_id: seed.answer.gatewayId ?? null, redirect_url: null,
});

export const payoutRow = (seed: PayoutSeed, id: number): Row => ({
  ...transactionRow('payout', id, seed, 'status_conflict'),
  merchant_reference: seed.request.merchantReference, payout_id: seed.answer.gatewayId ?? null,
});

/** What insertMany then markOutcome leave (outcome applied or duplicate, so never stale). */
export function notificationRow({ at, notification: n, outcome, payinRowId }: NotificationSeed, id: number): Row {
  return {
    id, profile_id: n.profileId, received_at: n.receivedAt, source_address: n.sourceAddress, raw_headers: JSON.stringify(n.rawHeaders), body: n.body,
    body_size: n.bodySize, body_truncated: toFlag(n.bodyTruncated), answer_status: n.answerStatus, event: n.event, transaction_ref: n.transactionRef,
    request_ref: n.requestRef, status_code: n.statusCode, dedupe_key: n.dedupeKey, outcome, detail: n.detail,
    payin_row_id: payinRowId, payout_row_id: null, token_row_id: null, processed_at: isoTime(new Date(at)), stale: 0, raw_pruned_at: null,
  };
}

/** One prepared INSERT per table, of every column the first row has. */
class BulkWriter {
  private readonly statements = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {}

  insert(table: Table, row: Row): void {
    let statement = this.statements.get(table);
    if (!statement) {
      const columns = Object.keys(row);
      statement = this.db.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`);
      this.statements.set(table, statement);
    }
    statement.run(row);
  }
}

type Table = 'payins' | 'payouts' | 'notifications';

/** Writes rows [0, count) of a table in transactions of CHUNK rows; its rate as a figure. */
function bulkFill(db: Database.Database, table: Table, count: number, write: (i: number) => void): Figure {
  const started = performance.now();
  const chunk = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) write(i);
  });
  for (let from = 0; from < count; from += CHUNK) {
    chunk(from, Math.min(count, from + CHUNK));
    if (from > 0 && from % 1_000_000 === 0) log(`${table}: ${from.toLocaleString('en')} rows`);
  }
  const seconds = (performance.now() - started) / 1000;
  return { name: `seed ${table} (bulk)`, value: Math.round(count / Math.max(seconds, 1e-9)), unit: 'rows/s', note: `${count.toLocaleString('en')} rows in ${round(seconds, 1)} s` };
}

/** The three tables' secondary indexes are dropped while the rows go in and built again, from the same SQL, after. */
function withoutIndexes(db: Database.Database, fill: () => void): number {
  const indexes = db.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN ('payins', 'payouts', 'notifications')`).all() as { name: string; sql: string }[];
  for (const { name } of indexes) db.exec(`DROP INDEX ${name}`);
  fill();
  const started = performance.now();
  for (const { sql } of indexes) db.exec(sql);
  return (performance.now() - started) / 1000;
}

function bulkWrite(db: Database.Database, from: Seeds, sizes: SeedSizes): { figures: Figure[]; indexSeconds: number } {
  const writer = new BulkWriter(db);
  const figures: Figure[] = [];
  const indexSeconds = withoutIndexes(db, () => {
    figures.push(bulkFill(db, 'payins', sizes.payins, (i) => writer.insert('payins', payinRow(from.payin(i), i + 1))));
    figures.push(bulkFill(db, 'payouts', sizes.payouts, (i) => writer.insert('payouts', payoutRow(from.payout(i), i + 1))));
    figures.push(bulkFill(db, 'notifications', sizes.notifications, (i) => writer.insert('notifications', notificationRow(from.notification(i), i + 1))));
  });
  return { figures, indexSeconds };
}

// ---------------------------------------------------------------------------------------------
// The proof that the two ways agree.

/** A SQLite ledger file and its WAL and shared-memory files. */
function removeLedgerFiles(file: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
}

async function freshLedger(file: string) {
  removeLedgerFiles(file);
  let clock = SEED_START - 86_400_000;
  const ledger = (await openLedger({ file }, { now: () => new Date(clock) })) as SqliteEngine;
  const repos = createRepositories(ledger, () => new Date(clock));
  const profile = await repos.profiles.create({ name: 'bench', environment: 'local', baseUrl: 'http://127.0.0.1:9/api/v2', merchantId: 'bench-m', merchantSiteId: 'bench-s' });
  return { ledger, repos, profileId: profile.id, setClock: (at: number) => (clock = at) };
}

/** Every table but profiles (its id and listener secret are random), the profile id written as one placeholder. */
function dump(db: Database.Database, profileId: string): Map<string, Row[]> {
  const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'profiles' ORDER BY name`).all() as { name: string }[];
  const normal = (row: Row): Row => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v === profileId ? '<profile>' : v]));
  return new Map(tables.map(({ name }) => [name, (db.prepare(`SELECT * FROM ${name} ORDER BY rowid`).all() as Row[]).map(normal)]));
}

const sameValue = (a: unknown, b: unknown) => (Buffer.isBuffer(a) && Buffer.isBuffer(b) ? a.equals(b) : a === b);

/**
 * Where a table's rows written in bulk differ from the repositories' rows of the same inputs, in
 * order, every column but `ignore` (SQLite here, PostgreSQL in bench/postgres.ts).
 */
export function rowDifferences(table: string, viaRepositories: readonly Row[], viaBulk: readonly Row[], ignore: readonly string[] = []): string[] {
  if (viaBulk.length !== viaRepositories.length) return [`${table}: ${viaBulk.length} rows by the bulk path, ${viaRepositories.length} through the repositories`];
  const differences: string[] = [];
  viaRepositories.forEach((want, k) => {
    const got = viaBulk[k] as Row;
    for (const column of Object.keys(want)) {
      if (ignore.includes(column) || sameValue(want[column], got[column])) continue;
      differences.push(`${table} row ${k + 1}, ${column}: ${JSON.stringify(got[column])} by the bulk path, ${JSON.stringify(want[column])} through the repositories`);
    }
  });
  return differences;
}

/** Writes SAMPLE both ways into two fresh ledgers and throws at the first cell that differs; the repositories' rate as a figure. */
async function checkAgainstRepositories(dir: string): Promise<Figure> {
  const viaRepositories = await freshLedger(`${dir}.check-repositories`);
  const started = performance.now();
  await writeThroughRepositories(viaRepositories.repos, viaRepositories.setClock, seeds(viaRepositories.profileId, SAMPLE, true), SAMPLE);
  const seconds = (performance.now() - started) / 1000;
  const viaBulk = await freshLedger(`${dir}.check-bulk`);
  bulkWrite(viaBulk.ledger.db, seeds(viaBulk.profileId, SAMPLE, true), SAMPLE);
  const bulk = dump(viaBulk.ledger.db, viaBulk.profileId);
  const difference = [...dump(viaRepositories.ledger.db, viaRepositories.profileId)].flatMap(([table, rows]) => rowDifferences(table, rows, bulk.get(table) ?? []))[0];
  for (const { ledger } of [viaRepositories, viaBulk]) await ledger.close();
  for (const file of [`${dir}.check-repositories`, `${dir}.check-bulk`]) removeLedgerFiles(file);
  if (difference) throw new Error(`the bulk seeding path does not write what the repositories write: ${difference}`);
  const rows = SAMPLE.payins + SAMPLE.payouts + SAMPLE.notifications;
  log(`bulk path checked against the repositories: ${rows.toLocaleString('en')} rows equal, every table and column`);
  return { name: 'seed through the repositories (the sample checked against the bulk path)', value: Math.round(rows / seconds), unit: 'rows/s', note: `${rows.toLocaleString('en')} rows, every table equal to the bulk path's` };
}

export async function seedLedger(file: string, sizes: SeedSizes): Promise<Figure[]> {
  const figures = [await checkAgainstRepositories(file)];
  const started = performance.now();
  const { ledger, profileId } = await freshLedger(file);
  const db = ledger.db;
  // A seed, not a ledger in use: if it is interrupted the file is thrown away (bench/run.ts seeds
  // under a temporary name), so it need not survive a power cut between commits.
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -1048576');
  const { figures: bulk, indexSeconds } = bulkWrite(db, seeds(profileId, sizes), sizes);
  figures.push(...bulk);
  const t = performance.now();
  db.exec('ANALYZE');
  db.pragma('wal_checkpoint(TRUNCATE)');
  const total = sizes.payins + sizes.payouts + sizes.notifications;
  const seconds = (performance.now() - started) / 1000;
  await ledger.close();
  const gb = statSync(file).size / 2 ** 30;
  figures.push({ name: 'seed all tables', value: Math.round(total / seconds), unit: 'rows/s',
    note: `${total.toLocaleString('en')} rows in ${round(seconds, 1)} s (indexes ${round(indexSeconds, 1)} s, ANALYZE + checkpoint ${round((performance.now() - t) / 1000, 1)} s), ${round(gb, 2)} GB on disk` });
  return figures;
}

if (process.argv[1] === import.meta.filename) {
  const out = argText('out', '');
  if (!out) throw new Error('usage: seed-ledger.ts --out FILE [--payins N] [--payouts N] [--notifications N]');
  report(await seedLedger(out, { payins: arg('payins', SCALES['1m'].payins), payouts: arg('payouts', SCALES['1m'].payouts), notifications: arg('notifications', SCALES['1m'].notifications) }));
}
