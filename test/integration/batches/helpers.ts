// Shared by the batch tests: rows shaped like a mapped CSV file, the upload a renderer makes
// (draft, chunks, start), and reading what the gateway holds straight from the emulator's file.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomInt } from 'node:crypto';
import { BATCH_CHUNK_ROWS, type BatchRowForm, type BatchView } from '../../../src/shared/contract';
import type { Core } from '../../../src/main/core';
import type { Ledger } from '../../../src/main/ledger/connection';
import type { SqlParams } from '../../../src/main/ledger/engine/types';
import type { LocalGateway } from '../../../src/main/services/local-gateway';
import { MemorySecretStore, silentLogger } from '../../helpers/app-core';
import { must } from '../../helpers/calls';
import { payoutForm } from '../../helpers/fixtures';
import { gatewayState } from '../../reliability/helpers/stores';

const METHODS = ['open_banking', 'crypto', 'fps'] as const;

/** A German IBAN of bank 37040044 whose account ends in 3000 (as the sample's), with valid check digits. */
export function ibanEnding3000(middle: number): string {
  const bban = `37040044${String(middle % 1_000_000).padStart(6, '0')}3000`;
  // ISO 13616: the BBAN, then DE (13 14) and 00, as one number mod 97.
  const check = 98 - Number(BigInt(`${bban}131400`) % 97n);
  return `DE${String(check).padStart(2, '0')}${bban}`;
}

/**
 * Beneficiary accounts of their own for one set of rows (the masked forms stay the samples': an
 * IBAN ending 3000, a wallet 0x5290…9EE7, an account ••••5678): rows of different tests on one
 * ledger never look like payouts to the same people (services/payments/duplicate-guard.ts).
 */
function accountsOfOwn(): Record<(typeof METHODS)[number], Record<string, string>> {
  const salt = randomInt(0, 1_000_000);
  return {
    open_banking: { iban: ibanEnding3000(salt) },
    crypto: { walletAddress: `0x5290${String(salt).padStart(32, "0")}9EE7` },
    fps: { accountNumber: `${String(salt % 10_000).padStart(4, '0')}5678` },
  };
}

/** n rows cycling through the batchable methods, each with a distinct amount and its own reference, paying accounts no other call's rows pay. */
export function batchRows(n: number, options: { prefix: string; currency?: string; amount?: (i: number) => string; email?: string }): { line: number; form: BatchRowForm }[] {
  const accounts = accountsOfOwn();
  return Array.from({ length: n }, (_, i) => {
    const method = options.currency ? 'open_banking' : (METHODS[i % METHODS.length] as (typeof METHODS)[number]);
    const amount = options.amount?.(i) ?? (method === 'crypto' ? `0.${String(1000 + i).padStart(10, '0')}` : `${10 + i}.${String(i % 100).padStart(2, '0')}`);
    const { profileId: _none, ...sample } = payoutForm(method, { amount, reference: `${options.prefix}-${i + 1}`, email: options.email ?? `ana${i}@example.com` });
    return {
      line: i + 2,
      form: { ...sample, ...(options.currency ? { currency: options.currency } : {}), customer: { ...sample.customer, lastName: `Lima${i}` }, paymentDetails: { ...sample.paymentDetails, ...accounts[method] } },
    };
  });
}

type Dispatch = Core['dispatch'];

/** What the Batch screen does on "Start": a draft, the rows in chunks, then start. */
export async function uploadBatch(dispatch: Dispatch, rows: { line: number; form: BatchRowForm }[], options: { fileName?: string; start?: boolean } = {}): Promise<BatchView> {
  const draft = await must<BatchView>(dispatch, 'batches:create', { fileName: options.fileName ?? 'payouts.csv', rows: rows.length });
  for (let i = 0; i < rows.length; i += BATCH_CHUNK_ROWS) {
    await must(dispatch, 'batches:add-items', { id: draft.id, items: rows.slice(i, i + BATCH_CHUNK_ROWS) });
  }
  return options.start === false ? draft : must<BatchView>(dispatch, 'batches:start', { id: draft.id });
}

