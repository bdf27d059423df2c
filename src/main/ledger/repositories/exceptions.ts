// The reconciliation exception lists, each one SQL query on a small partial index (or a narrow
// one), newest first, in keyset pages (services/reconciliation/exceptions.ts says what each list
// means and how its rows read):
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
//
// The lists of pay-ins and payouts are ordered by (created_at, table, id) across both tables;
// the others by id. A range of days narrows each list by the time its rows show: a transaction's
// or an attempt's creation, a notification's receipt.
import type { ExceptionKind } from '../../../shared/contract';
import { PAYIN_STATUS_CATALOGUE, PAYOUT_STATUS_CATALOGUE } from '../../../shared/spec/codes';
import type { Sql, SqlValue } from '../engine/types';
import type { TransactionKind } from '../status';
import type { AttemptKind } from './attempts';
import { dayBounds } from '../support';
import { cursorNumber, decodeCursor, toPage, type Page, type PageAfter } from './page';
import type { ClaimState } from './transaction-record';

export interface ExceptionListQuery {
  kind: ExceptionKind;
  profileId?: string | undefined;
  /** First UTC day (YYYY-MM-DD), included. */
  from?: string | undefined;
  /** Last UTC day (YYYY-MM-DD), included. */
  to?: string | undefined;
  /** pending_too_long and payouts_stuck: rows created before this. */
  pendingBefore: string;
  /** unknown_attempts: an attempt still "prepared" or "sending" unchanged since this was interrupted. */
  interruptedBefore: string;
}

export interface TransactionException {
  source: 'transaction';
  subject: TransactionKind;
  id: number;
  profileId: string;
  reference: string;
  gatewayId: string | null;
  method: string;
  amount: string;
  currency: string;
  statusCode: string | null;
  lastNotifiedStatus: string | null;
  /**
   * The status claimed by the latest notification that contradicts the ledger (outcome mismatch)
   * when it is not the claim held as last notified: a final 302 later contradicted by a
   * notification of 200 keeps 302 as its last notified status (claims only move forward), and
   * this is the 200. Null when no notification contradicts, or the contradicted claim is the one held.
   */
  contradictingClaim: string | null;
  lastVerifiedStatus: string | null;
  createdAt: string;
  conflict: string | null;
  statusConflict: string | null;
  factsConflict: string | null;
  claimState: ClaimState | null;
  mismatch: boolean;
  final: boolean;
  statusKnown: boolean;
}

export interface NotificationException {
  source: 'notification';
  id: number;
  profileId: string;
  receivedAt: string;
  event: string | null;
  transactionRef: string | null;
  requestRef: string | null;
  statusCode: string | null;
  detail: string | null;
  body: Buffer;
  /** The pay-in or payout it concerns, with its method and money, when the ledger knows it. */
  rowId: number | null;
  method: string | null;
  amount: string | null;
  currency: string | null;
}

export interface AttemptException {
  source: 'attempt';
  id: number;
  profileId: string;
  kind: AttemptKind;
  reference: string;
  state: string;
  error: string | null;
  createdAt: string;
  tryCount: number;
  settleNote: string | null;
  /** The profile's environment; null when the profile is gone. */
  environment: string | null;
  /** The pay-in or payout it created, when recorded. */
  rowId: number | null;
  gatewayId: string | null;
  method: string | null;
  amount: string | null;
  currency: string | null;
  statusCode: string | null;
}

export type ExceptionRecord = TransactionException | NotificationException | AttemptException;

interface Clause {
  sql: string;
  params: SqlValue[];
}

type TxTable = 'payins' | 'payouts';

const finalCodes = (table: TxTable) =>
  (table === 'payins' ? PAYIN_STATUS_CATALOGUE : PAYOUT_STATUS_CATALOGUE)
    .filter((e) => e.final)
    .map((e) => `'${String(e.code)}'`)
    .join(', ');

/** The WHERE of a transaction-based list (literals where a partial index must match). */
function transactionWhere(kind: ExceptionKind, table: TxTable, pendingBefore: string): Clause | null {
  switch (kind) {
    case 'pending_too_long':
      return { sql: `final = 0 AND created_at < ? AND (last_notified_status IS NULL OR last_notified_status NOT IN (${finalCodes(table)}))`, params: [pendingBefore] };
    case 'notified_not_verified':
      return { sql: "claim_state = 'unverified'", params: [] };
    case 'status_mismatch':
      return { sql: 'mismatch = 1 AND (status_conflict IS NOT NULL OR facts_conflict IS NULL)', params: [] };
    case 'amount_mismatch':
      return { sql: 'mismatch = 1 AND facts_conflict IS NOT NULL', params: [] };
    case 'payouts_stuck':
      return table === 'payouts' ? { sql: "status_code IN ('P100', 'P101') AND created_at < ?", params: [pendingBefore] } : null;
    default:
      return null;
  }
}

