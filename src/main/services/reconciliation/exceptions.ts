// The reconciliation exception lists, each one SQL query on a small partial index (or a narrow
// one), newest first, in keyset pages:
//
//   pending_too_long        not final, created before the threshold, no final status notified
//   notified_not_verified   a notified claim no gateway answer has confirmed (claim_state)
//   status_mismatch         a status contradiction: notification ≠ status read / create answer,
//                           a final result contradicted, or another id for the same transaction
//   amount_mismatch         amount or currency of a notification or status read ≠ ledger
//   orphans                 notifications for a transaction the ledger does not know (yet)
//   duplicates              repeated deliveries of the same news
//   payouts_stuck           payouts still in P100 / P101 after the threshold
//   unknown_attempts        create calls whose outcome is unknown (or left mid-send)
import type { ExceptionKind, ExceptionRow } from '../../../shared/contract';
import { isJsonObject, numberText, parseJson } from '../../../shared/json';
import { PAYIN_STATUS_CATALOGUE, PAYOUT_STATUS_CATALOGUE } from '../../../shared/spec/codes';
import type { Ledger } from '../../ledger/connection';
import { isoTime } from '../../ledger/support';
import { ServiceError } from '../errors';

export const DEFAULT_PENDING_MINUTES = 60;
/** An attempt still "sending" or "prepared" this long after its last change was interrupted. */
const STALE_SEND_MS = 5 * 60_000;

export interface ExceptionQuery {
  kind: ExceptionKind;
  profileId?: string | undefined;
  pendingOlderThanMinutes?: number | undefined;
  cursor?: string | null | undefined;
  limit?: number | undefined;
}

interface Clause {
  sql: string;
  params: unknown[];
}

type TxTable = 'payins' | 'payouts';

const finalCodes = (table: TxTable) =>
  (table === 'payins' ? PAYIN_STATUS_CATALOGUE : PAYOUT_STATUS_CATALOGUE)
    .filter((e) => e.final)
    .map((e) => `'${String(e.code)}'`)
    .join(', ');

/** The WHERE of a transaction-based list (literals where a partial index must match). */
function transactionWhere(kind: ExceptionKind, table: TxTable, cutoff: string): Clause | null {
  switch (kind) {
    case 'pending_too_long':
      return { sql: `final = 0 AND created_at < ? AND (last_notified_status IS NULL OR last_notified_status NOT IN (${finalCodes(table)}))`, params: [cutoff] };
    case 'notified_not_verified':
      return { sql: "claim_state = 'unverified'", params: [] };
    case 'status_mismatch':
      return { sql: 'mismatch = 1 AND (status_conflict IS NOT NULL OR facts_conflict IS NULL)', params: [] };
    case 'amount_mismatch':
      return { sql: 'mismatch = 1 AND facts_conflict IS NOT NULL', params: [] };
    case 'payouts_stuck':
      return table === 'payouts' ? { sql: "status_code IN ('P100', 'P101') AND created_at < ?", params: [cutoff] } : null;
    default:
      return null;
  }
}

const SUBJECT_RANK = { payins: 0, payouts: 1 } as const;

interface TxCursor {
  at: string;
  rank: number;
  id: number;
}

function encode(parts: unknown[]): string {
  return Buffer.from(JSON.stringify(parts), 'utf8').toString('base64url');
}

/** Adds the profile filter and the "ids below the cursor" condition of the id-ordered lists. */
function narrowByProfileAndCursor(alias: string, profileId: string | undefined, cursor: string | null, terms: string[], params: unknown[]): void {
  if (profileId !== undefined) {
    terms.push(`${alias}.profile_id = ?`);
    params.push(profileId);
  }
  if (cursor) {
    const [id] = decode(cursor);
    if (typeof id !== 'number') throw new ServiceError('invalid_input', 'Invalid page cursor.', { cursor: 'Not a cursor of this list.' });
    terms.push(`${alias}.id < ?`);
    params.push(id);
  }
}

function decode(cursor: string): unknown[] {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value)) return value;
  } catch {
    // one error below
  }
  throw new ServiceError('invalid_input', 'Invalid page cursor: pass back nextCursor unchanged.', { cursor: 'Not a cursor of this list.' });
}

interface TxRow {
  id: number;
  profile_id: string;
  reference: string;
  gateway_id: string | null;
  method: string;
  amount: string;
  currency: string;
  status_code: string | null;
  last_notified_status: string | null;
  last_verified_status: string | null;
  created_at: string;
  conflict: string | null;
  status_conflict: string | null;
  facts_conflict: string | null;
  claim_state: string | null;
}

