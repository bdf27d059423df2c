// Looks, as another process would take them, at what a reliability test judges: the emulator's
// state (what the gateway holds, always a SQLite file) and Paydesk's ledger (what the app
// recorded), on the engine this test run uses: the SQLite file in the data directory, or the
// PostgreSQL database of that directory. Each helper opens its own connection and closes it, so
// the stores can be checked between kills.
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import type { LedgerAddress } from '../../../src/main/ledger/connection';
import { PostgresEngine } from '../../../src/main/ledger/engine/postgres';
import { SqliteEngine } from '../../../src/main/ledger/engine/sqlite';
import type { Sql } from '../../../src/main/ledger/engine/types';
import { AuditLog } from '../../../src/main/ledger/repositories/audit-log';
import { ledgerFile } from '../../../src/main/platform/paths';
import { testDatabaseFor } from '../../helpers/ledger';

export function withDb<T>(file: string, read: (db: Database.Database) => T): T {
  // Not readonly: after a SIGKILL the WAL may need recovery, which a read-only connection cannot do.
  const db = new Database(file, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    return read(db);
  } finally {
    db.close();
  }
}

/** A SQLite file's PRAGMA integrity_check and foreign_key_check: [] when the file is sound. */
export function integrityProblems(file: string): string[] {
  return withDb(file, (db) => {
    const integrity = (db.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check).filter((r) => r !== 'ok');
    const foreign = (db.pragma('foreign_key_check') as { table: string; rowid: number; parent: string }[]).map((r) => `foreign key: ${r.table} row ${r.rowid} → ${r.parent}`);
    return [...integrity, ...foreign];
  });
}

/** Where a core started on `dataDir` (with `database: await testDatabaseFor(dataDir)`) keeps its ledger in this run. */
export async function ledgerAt(dataDir: string): Promise<LedgerAddress> {
  const url = await testDatabaseFor(dataDir);
  return url === undefined ? { file: ledgerFile(dataDir) } : { url };
}