export function getBatch(dispatch: Dispatch, id: number): Promise<BatchView> {
  return must<BatchView>(dispatch, 'batches:get', { id });
}

/** Payouts the emulator holds, per merchantReference (read from its SQLite file). */
export function gatewayPayoutsByReference(emulatorFile: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const payout of gatewayState(emulatorFile).payouts) counts.set(payout.merchant_reference, (counts.get(payout.merchant_reference) ?? 0) + 1);
  return counts;
}

/** Each reference exactly once at the gateway: the problems, [] when it holds. */
export function exactlyOnceProblems(held: Map<string, number>, references: readonly string[]): string[] {
  return references.filter((ref) => held.get(ref) !== 1).map((ref) => `${ref}: held ${held.get(ref) ?? 0} times`);
}

/** What batch-child.ts is started with. */
export interface BatchChildConfig {
  dataDir: string;
  /** The PostgreSQL ledger (postgres://…); absent: the SQLite ledger in the data directory. */
  database?: string | undefined;
  gateway: Omit<LocalGateway, 'registerKey' | 'close'>;
  rows?: { line: number; form: BatchRowForm }[];
}

/** A core on `dataDir` in front of a gateway the test runs (it outlives a killed app); short retries. */
export function coreOptions(config: BatchChildConfig) {
  return {
    mode: 'web' as const,
    version: 'test',
    dataDir: config.dataDir,
    database: config.database,
    secrets: new MemorySecretStore(),
    log: silentLogger,
    localGateway: { ...config.gateway, registerKey: async () => {}, close: async () => {} },
    gateway: { timeoutMs: 3_000, runner: { policy: { maxTries: 4, maxTotalMs: 10_000, baseDelayMs: 50, factor: 2, maxDelayMs: 400 } } },
    batches: { concurrency: 4, progressIntervalMs: 20 },
  };
}

/** A statement that writes rows, when it comes through get/all (INSERT … RETURNING): one row returned per row written. */
const WRITE = /^\s*(INSERT|UPDATE|DELETE)\b/i;
/** The instance's heartbeat (services/scale-out/instance.ts). */
const HEARTBEAT = /^\s*UPDATE ledger_instances\b/;

/**
 * The ledger's commits from now on, counted at the engine's interface so it holds on both engines
 * (on SQLite each one is an fsync, synchronous=FULL; on PostgreSQL a WAL flush): outermost
 * transactions that wrote something, and rows written outside any transaction (each statement its
 * own commit).
 */
export function countCommits(db: Ledger): { commits: number; writesOutside: () => number } {
  const counter = { commits: 0, outside: 0 };
  const unit = new AsyncLocalStorage<{ written: number }>();
  const wrote = (rows: number) => {
    const open = unit.getStore();
    if (open) open.written += rows;
    else counter.outside += rows;
  };
  const transaction = db.transaction.bind(db);
  const run = db.run.bind(db);
  const get = db.get.bind(db);
  const all = db.all.bind(db);
  db.transaction = async <T>(fn: () => Promise<T>): Promise<T> => {
    if (unit.getStore()) return transaction(fn);
    const open = { written: 0 };
    const result = await unit.run(open, () => transaction(fn));
    if (open.written > 0) counter.commits++;
    return result;
  };
  db.run = async (sql, params) => {
    const changed = await run(sql, params);
    // The instance saying it is alive (on PostgreSQL, every few seconds) is no write of the batch's.
    if (!HEARTBEAT.test(sql)) wrote(changed);
    return changed;
  };
  db.get = async <T>(sql: string, params?: SqlParams): Promise<T | undefined> => {
    const row = await get<T>(sql, params);
    if (row !== undefined && WRITE.test(sql)) wrote(1);
    return row;
  };
  db.all = async <T>(sql: string, params?: SqlParams): Promise<T[]> => {
    const rows = await all<T>(sql, params);
    if (WRITE.test(sql)) wrote(rows.length);
    return rows;
  };
  return {
    get commits() {
      return counter.commits;
    },
    writesOutside: () => counter.outside,
  };
}
