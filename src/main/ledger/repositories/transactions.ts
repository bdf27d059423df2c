// What pay-ins and payouts share: status progression (forward only), notified / verified
// tracking, mismatch detection, lookups and keyset pages. PayinsRepository and
// PayoutsRepository add their own columns on top.
import { amountScale } from '../../../shared/spec/methods';
import { checkAmount } from '../../../shared/money';
import type { Statement } from 'better-sqlite3';
import type { Ledger } from '../connection';
import { decideTransition, resolveClaim, statusFacts, type ClaimResolution, type StatusCategory, type TransactionKind, type TransitionOutcome } from '../status';
import { isoTime, StatementCache, toFlag, type Clock } from '../support';
import { Conditions, pageOrderBy, pageSize, toPage, type Page, type PageRequest } from './page';
import { isMismatch, type BaseRow, type StatusSource, type TransactionRecord } from './transaction-record';

export type { BaseRow, StatusSource, TransactionRecord, Verification } from './transaction-record';
export { toBaseRecord } from './transaction-record';

export interface StatusUpdate {
  statusCode: string | number;
  reasonCode?: string | null;
  source: StatusSource;
}

/** A transition of the held status, or for a notification 'claimed': it claims a later status than the one held. */
export type StatusOutcome = TransitionOutcome | 'claimed';

/** What a create answer or status read did to an unverified notified claim ('none': there was none). */
export type ClaimOutcome = ClaimResolution | 'none';

export interface StatusApplied<T> {
  outcome: StatusOutcome;
  record: T;
  claim: ClaimOutcome;
}

export interface TransactionFilter {
  profileId?: string;
  statusCodes?: readonly string[];
  reasonCodes?: readonly string[];
  categories?: readonly StatusCategory[];
  methods?: readonly string[];
  currencies?: readonly string[];
  /** Inclusive lower bound on created_at. */
  createdFrom?: Date | string;
  /** Exclusive upper bound on created_at. */
  createdTo?: Date | string;
  mismatch?: boolean;
  final?: boolean;
  /** Prefix of the reference (request_id / merchantReference), the gateway id or the e-mail (any case). */
  search?: string;
}

/** What the ledger knows of a create request before it is sent. */
export interface RequestFacts {
  profileId: string;
  method: string;
  /** Decimal text; stored in canonical form for the method's scale (checked, never rounded). */
  amount: string;
  currency: string;
  email: string;
  attemptId?: number | null;
}

/** The parts of a create answer (2.2, 2.3 or the payout answer) the transaction row keeps. */
export interface CreateAnswer {
  gatewayId?: string | null;
  statusCode?: string | number | null;
  reasonCode?: string | null;
  createdAt?: string | null;
}

export interface TableShape {
  table: 'payins' | 'payouts';
  kind: TransactionKind;
  reference: 'request_id' | 'merchant_reference';
  gatewayId: 'payin_id' | 'payout_id';
}

/** The exact canonical amount for this method, or a RangeError: the ledger never stores a guess. */
export function canonicalAmount(amount: string, method: string): string {
  const checked = checkAmount(amount, amountScale(method));
  if (!checked.ok) throw new RangeError(`amount ${amount}: ${checked.message}`);
  return checked.value;
}

/** Distinct statements kept compiled per table (filtered pages vary their SQL). */
const CACHED_STATEMENTS = 256;

export abstract class TransactionsStore<T extends TransactionRecord, Row extends BaseRow> {
  private readonly statements: StatementCache;

  protected constructor(
    protected readonly db: Ledger,
    protected readonly now: Clock,
    protected readonly shape: TableShape,
  ) {
    this.statements = new StatementCache(db, CACHED_STATEMENTS);
  }

  protected abstract toRecord(row: Row): T;

  protected sql(text: string): Statement {
    return this.statements.sql(text);
  }

  byId(id: number): T | undefined {
    const row = this.sql(`SELECT * FROM ${this.shape.table} WHERE id = ?`).get(id) as Row | undefined;
    return row && this.toRecord(row);
  }

  /** Case-insensitive exact e-mail match, newest first. */
  byEmail(email: string, limit = 100): T[] {
    const sql = `SELECT * FROM ${this.shape.table} WHERE email = ? ORDER BY created_at DESC, id DESC LIMIT ?`;
    return (this.sql(sql).all(email, limit) as Row[]).map((r) => this.toRecord(r));
  }