/** One look at the ledger through a connection of its own, closed after. No migrations run. */
export async function withLedger<T>(address: LedgerAddress, read: (db: Sql) => Promise<T>): Promise<T> {
  let engine: SqliteEngine | PostgresEngine;
  if ('url' in address) engine = await PostgresEngine.create(address.url, address.url, 1);
  else {
    // Not readonly, for the same reason as withDb.
    const db = new Database(address.file, { fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    engine = new SqliteEngine(db, address.file);
  }
  try {
    return await read(engine);
  } finally {
    await engine.close();
  }
}

/** Whether the ledger holds its schema yet: a kill can land before the child created or migrated it. */
export async function ledgerCreated(address: LedgerAddress): Promise<boolean> {
  if ('file' in address && !existsSync(address.file)) return false;
  const sql =
    'file' in address
      ? "SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'audit_log'"
      : "SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'audit_log'";
  return withLedger(address, async (db) => (await db.get<{ n: number }>(sql))?.n === 1);
}

/**
 * The ledger is sound: on SQLite the file passes integrity_check and foreign_key_check (PostgreSQL
 * checks its pages and keys itself); on both, the audit log's hash chain holds from its first row
 * to its head (no entry half written, lost or changed). [] when it holds.
 */
export async function ledgerIntegrityProblems(address: LedgerAddress): Promise<string[]> {
  const storage = 'file' in address ? integrityProblems(address.file) : [];
  const chain = await withLedger(address, (db) => new AuditLog(db).verify());
  return [...storage, ...(chain.ok ? [] : [`audit chain broken at row ${chain.brokenAt}: ${chain.reason}`])];
}

/**
 * The check made after each kill. A kill can land before the child has created its ledger at all;
 * then there is nothing to check. The final checks use ledgerIntegrityProblems, which requires it.
 */
export async function ledgerIntegrityProblemsAfterKill(address: LedgerAddress): Promise<string[]> {
  return (await ledgerCreated(address)) ? ledgerIntegrityProblems(address) : [];
}

export interface GatewayPayin {
  payin_id: string;
  request_id: string;
  amount: string;
  currency: string;
  status_code: number;
}

export interface GatewayPayout {
  payout_id: string;
  merchant_reference: string;
  amount: string;
  currency: string;
  status_code: string;
}

export interface GatewayState {
  payins: GatewayPayin[];
  payouts: GatewayPayout[];
  /** Idempotency-Keys the gateway bound, with the reference their first answer names. */
  keys: { key: string; reference: string | null }[];
  deliveries: { id: number; event: string; subject_id: string; state: string; body: string }[];
  /** 2xx attempts per delivery (first sends and duplicates): each is an acknowledgement Paydesk gave. */
  acked: Map<number, number>;
}

export function gatewayState(file: string): GatewayState {
  return withDb(file, (db) => {
    const keys = (db.prepare('SELECT idem_key, response FROM idempotency').all() as { idem_key: string; response: string }[]).map((row) => {
      let reference: string | null = null;
      try {
        const body = JSON.parse(row.response) as { request_id?: unknown; merchantReference?: unknown };
        reference = typeof body.request_id === 'string' ? body.request_id : typeof body.merchantReference === 'string' ? body.merchantReference : null;
      } catch {
        reference = null;
      }
      return { key: row.idem_key, reference };
    });
    const acked = new Map<number, number>();
    for (const row of db.prepare('SELECT delivery_id, count(*) AS n FROM delivery_attempts WHERE http_status BETWEEN 200 AND 299 GROUP BY delivery_id').all() as { delivery_id: number; n: number }[]) {
      acked.set(row.delivery_id, row.n);
    }
    return {
      payins: db.prepare('SELECT payin_id, request_id, amount, currency, status_code FROM payins').all() as GatewayPayin[],
      payouts: db.prepare('SELECT payout_id, merchant_reference, amount, currency, status_code FROM payouts').all() as GatewayPayout[],
      keys,
      deliveries: db.prepare('SELECT id, event, subject_id, state, body FROM deliveries ORDER BY id').all() as GatewayState['deliveries'],
      acked,
    };
  });
}

export interface LedgerTx {
  id: number;
  reference: string;
  gateway_id: string | null;
  amount: string;
  currency: string;
  status_code: string | null;
  final: number;
  claim_state: string | null;
  last_notified_status: string | null;
  last_verified_status: string | null;
  mismatch: number;
}

export interface LedgerState {
  payins: LedgerTx[];
  payouts: LedgerTx[];
  attempts: { reference: string; kind: string; idempotency_key: string; state: string; try_count: number }[];
  notifications: { id: number; dedupe_key: string | null; outcome: string; answer_status: number }[];
  tokens: number;
}

export async function ledgerState(address: LedgerAddress): Promise<LedgerState> {
  return withLedger(address, async (db) => {
    const tx = (table: 'payins' | 'payouts', reference: string, gatewayId: string) =>
      db.all<LedgerTx>(
        `SELECT id, ${reference} AS reference, ${gatewayId} AS gateway_id, amount, currency, status_code, final, claim_state,
                last_notified_status, last_verified_status, mismatch FROM ${table}`,
      );
    return {
      payins: await tx('payins', 'request_id', 'payin_id'),
      payouts: await tx('payouts', 'merchant_reference', 'payout_id'),
      attempts: await db.all<LedgerState['attempts'][number]>('SELECT reference, kind, idempotency_key, state, try_count FROM attempts'),
      notifications: await db.all<LedgerState['notifications'][number]>('SELECT id, dedupe_key, outcome, answer_status FROM notifications'),
      tokens: (await db.get<{ n: number }>('SELECT count(*) AS n FROM card_tokens'))?.n ?? 0,
    };
  });
}

/** Exact decimal text compared by value ("10.50" = "10.5"); no floating point on money. */
export function sameAmount(a: string, b: string): boolean {
  const norm = (s: string) => {
    const [int = '', frac = ''] = s.trim().split('.');
    return `${int.replace(/^0+(?=\d)/, '')}.${frac.replace(/0+$/, '')}`;
  };
  return norm(a) === norm(b);
}

export function countBy<T>(items: readonly T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}
