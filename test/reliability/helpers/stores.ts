// Read-only looks at the two SQLite files a reliability test judges: the emulator's state (what
// the gateway holds) and Paydesk's ledger (what the app recorded). Each helper opens its own
// connection and closes it, so the files can be checked between kills as another process would.
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';

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

/** PRAGMA integrity_check and foreign_key_check: [] when the file is sound. */
export function integrityProblems(file: string): string[] {
  return withDb(file, (db) => {
    const integrity = (db.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check).filter((r) => r !== 'ok');
    const foreign = (db.pragma('foreign_key_check') as { table: string; rowid: number; parent: string }[]).map((r) => `foreign key: ${r.table} row ${r.rowid} → ${r.parent}`);
    return [...integrity, ...foreign];
  });
}

/**
 * The check made after each kill. A kill can land before the child has created its ledger at all;
 * then there is no file and nothing to check. The final checks use integrityProblems, which
 * requires the file.
 */
export function integrityProblemsAfterKill(file: string): string[] {
  return existsSync(file) ? integrityProblems(file) : [];
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

export function ledgerState(file: string): LedgerState {
  return withDb(file, (db) => {
    const tx = (table: 'payins' | 'payouts', reference: string, gatewayId: string) =>
      db
        .prepare(
          `SELECT id, ${reference} AS reference, ${gatewayId} AS gateway_id, amount, currency, status_code, final, claim_state,
                  last_notified_status, last_verified_status, mismatch FROM ${table}`,
        )
        .all() as LedgerTx[];
    return {
      payins: tx('payins', 'request_id', 'payin_id'),
      payouts: tx('payouts', 'merchant_reference', 'payout_id'),
      attempts: db.prepare('SELECT reference, kind, idempotency_key, state, try_count FROM attempts').all() as LedgerState['attempts'],
      notifications: db.prepare('SELECT id, dedupe_key, outcome, answer_status FROM notifications').all() as LedgerState['notifications'],
      tokens: (db.prepare('SELECT count(*) AS n FROM card_tokens').get() as { n: number }).n,
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