  /** Global search: the reference, the gateway id or the e-mail, in every profile, newest first. */
  search(term: string, limit = 100): T[] {
    const { table, reference, gatewayId } = this.shape;
    const sql = `SELECT * FROM ${table} WHERE id IN (
        SELECT id FROM ${table} WHERE ${reference} = @term
        UNION SELECT id FROM ${table} WHERE ${gatewayId} = @term
        UNION SELECT id FROM ${table} WHERE email = @term)
      ORDER BY created_at DESC, id DESC LIMIT @limit`;
    return (this.sql(sql).all({ term, limit }) as Row[]).map((r) => this.toRecord(r));
  }

  /**
   * Applies a status from the create answer, a notification or a status read, forward only.
   *
   * Only the gateway's own answers (create answer, status read) move status_code. A notification
   * carries no signature (spec 5, rule 6), so it is recorded as a claim: last_notified_status
   * (forward only) and claim_state 'unverified' until a create answer or status read agrees
   * ('verified') or says another final result ('contradicted', a mismatch). Its outcome says how
   * the claim relates to the status held: 'claimed' (later than it: read the status), 'unchanged',
   * 'stale' (older news) or 'conflict' (another final result than the one held: a mismatch).
   * The status read's own column (last verified) is always updated, even when the ledger status
   * does not move, so "what was notified" and "what the gateway says" stay visible.
   */
  applyStatus(id: number, update: StatusUpdate): StatusApplied<T> {
    const { table, kind } = this.shape;
    return this.db.transaction(() => {
      const row = this.sql(`SELECT * FROM ${table} WHERE id = ?`).get(id) as Row | undefined;
      if (!row) throw new RangeError(`no ${kind} row ${id}`);
      const at = isoTime(this.now());
      const incoming = statusFacts(kind, update.statusCode);
      const current = row.status_code === null ? null : statusFacts(kind, row.status_code);
      const relation = decideTransition(kind, current, incoming);
      const next: BaseRow = { ...row, updated_at: at };
      let statusNote: string | null = null;
      let claim: ClaimOutcome = 'none';
      let outcome: StatusOutcome = relation;

      if (update.source === 'notification') {
        const notified = row.last_notified_status === null ? null : statusFacts(kind, row.last_notified_status);
        const notifiedMove = decideTransition(kind, notified, incoming);
        // Ahead of the held status: a claim, unless an earlier notification already claimed more.
        if (relation === 'advanced') outcome = notifiedMove === 'stale' || notifiedMove === 'conflict' ? notifiedMove : 'claimed';
        if (notifiedMove === 'advanced') {
          Object.assign(next, { last_notified_status: incoming.code, last_notified_at: at });
          next.claim_state = relation === 'advanced' ? 'unverified' : relation === 'conflict' ? 'contradicted' : 'verified';
        } else if (notifiedMove === 'conflict') {
          statusNote = `notification claims final status ${incoming.code} after another claimed ${row.last_notified_status} at ${at}`;
        }
        if (relation === 'conflict') statusNote = `final status ${row.status_code} contradicted by notification status ${incoming.code} at ${at}`;
      } else {
        if (relation === 'advanced') {
          Object.assign(next, {
            status_code: incoming.code,
            status_category: incoming.category,
            final: toFlag(incoming.final),
            reason_code: update.reasonCode ?? null,
            status_changed_at: at,
          });
        } else if (relation === 'unchanged' && next.reason_code === null && update.reasonCode) {
          next.reason_code = update.reasonCode;
        }
        if (update.source === 'status_read') {
          Object.assign(next, { last_verified_status: incoming.code, last_verified_at: at, verified_against: next.status_code });
        }
        if (relation === 'conflict' && update.source === 'create') statusNote = `final status ${row.status_code} contradicted by create status ${incoming.code} at ${at}`;
        if (row.claim_state === 'unverified' && row.last_notified_status !== null) {
          claim = resolveClaim(kind, statusFacts(kind, row.last_notified_status), incoming);
          if (claim === 'verified') next.claim_state = 'verified';
          if (claim === 'contradicted') {
            next.claim_state = 'contradicted';
            statusNote = `notified status ${row.last_notified_status} contradicted by the gateway's ${update.source.replace('_', ' ')} status ${incoming.code} at ${at}`;
          }
        }
      }
      if (statusNote !== null) {
        next.status_conflict ??= statusNote;
        next.conflict ??= statusNote;
      }
      next.mismatch = toFlag(isMismatch(next));
      this.sql(
          `UPDATE ${table} SET status_code = ?, status_category = ?, final = ?, reason_code = ?, status_changed_at = ?,
             last_notified_status = ?, last_notified_at = ?, last_verified_status = ?, last_verified_at = ?, verified_against = ?,
             claim_state = ?, conflict = ?, status_conflict = ?, mismatch = ?, updated_at = ? WHERE id = ?`,
        )
        .run(next.status_code, next.status_category, next.final, next.reason_code, next.status_changed_at, next.last_notified_status,
          next.last_notified_at, next.last_verified_status, next.last_verified_at, next.verified_against, next.claim_state, next.conflict,
          next.status_conflict, next.mismatch, next.updated_at, id);
      return { outcome, record: this.toRecord(next as Row), claim };
    })();
  }