/** The WHERE of the unknown_attempts list. */
const attemptWhere = (alias: string, interruptedBefore: string): Clause => ({
  sql: `${alias}state IN ('prepared', 'sending', 'unknown') AND (${alias}state = 'unknown' OR ${alias}updated_at < ?)`,
  params: [interruptedBefore],
});

const TABLE_RANK = { payins: 0, payouts: 1 } as const;

/** A row of a pay-ins and payouts list with its table's rank, the tie-break of equal times. */
interface Ranked {
  record: TransactionException;
  rank: number;
}

const isTransactionList = (kind: ExceptionKind) => kind !== 'orphans' && kind !== 'duplicates' && kind !== 'unknown_attempts';

/** Whether `a` comes before `b` in a list: newest first by (created_at, table rank, id). */
function comesFirst(a: Ranked, b: Ranked): boolean {
  if (a.record.createdAt !== b.record.createdAt) return a.record.createdAt > b.record.createdAt;
  if (a.rank !== b.rank) return a.rank > b.rank;
  return a.record.id > b.record.id;
}

/** Rows of several streams, each newest first, merged into one newest first. */
async function* newestFirst(streams: AsyncGenerator<Ranked>[]): AsyncGenerator<TransactionException> {
  const pull = async (stream: AsyncGenerator<Ranked>) => {
    const next = await stream.next();
    return next.done ? null : next.value;
  };
  const heads = await Promise.all(streams.map(async (stream) => ({ stream, row: await pull(stream) })));
  for (;;) {
    let first: (typeof heads)[number] | null = null;
    for (const head of heads) if (head.row && (first?.row == null || comesFirst(head.row, first.row))) first = head;
    if (first?.row == null) return;
    yield first.row.record;
    first.row = await pull(first.stream);
  }
}

const notificationOutcome = (kind: ExceptionKind) => (kind === 'orphans' ? 'orphan' : 'duplicate');

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
  contradicting_claim: string | null;
  last_verified_status: string | null;
  created_at: string;
  conflict: string | null;
  status_conflict: string | null;
  facts_conflict: string | null;
  claim_state: ClaimState | null;
  mismatch: number;
  final: number;
  status_category: string | null;
}

interface NotificationRow {
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
}

interface AttemptRow {
  id: number;
  profile_id: string;
  kind: AttemptKind;
  reference: string;
  state: string;
  error: string | null;
  created_at: string;
  try_count: number;
  settle_note: string | null;
  environment: string | null;
  row_id: number | null;
  gateway_id: string | null;
  method: string | null;
  amount: string | null;
  currency: string | null;
  status_code: string | null;
}

export class ExceptionsRepository {
  constructor(private readonly db: Sql) {}

  /** One page of a list, newest first. */
  async page(query: ExceptionListQuery, request: PageAfter): Promise<Page<ExceptionRecord>> {
    if (query.kind === 'orphans' || query.kind === 'duplicates') return this.notificationPage(query, request);
    if (query.kind === 'unknown_attempts') return this.attemptPage(query, request);
    return this.transactionPage(query, request);
  }

  /** How many rows a list holds. */
  async count(query: ExceptionListQuery): Promise<number> {
    const one = async (from: string, where: Clause) => {
      const scope = narrowed('', query, where);
      return (await this.db.get<{ n: number }>(`SELECT count(*) AS n FROM ${from} WHERE ${scope.sql}`, scope.params))!.n;
    };
    if (query.kind === 'orphans' || query.kind === 'duplicates') return one('notifications', { sql: `outcome = '${notificationOutcome(query.kind)}'`, params: [] });
    if (query.kind === 'unknown_attempts') return one('attempts', attemptWhere('', query.interruptedBefore));
    let total = 0;
    for (const table of ['payins', 'payouts'] as const) {
      const where = transactionWhere(query.kind, table, query.pendingBefore);
      if (where) total += await one(table, where);
    }
    return total;
  }

  /**
   * Every row of a list in the order of its pages, for an export. Each table is read once, a chunk
   * at a time, and the pay-ins and payouts of a list merged as they come: a page of those lists
   * reads both tables and keeps about half, so paging through would read every row twice.
   */
  async *rows(query: ExceptionListQuery, chunk = 1000): AsyncGenerator<ExceptionRecord> {
    if (!isTransactionList(query.kind)) {
      let cursor: string | null = null;
      do {
        const page: Page<ExceptionRecord> = await this.page(query, { cursor, limit: chunk });
        yield* page.items;
        cursor = page.nextCursor;
      } while (cursor !== null);
      return;
    }
    const streams = (['payins', 'payouts'] as const).flatMap((table) => {
      const where = transactionWhere(query.kind, table, query.pendingBefore);
      return where ? [this.tableRows(query, table, where, chunk)] : [];
    });
    yield* newestFirst(streams);
  }