export class ExceptionLists {
  constructor(
    private readonly db: Ledger,
    private readonly now: () => Date,
  ) {}

  page(query: ExceptionQuery): { items: ExceptionRow[]; nextCursor: string | null; total: number | null } {
    const limit = query.limit ?? 50;
    const cutoff = isoTime(new Date(this.now().getTime() - (query.pendingOlderThanMinutes ?? DEFAULT_PENDING_MINUTES) * 60_000));
    const rows = this.fetch(query, cutoff, limit + 1, query.cursor ?? null);
    const items = rows.slice(0, limit).map((r) => r.row);
    const last = rows[limit - 1];
    return { items, nextCursor: rows.length > limit && last ? last.cursor : null, total: query.cursor ? null : this.count(query.kind, query.profileId, cutoff) };
  }

  /** Every row of a list, for a CSV export, stopping at `max`. */
  all(query: Omit<ExceptionQuery, 'cursor' | 'limit'>, max: number): { items: ExceptionRow[]; truncated: boolean } {
    const cutoff = isoTime(new Date(this.now().getTime() - (query.pendingOlderThanMinutes ?? DEFAULT_PENDING_MINUTES) * 60_000));
    const items: ExceptionRow[] = [];
    let cursor: string | null = null;
    for (let round = 0; items.length < max; round++) {
      const rows = this.fetch({ ...query }, cutoff, Math.min(1000, max - items.length + 1), cursor);
      const take = rows.slice(0, Math.min(rows.length, max - items.length));
      items.push(...take.map((r) => r.row));
      if (rows.length <= take.length) return { items, truncated: false };
      cursor = take.at(-1)?.cursor ?? null;
      if (round > max) break; // bounded: each round adds at least one row
    }
    return { items, truncated: true };
  }

  counts(profileId: string | undefined, pendingOlderThanMinutes: number | undefined): { kind: ExceptionKind; count: number }[] {
    const cutoff = isoTime(new Date(this.now().getTime() - (pendingOlderThanMinutes ?? DEFAULT_PENDING_MINUTES) * 60_000));
    const kinds: ExceptionKind[] = ['pending_too_long', 'notified_not_verified', 'status_mismatch', 'amount_mismatch', 'orphans', 'duplicates', 'payouts_stuck', 'unknown_attempts'];
    return kinds.map((kind) => ({ kind, count: this.count(kind, profileId, cutoff) }));
  }

  /** The SQL of one list's first page for one table; public so query plans can be checked. */
  transactionSql(kind: ExceptionKind, table: TxTable, cutoff: string, profileId?: string): Clause | null {
    const where = transactionWhere(kind, table, cutoff);
    if (!where) return null;
    const profile = profileId === undefined ? '' : ' AND profile_id = ?';
    const [reference, gatewayId] = table === 'payins' ? ['request_id', 'payin_id'] : ['merchant_reference', 'payout_id'];
    return {
      sql: `SELECT id, profile_id, ${reference} AS reference, ${gatewayId} AS gateway_id, method, amount, currency, status_code, last_notified_status,
              last_verified_status, created_at, conflict, status_conflict, facts_conflict, claim_state
            FROM ${table} WHERE ${where.sql}${profile}`,
      params: [...where.params, ...(profileId === undefined ? [] : [profileId])],
    };
  }

  private count(kind: ExceptionKind, profileId: string | undefined, cutoff: string): number {
    const profile = profileId === undefined ? '' : ' AND profile_id = ?';
    const extra = profileId === undefined ? [] : [profileId];
    const one = (sql: string, params: unknown[]) => (this.db.prepare(sql).get(...params) as { n: number }).n;
    if (kind === 'orphans' || kind === 'duplicates') {
      return one(`SELECT count(*) AS n FROM notifications WHERE outcome = '${kind === 'orphans' ? 'orphan' : 'duplicate'}'${profile}`, extra);
    }
    if (kind === 'unknown_attempts') {
      const { sql, params } = this.attemptWhere();
      return one(`SELECT count(*) AS n FROM attempts WHERE ${sql}${profile}`, [...params, ...extra]);
    }
    let total = 0;
    for (const table of ['payins', 'payouts'] as const) {
      const where = transactionWhere(kind, table, cutoff);
      if (where) total += one(`SELECT count(*) AS n FROM ${table} WHERE ${where.sql}${profile}`, [...where.params, ...extra]);
    }
    return total;
  }