  /**
   * The verifier gave up on a claim the gateway never caught up with (it kept answering an
   * earlier status): the claim is contradicted, and the row is a mismatch for a human.
   */
  contradictClaim(id: number, note: string): T {
    const at = isoTime(this.now());
    const text = `${note} at ${at}`;
    this.sql(
        `UPDATE ${this.shape.table} SET claim_state = 'contradicted', status_conflict = coalesce(status_conflict, ?),
           conflict = coalesce(conflict, ?), mismatch = 1, updated_at = ? WHERE id = ?`,
      )
      .run(text, text, at, id);
    return this.byIdOrThrow(id);
  }

  /**
   * Inserts the row for a request about to be sent, or returns the one already recorded for
   * this reference (a redo after a crash). The same reference with other money facts is refused.
   */
  protected recordRequestRow(facts: RequestFacts, reference: string, extra: Record<string, string | null>): T {
    const { table, kind, reference: referenceColumn } = this.shape;
    const amount = canonicalAmount(facts.amount, facts.method);
    return this.db.transaction(() => {
      const existing = this.sql(`SELECT * FROM ${table} WHERE ${referenceColumn} = ? AND profile_id = ?`)
        .get(reference, facts.profileId) as Row | undefined;
      if (existing) {
        const same = existing.amount === amount && existing.currency === facts.currency && existing.method === facts.method;
        if (!same) throw new RangeError(`${kind} ${reference} is already recorded with another method, amount or currency`);
        return this.toRecord(existing);
      }
      const at = isoTime(this.now());
      const columns = ['profile_id', referenceColumn, 'method', 'amount', 'currency', 'email', 'attempt_id', 'created_at', 'updated_at', ...Object.keys(extra)];
      const values = [facts.profileId, reference, facts.method, amount, facts.currency, facts.email, facts.attemptId ?? null, at, at, ...Object.values(extra)];
      const id = this.sql(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`)
        .run(...values).lastInsertRowid;
      return this.byIdOrThrow(Number(id));
    })();
  }

  /**
   * Records the gateway's answer to the create call: its id (set once, a different one later is a
   * conflict), its creation time, extra columns, then the status like any other source.
   */
  protected applyCreateAnswerRow(id: number, answer: CreateAnswer, extra: Record<string, string | null>): StatusApplied<T> {
    const { table } = this.shape;
    return this.db.transaction(() => {
      this.byIdOrThrow(id);
      if (answer.gatewayId) this.attachGatewayId(id, answer.gatewayId);
      const sets = Object.keys(extra).map((column) => `${column} = coalesce(?, ${column})`);
      this.sql(`UPDATE ${table} SET ${[...sets, 'gateway_created_at = coalesce(gateway_created_at, ?)', 'updated_at = ?'].join(', ')} WHERE id = ?`)
        .run(...Object.values(extra), answer.createdAt ?? null, isoTime(this.now()), id);
      if (answer.statusCode === undefined || answer.statusCode === null) {
        return { outcome: 'unchanged' as const, record: this.byIdOrThrow(id), claim: 'none' as const };
      }
      return this.applyStatus(id, { statusCode: answer.statusCode, reasonCode: answer.reasonCode ?? null, source: 'create' });
    })();
  }

  /** Sets the gateway's id when still unknown; a different id than the one held is a conflict. */
  attachGatewayId(id: number, value: string): T {
    const { table, gatewayId } = this.shape;
    const row = this.sql(`SELECT ${gatewayId} AS current FROM ${table} WHERE id = ?`).get(id) as { current: string | null } | undefined;
    if (!row) throw new RangeError(`no ${this.shape.kind} row ${id}`);
    if (row.current === null) {
      this.sql(`UPDATE ${table} SET ${gatewayId} = ?, updated_at = ? WHERE id = ?`).run(value, isoTime(this.now()), id);
    } else if (row.current !== value) {
      return this.noteConflict(id, `${gatewayId} ${row.current} contradicted by ${value}`);
    }
    return this.byIdOrThrow(id);
  }

  protected byIdOrThrow(id: number): T {
    const record = this.byId(id);
    if (!record) throw new RangeError(`no ${this.shape.kind} row ${id}`);
    return record;
  }

  /**
   * Records a contradiction (kept forever; a mismatch for a human): 'facts' for the money facts of
   * a notification or read (amount, currency, reference), 'status' for a status, 'other' otherwise
   * (e.g. a second gateway id).
   */
  noteConflict(id: number, note: string, kind: 'facts' | 'status' | 'other' = 'other'): T {
    const { table } = this.shape;
    const at = isoTime(this.now());
    const text = `${note} at ${at}`;
    const column = kind === 'facts' ? 'facts_conflict' : kind === 'status' ? 'status_conflict' : null;
    const extra = column ? `, ${column} = coalesce(${column}, @text)` : '';
    this.sql(`UPDATE ${table} SET conflict = coalesce(conflict, @text)${extra}, mismatch = 1, updated_at = @at WHERE id = @id`)
      .run({ text, at, id });
    return this.byIdOrThrow(id);
  }

  /** Newest first unless request.order says oldest; see page.ts for the cursor. */
  page(filter: TransactionFilter = {}, request: PageRequest = {}): Page<T> {
    const { sql, params, size } = this.pageQuery(filter, request);
    const rows = this.sql(sql).all(...params) as Row[];
    return toPage(rows.map((r) => this.toRecord(r)), size);
  }

  /** The SQL of a page (one row more than asked); public so its query plan can be checked. */
  pageQuery(filter: TransactionFilter, request: PageRequest = {}): { sql: string; params: unknown[]; size: number } {
    const size = pageSize(request.limit);
    const where = this.filterConditions(filter);
    where.after(request);
    const sql = `SELECT * FROM ${this.shape.table} ${where.sql()} ${pageOrderBy(request.order)} LIMIT ?`;
    return { sql, params: [...where.params, size + 1], size };
  }

  /** How many rows match the filter (the list's total). */
  count(filter: TransactionFilter = {}): number {
    const where = this.filterConditions(filter);
    return (this.sql(`SELECT count(*) AS n FROM ${this.shape.table} ${where.sql()}`).get(...where.params) as { n: number }).n;
  }

  private filterConditions(filter: TransactionFilter): Conditions {
    const { table, reference, gatewayId } = this.shape;
    const where = new Conditions()
      .oneOf('status_code', filter.statusCodes)
      .oneOf('reason_code', filter.reasonCodes)
      .oneOf('status_category', filter.categories)
      .oneOf('method', filter.methods)
      .oneOf('currency', filter.currencies);
    if (filter.profileId !== undefined) where.add('profile_id = ?', filter.profileId);
    if (filter.createdFrom !== undefined) where.add('created_at >= ?', isoTime(filter.createdFrom));
    if (filter.createdTo !== undefined) where.add('created_at < ?', isoTime(filter.createdTo));
    // Literals, not parameters, so SQLite can use the partial indexes (WHERE mismatch = 1 / final = 0).
    if (filter.mismatch !== undefined) where.add(filter.mismatch ? 'mismatch = 1' : 'mismatch = 0');
    if (filter.final !== undefined) where.add(filter.final ? 'final = 1' : 'final = 0');
    if (filter.search !== undefined && filter.search !== '') {
      // Prefix ranges, one index range scan per column (the e-mail index is NOCASE like its column).
      const low = filter.search;
      const high = `${filter.search}\u{10FFFF}`;
      where.add(
        `id IN (SELECT id FROM ${table} WHERE ${reference} >= ? AND ${reference} < ?
           UNION SELECT id FROM ${table} WHERE ${gatewayId} >= ? AND ${gatewayId} < ?
           UNION SELECT id FROM ${table} WHERE email >= ? AND email < ?)`,
        low, high, low, high, low, high,
      );
    }
    return where;
  }

  /** Rows whose notified claim no gateway answer has confirmed yet, oldest first (partial index). */
  unverifiedClaimIds(limit = 100_000): number[] {
    const sql = `SELECT id FROM ${this.shape.table} WHERE claim_state = 'unverified' ORDER BY created_at, id LIMIT ?`;
    return (this.sql(sql).all(limit) as { id: number }[]).map((r) => r.id);
  }

  /** How many rows carry each status code (the code explorer's counts). */
  countByStatus(): Map<string, number> {
    const sql = `SELECT status_code AS code, count(*) AS n FROM ${this.shape.table} WHERE status_code IS NOT NULL GROUP BY status_code`;
    const rows = this.sql(sql).all() as { code: string; n: number }[];
    return new Map(rows.map((r) => [r.code, r.n]));
  }
}