  /** One table's rows of a transaction list, newest first, `chunk` rows per statement. */
  private async *tableRows(query: ExceptionListQuery, table: TxTable, where: Clause, chunk: number): AsyncGenerator<Ranked> {
    const scope = narrowed('', query, where);
    let after: [string, number] | null = null;
    for (;;) {
      const rows = await this.transactions(table, after ? { sql: `${scope.sql} AND (created_at, id) < (?, ?)`, params: [...scope.params, ...after] } : scope, chunk);
      yield* rows;
      if (rows.length < chunk) return;
      const last = rows[rows.length - 1]!.record;
      after = [last.createdAt, last.id];
    }
  }

  private async transactionPage(query: ExceptionListQuery, request: PageAfter): Promise<Page<ExceptionRecord>> {
    const after = request.cursor ? decodeCursor(request.cursor, ['string', 'number', 'number']) : null;
    const found: Ranked[] = [];
    for (const table of ['payins', 'payouts'] as const) {
      const where = transactionWhere(query.kind, table, query.pendingBefore);
      if (!where) continue;
      const rank = TABLE_RANK[table];
      const scope = narrowed('', query, where);
      const terms = [scope.sql];
      const params = [...scope.params];
      if (after) {
        // Newest first by (created_at, table rank, id), across both tables.
        const [at, afterRank, id] = after;
        if (rank < afterRank) terms.push('created_at <= ?');
        else if (rank > afterRank) terms.push('created_at < ?');
        else terms.push('(created_at, id) < (?, ?)');
        params.push(at, ...(rank === afterRank ? [id] : []));
      }
      found.push(...(await this.transactions(table, { sql: terms.join(' AND '), params }, request.limit + 1)));
    }
    found.sort((a, b) => (comesFirst(a, b) ? -1 : 1));
    const page = toPage(found.slice(0, request.limit + 1), request.limit, ({ record, rank }) => [record.createdAt, rank, record.id]);
    return { items: page.items.map(({ record }) => record), nextCursor: page.nextCursor };
  }

  /** Up to `limit` rows of one table matching `where`, newest first, each with its table's rank. */
  private async transactions(table: TxTable, where: Clause, limit: number): Promise<Ranked[]> {
    const [reference, gatewayId, rowLink] = table === 'payins' ? ['request_id', 'payin_id', 'payin_row_id'] : ['merchant_reference', 'payout_id', 'payout_row_id'];
    // A mismatch row only (its notifications on their (row, id) index, newest first).
    const contradicting = `CASE WHEN ${table}.mismatch = 1 THEN (SELECT n.status_code FROM notifications AS n
         WHERE n.${rowLink} = ${table}.id AND n.outcome = 'mismatch' AND n.status_code IS NOT NULL
           AND n.status_code <> coalesce(${table}.last_notified_status, '') ORDER BY n.id DESC LIMIT 1) END`;
    const rows = await this.db.all<TxRow>(
      `SELECT id, profile_id, ${reference} AS reference, ${gatewayId} AS gateway_id, method, amount, currency, status_code, last_notified_status,
         ${contradicting} AS contradicting_claim,
         last_verified_status, created_at, conflict, status_conflict, facts_conflict, claim_state, mismatch, final, status_category
       FROM ${table} WHERE ${where.sql} ORDER BY created_at DESC, id DESC LIMIT ?`,
      [...where.params, limit],
    );
    const subject = table === 'payins' ? 'payin' : 'payout';
    const rank = TABLE_RANK[table];
    return rows.map((r) => ({ record: toTransaction(subject, r), rank }));
  }

  private async notificationPage(query: ExceptionListQuery, request: PageAfter): Promise<Page<ExceptionRecord>> {
    const scope = narrowed('n.', query, { sql: `n.outcome = '${notificationOutcome(query.kind)}'`, params: [] });
    const terms = [scope.sql];
    const params = [...scope.params];
    idsBefore('n.', request.cursor, terms, params);
    const rows = (await this.db.all(
        `SELECT n.id, n.profile_id, n.received_at, n.event, n.transaction_ref, n.request_ref, n.status_code, n.detail, n.body,
           coalesce(n.payin_row_id, n.payout_row_id) AS row_id,
           coalesce(p.method, o.method) AS method, coalesce(p.amount, o.amount) AS amount, coalesce(p.currency, o.currency) AS currency
         FROM notifications AS n
           LEFT JOIN payins AS p ON p.id = n.payin_row_id
           LEFT JOIN payouts AS o ON o.id = n.payout_row_id
         WHERE ${terms.join(' AND ')} ORDER BY n.id DESC LIMIT ?`, [...params, request.limit + 1])) as NotificationRow[];
    return toPage(rows.map(toNotification), request.limit, (r) => [r.id]);
  }