  private fetch(query: ExceptionQuery, cutoff: string, limit: number, cursor: string | null): { row: ExceptionRow; cursor: string }[] {
    if (query.kind === 'orphans' || query.kind === 'duplicates') return this.notificationRows(query, limit, cursor);
    if (query.kind === 'unknown_attempts') return this.attemptRows(query, limit, cursor);
    return this.transactionRows(query, cutoff, limit, cursor);
  }

  private transactionRows(query: ExceptionQuery, cutoff: string, limit: number, cursor: string | null) {
    let after: TxCursor | null = null;
    if (cursor) {
      const [at, rank, id] = decode(cursor);
      if (typeof at !== 'string' || typeof rank !== 'number' || typeof id !== 'number') throw new ServiceError('invalid_input', 'Invalid page cursor.', { cursor: 'Not a cursor of this list.' });
      after = { at, rank, id };
    }
    const found: { row: ExceptionRow; cursor: string; at: string; rank: number; id: number }[] = [];
    for (const table of ['payins', 'payouts'] as const) {
      const base = this.transactionSql(query.kind, table, cutoff, query.profileId);
      if (!base) continue;
      const rank = SUBJECT_RANK[table];
      let keyset = '';
      const params = [...base.params];
      if (after) {
        // Newest first by (created_at, table rank, id), across both tables.
        if (rank < after.rank) keyset = ' AND created_at <= ?';
        else if (rank > after.rank) keyset = ' AND created_at < ?';
        else keyset = ' AND (created_at, id) < (?, ?)';
        params.push(after.at, ...(rank === after.rank ? [after.id] : []));
      }
      const rows = this.db.prepare(`${base.sql}${keyset} ORDER BY created_at DESC, id DESC LIMIT ?`).all(...params, limit) as TxRow[];
      for (const r of rows) {
        const subject = table === 'payins' ? 'payin' : 'payout';
        found.push({
          at: r.created_at,
          rank,
          id: r.id,
          cursor: encode([r.created_at, rank, r.id]),
          row: {
            key: `${subject}:${r.id}`,
            kind: query.kind,
            subject,
            rowId: r.id,
            profileId: r.profile_id,
            reference: r.reference,
            gatewayId: r.gateway_id,
            method: r.method,
            amount: r.amount,
            currency: r.currency,
            statusCode: r.status_code,
            notifiedStatus: r.last_notified_status,
            verifiedStatus: r.last_verified_status,
            at: r.created_at,
            notificationId: null,
            attemptId: null,
            detail: this.detail(query.kind, r),
          },
        });
      }
    }
    return found.sort((a, b) => (a.at !== b.at ? (a.at < b.at ? 1 : -1) : a.rank !== b.rank ? b.rank - a.rank : b.id - a.id)).slice(0, limit);
  }

  private detail(kind: ExceptionKind, r: TxRow): string | null {
    switch (kind) {
      case 'status_mismatch':
        return r.status_conflict ?? r.conflict ?? (r.last_verified_status !== r.status_code ? `the gateway now says ${r.last_verified_status}` : null);
      case 'amount_mismatch':
        return r.facts_conflict;
      case 'notified_not_verified':
        return `notified ${r.last_notified_status}; the gateway last said ${r.last_verified_status ?? 'nothing yet'}`;
      case 'pending_too_long':
        return r.status_code === null ? 'no answer from the gateway recorded' : `still ${r.status_code}`;
      case 'payouts_stuck':
        return `still ${r.status_code}`;
      default:
        return null;
    }
  }