  private async attemptPage(query: ExceptionListQuery, request: PageAfter): Promise<Page<ExceptionRecord>> {
    const scope = narrowed('a.', query, attemptWhere('a.', query.interruptedBefore));
    const terms = [scope.sql];
    const params = [...scope.params];
    idsBefore('a.', request.cursor, terms, params);
    const rows = (await this.db.all(
        `SELECT a.id, a.profile_id, a.kind, a.reference, a.state, a.error, a.created_at, a.try_count, a.settle_note,
           (SELECT environment FROM profiles WHERE id = a.profile_id) AS environment,
           coalesce(p.id, o.id) AS row_id, coalesce(p.payin_id, o.payout_id) AS gateway_id,
           coalesce(p.method, o.method) AS method, coalesce(p.amount, o.amount) AS amount, coalesce(p.currency, o.currency) AS currency,
           coalesce(p.status_code, o.status_code) AS status_code
         FROM attempts AS a
           LEFT JOIN payins AS p ON a.kind <> 'payout' AND p.request_id = a.reference AND p.profile_id = a.profile_id
           LEFT JOIN payouts AS o ON a.kind = 'payout' AND o.merchant_reference = a.reference AND o.profile_id = a.profile_id
         WHERE ${terms.join(' AND ')} ORDER BY a.id DESC LIMIT ?`, [...params, request.limit + 1])) as AttemptRow[];
    return toPage(rows.map(toAttempt), request.limit, (r) => [r.id]);
  }
}

/** A list's own condition, narrowed to one profile and to the days asked for (by the time its rows show). */
function narrowed(alias: string, query: ExceptionListQuery, where: Clause): Clause {
  const terms = [where.sql];
  const params = [...where.params];
  if (query.profileId !== undefined) {
    terms.push(`${alias}profile_id = ?`);
    params.push(query.profileId);
  }
  const column = `${alias}${query.kind === 'orphans' || query.kind === 'duplicates' ? 'received_at' : 'created_at'}`;
  const { since, until } = dayBounds(query);
  if (since) {
    terms.push(`${column} >= ?`);
    params.push(since);
  }
  if (until) {
    terms.push(`${column} < ?`);
    params.push(until);
  }
  return { sql: terms.join(' AND '), params };
}

/** The "ids below the cursor" condition of the lists ordered by id. */
function idsBefore(alias: string, cursor: string | null | undefined, terms: string[], params: SqlValue[]): void {
  const before = cursorNumber(cursor);
  if (before !== null) {
    terms.push(`${alias}id < ?`);
    params.push(before);
  }
}

const toTransaction = (subject: TransactionKind, r: TxRow): TransactionException => ({
  source: 'transaction',
  subject,
  id: r.id,
  profileId: r.profile_id,
  reference: r.reference,
  gatewayId: r.gateway_id,
  method: r.method,
  amount: r.amount,
  currency: r.currency,
  statusCode: r.status_code,
  lastNotifiedStatus: r.last_notified_status,
  contradictingClaim: r.contradicting_claim,
  lastVerifiedStatus: r.last_verified_status,
  createdAt: r.created_at,
  conflict: r.conflict,
  statusConflict: r.status_conflict,
  factsConflict: r.facts_conflict,
  claimState: r.claim_state,
  mismatch: r.mismatch === 1,
  final: r.final === 1,
  statusKnown: r.status_category !== null && r.status_category !== 'unknown',
});

const toNotification = (r: NotificationRow): NotificationException => ({
  source: 'notification',
  id: r.id,
  profileId: r.profile_id,
  receivedAt: r.received_at,
  event: r.event,
  transactionRef: r.transaction_ref,
  requestRef: r.request_ref,
  statusCode: r.status_code,
  detail: r.detail,
  body: r.body,
  rowId: r.row_id,
  method: r.method,
  amount: r.amount,
  currency: r.currency,
});

const toAttempt = (r: AttemptRow): AttemptException => ({
  source: 'attempt',
  id: r.id,
  profileId: r.profile_id,
  kind: r.kind,
  reference: r.reference,
  state: r.state,
  error: r.error,
  createdAt: r.created_at,
  tryCount: r.try_count,
  settleNote: r.settle_note,
  environment: r.environment,
  rowId: r.row_id,
  gatewayId: r.gateway_id,
  method: r.method,
  amount: r.amount,
  currency: r.currency,
  statusCode: r.status_code,
});