  private notificationRows(query: ExceptionQuery, limit: number, cursor: string | null) {
    const outcome = query.kind === 'orphans' ? 'orphan' : 'duplicate';
    const terms = [`n.outcome = '${outcome}'`];
    const params: unknown[] = [];
    narrowByProfileAndCursor('n', query.profileId, cursor, terms, params);
    const rows = this.db
      .prepare(
        `SELECT n.id, n.profile_id, n.received_at, n.event, n.transaction_ref, n.request_ref, n.status_code, n.detail, n.body,
           coalesce(n.payin_row_id, n.payout_row_id) AS row_id,
           coalesce(p.method, o.method) AS method, coalesce(p.amount, o.amount) AS amount, coalesce(p.currency, o.currency) AS currency
         FROM notifications AS n
           LEFT JOIN payins AS p ON p.id = n.payin_row_id
           LEFT JOIN payouts AS o ON o.id = n.payout_row_id
         WHERE ${terms.join(' AND ')} ORDER BY n.id DESC LIMIT ?`,
      )
      .all(...params, limit) as {
      id: number;
      profile_id: string;
      received_at: string;
      event: string | null;
      transaction_ref: string | null;
      request_ref: string | null;
      status_code: string | null;
      detail: string | null;
      body: Buffer;
      row_id: number | null;
      method: string | null;
      amount: string | null;
      currency: string | null;
    }[];
    return rows.map((r) => {
      const claimed = r.amount === null ? claimedMoney(r.body) : null;
      const row: ExceptionRow = {
        key: `notification:${r.id}`,
        kind: query.kind,
        subject: r.event === null ? null : r.event === 'v2_payout_notification' ? 'payout' : 'payin',
        rowId: r.row_id,
        profileId: r.profile_id,
        reference: r.request_ref,
        gatewayId: r.transaction_ref,
        method: r.method ?? claimed?.method ?? null,
        amount: r.amount ?? claimed?.amount ?? null,
        currency: r.currency ?? claimed?.currency ?? null,
        statusCode: r.status_code,
        notifiedStatus: r.status_code,
        verifiedStatus: null,
        at: r.received_at,
        notificationId: r.id,
        attemptId: null,
        detail: r.detail,
      };
      return { row, cursor: encode([r.id]) };
    });
  }

  private attemptWhere(): Clause {
    const stale = isoTime(new Date(this.now().getTime() - STALE_SEND_MS));
    return { sql: "state IN ('prepared', 'sending', 'unknown') AND (state = 'unknown' OR updated_at < ?)", params: [stale] };
  }

  private attemptRows(query: ExceptionQuery, limit: number, cursor: string | null) {
    const where = this.attemptWhere();
    const terms = [where.sql.replace(/\b(state|updated_at)\b/g, 'a.$1')];
    const params = [...where.params];
    narrowByProfileAndCursor('a', query.profileId, cursor, terms, params);
    const rows = this.db
      .prepare(
        `SELECT a.id, a.profile_id, a.kind, a.reference, a.state, a.error, a.created_at, a.try_count,
           coalesce(p.id, o.id) AS row_id, coalesce(p.payin_id, o.payout_id) AS gateway_id,
           coalesce(p.method, o.method) AS method, coalesce(p.amount, o.amount) AS amount, coalesce(p.currency, o.currency) AS currency,
           coalesce(p.status_code, o.status_code) AS status_code
         FROM attempts AS a
           LEFT JOIN payins AS p ON a.kind <> 'payout' AND p.request_id = a.reference AND p.profile_id = a.profile_id
           LEFT JOIN payouts AS o ON a.kind = 'payout' AND o.merchant_reference = a.reference AND o.profile_id = a.profile_id
         WHERE ${terms.join(' AND ')} ORDER BY a.id DESC LIMIT ?`,
      )
      .all(...params, limit) as {
      id: number;
      profile_id: string;
      kind: string;
      reference: string;
      state: string;
      error: string | null;
      created_at: string;
      try_count: number;
      row_id: number | null;
      gateway_id: string | null;
      method: string | null;
      amount: string | null;
      currency: string | null;
      status_code: string | null;
    }[];
    return rows.map((r) => ({
      cursor: encode([r.id]),
      row: {
        key: `attempt:${r.id}`,
        kind: query.kind,
        subject: r.kind === 'payout' ? ('payout' as const) : ('payin' as const),
        rowId: r.row_id,
        profileId: r.profile_id,
        reference: r.reference,
        gatewayId: r.gateway_id,
        method: r.method,
        amount: r.amount,
        currency: r.currency,
        statusCode: r.status_code,
        notifiedStatus: null,
        verifiedStatus: null,
        at: r.created_at,
        notificationId: null,
        attemptId: r.id,
        detail: `${r.state}${r.error ? `: ${r.error}` : ''} (sent ${r.try_count} times)`,
      },
    }));
  }
}

/** Method, amount and currency an orphan notification claims (exact decimal text). */
function claimedMoney(body: Buffer): { method: string | null; amount: string | null; currency: string | null } | null {
  try {
    const value = parseJson(body.toString('utf8'));
    if (!isJsonObject(value)) return null;
    const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
    return {
      method: text(value.payment_method) ?? text(value.method),
      amount: typeof value.amount === 'string' ? value.amount : (numberText(value.amount) ?? null),
      currency: text(value.currency),
    };
  } catch {
    return null;
  }
}
