// What pay-ins and payouts share: their status columns (read and written here, changed by the
// rule the services pass in: services/status-change.ts), lookups and keyset pages.
// PayinsRepository and PayoutsRepository add their own columns on top.
import { amountScale } from '../../../shared/spec/methods';
import { amountText, checkAmount, compareAmounts } from '../../../shared/money';
import { TRANSACTION_KINDS, type LedgerShape, type TransactionKind } from '../../transaction-kinds';
import type { Sql, SqlValue } from '../engine/types';
import type { StatusCategory } from '../status';
import { isoTime, type Clock } from '../support';
import { Conditions, createdPosition, pageOrderBy, pageSize, placeholders, toPage, type Page, type PageRequest } from './page';
import { toAttemptSummary, type AttemptSummary, type AttemptSummaryColumns } from './attempts';
import { toCardFacts, type CardColumns, type CardFacts } from './cards';
import { statusColumnsOf, withStatusColumns, type BaseRow, type StatusColumns, type TransactionRecord } from './transaction-record';

export type { BaseRow, StatusColumns, StatusSource, TransactionRecord, Verification } from './transaction-record';
export { toBaseRecord } from './transaction-record';

/**
 * Decides a change of the status columns held, at `at` (the services' rule: services/status-change.ts).
 * What it returns besides `next` comes back with the record written.
 */
export type StatusDecision<C extends { next: StatusColumns }> = (held: StatusColumns, at: string) => C;

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
  /** Decimal text, checked against the method's precision, stored as its currency writes it (never rounded). */
  amount: string;
  currency: string;
  email: string;
  attemptId?: number | null;
  /** The notification link sent, when a remote gateway cannot reach it (see TransactionRecord.notifyUnreachable). */
  notifyUnreachable?: string | null;
  /** The card, masked: from the form of a card pay-in or payout, from the vaulted token of a token charge. */
  card?: CardFacts | null;
}

/** The parts of a create answer (2.2, 2.3, the payout answer, or a status read's) the transaction row keeps. */
export interface CreateAnswer {
  /** payin_id / payout_id. */
  gatewayId?: string | null;
  statusCode?: string | number | null;
  reasonCode?: string | null;
  createdAt?: string | null;
  /** A pay-in's (a payout has none). */
  redirectUrl?: string | null;
}

/** How a pay-in or payout is found: by row id, request reference or the gateway's id. */
export type TransactionLookups<T extends TransactionRecord> = Pick<TransactionsStore<T, BaseRow, RequestFacts>, 'byId' | 'byReference' | 'byGatewayId'>;

/**
 * The amount as the ledger keeps it, or a RangeError: the ledger never stores a guess. It must fit
 * the method's precision (2 decimals, crypto 10), and is kept as its currency writes it (amountText:
 * a crypto payout of 15.70 EUR stays "15.70", not "15.7"), so every list, export and detail shows
 * what was sent.
 */
export function canonicalAmount(amount: string, method: string, currency: string): string {
  const checked = checkAmount(amount, amountScale(method));
  if (!checked.ok) throw new RangeError(`amount ${amount}: ${checked.message}`);
  return amountText(checked.value, currency);
}

/** The columns a status changes (TransactionsStore.applyStatus). */
const STATUS_COLUMNS = ['status_code', 'status_category', 'final', 'reason_code', 'status_changed_at', 'last_notified_status', 'last_notified_at', 'last_verified_status', 'last_verified_at', 'verified_against', 'claim_state', 'conflict', 'status_conflict', 'mismatch', 'updated_at'] as const;

/** A column of a row by its name: one a subclass adds (payout_id, redirect_url), for the writes both tables share. */
const cell = (row: BaseRow, column: string): SqlValue => (row as unknown as Record<string, SqlValue | undefined>)[column] ?? null;
const setCell = (row: BaseRow, column: string, value: SqlValue): void => {
  (row as unknown as Record<string, SqlValue>)[column] = value;
};

/**
 * Pay-ins and payouts alike: one table each, a request reference per profile (request_id /
 * merchant_reference) and the gateway's id (payin_id / payout_id), as TRANSACTION_KINDS says. The
 * subclasses say how their row, request and create answer read; everything else is here.
 */
export abstract class TransactionsStore<T extends TransactionRecord, Row extends BaseRow, Request extends RequestFacts> {
  protected readonly shape: LedgerShape;

  protected constructor(
    protected readonly db: Sql,
    protected readonly now: Clock,
    readonly kind: TransactionKind,
    /** Told of each status written, in its transaction (the notices it causes are written with it). */
    private readonly statusWritten?: (before: StatusColumns, record: T) => Promise<void>,
  ) {
    this.shape = TRANSACTION_KINDS[kind].ledger;
  }

  protected abstract toRecord(row: Row): T;

  /** The row of a request about to be sent (status null until the gateway answers). */
  abstract recordRequest(request: Request): Promise<T>;

  /** The columns of its own a create answer sets (kept when the answer has none). */
  protected abstract answerColumns(answer: CreateAnswer): Record<string, string | null>;

  /** recordRequest and recordCreateAnswer in one transaction. */
  async recordAnswered<C extends { next: StatusColumns }>(request: Request, answer: CreateAnswer, decide: StatusDecision<C>): Promise<C & { record: T }> {
    return this.db.atomic(async () => this.recordCreateAnswer((await this.recordRequest(request)).id, answer, decide));
  }

  async byId(id: number): Promise<T | undefined> {
    const row = (await this.db.get(`SELECT * FROM ${this.shape.table} WHERE id = ?`, [id])) as Row | undefined;
    return row && this.toRecord(row);
  }

  /**
   * A row with what its view shows of its create attempt and card, in one query instead of three
   * (every change of a pay-in or payout is pushed as its view).
   */
  async withViewFacts(id: number): Promise<{ record: T; attempt: AttemptSummary | undefined; card: CardFacts | undefined } | undefined> {
    const { table, cards: { table: cards, column } } = this.shape;
    const row = await this.db.get<Row & Omit<AttemptSummaryColumns, 'id'> & CardColumns & { card_row: number | null }>(
      `SELECT t.*, a.idempotency_key, a.state, a.settle_note, c.${column} AS card_row, c.brand, c.bin, c.last4, c.exp_month, c.exp_year
       FROM ${table} t LEFT JOIN attempts a ON a.id = t.attempt_id LEFT JOIN ${cards} c ON c.${column} = t.id WHERE t.id = ?`,
      [id],
    );
    if (!row) return undefined;
    return {
      record: this.toRecord(row),
      attempt: row.attempt_id === null || row.idempotency_key === null ? undefined : toAttemptSummary({ ...row, id: row.attempt_id }),
      card: row.card_row === null ? undefined : toCardFacts(row),
    };
  }

  /** The transaction of a profile by its request reference (request_id / merchantReference). */
  async byReference(profileId: string, reference: string): Promise<T | undefined> {
    const row = (await this.db.get(`SELECT * FROM ${this.shape.table} WHERE ${this.shape.reference} = ? AND profile_id = ?`, [reference, profileId])) as Row | undefined;
    return row && this.toRecord(row);
  }

  /** Of these request references, the ones a row of the profile holds already (one query for a chunk of rows). */
  async referencesTaken(profileId: string, references: readonly string[]): Promise<Set<string>> {
    if (references.length === 0) return new Set();
    const { table, reference } = this.shape;
    const rows = await this.db.all<{ reference: string }>(`SELECT ${reference} AS reference FROM ${table} WHERE profile_id = ? AND ${reference} IN (${placeholders(references)})`, [profileId, ...references]);
    return new Set(rows.map((r) => r.reference));
  }

  /** The transaction by the gateway's id (payin_id / payout_id): of a profile, or the first recorded in any. */
  async byGatewayId(gatewayId: string, profileId?: string): Promise<T | undefined> {
    const { table, gatewayId: column } = this.shape;
    const row = (
      profileId === undefined
        ? await this.db.get(`SELECT * FROM ${table} WHERE ${column} = ? ORDER BY id LIMIT 1`, [gatewayId])
        : await this.db.get(`SELECT * FROM ${table} WHERE ${column} = ? AND profile_id = ?`, [gatewayId, profileId])
    ) as Row | undefined;
    return row && this.toRecord(row);
  }

  /** Case-insensitive exact e-mail match, newest first. */
  async byEmail(email: string, limit = 100): Promise<T[]> {
    const sql = `SELECT * FROM ${this.shape.table} WHERE email = ? ORDER BY created_at DESC, id DESC LIMIT ?`;
    return ((await this.db.all(sql, [email, limit])) as Row[]).map((r) => this.toRecord(r));
  }

  /** Global search: the reference, the gateway id or the e-mail, in every profile, newest first. */
  async search(term: string, limit = 100): Promise<T[]> {
    const { table, reference, gatewayId } = this.shape;
    const sql = `SELECT * FROM ${table} WHERE id IN (
        SELECT id FROM ${table} WHERE ${reference} = @term
        UNION SELECT id FROM ${table} WHERE ${gatewayId} = @term
        UNION SELECT id FROM ${table} WHERE email = @term)
      ORDER BY created_at DESC, id DESC LIMIT @limit`;
    return ((await this.db.all(sql, { term, limit })) as Row[]).map((r) => this.toRecord(r));
  }

  /**
   * Changes the status columns of a row as `decide` says (the services' state machine), in one
   * read and one write: the row is read locked for the write (rowForWrite), so a change another
   * process commits meanwhile is not overwritten.
   */
  async changeStatus<C extends { next: StatusColumns }>(id: number, decide: StatusDecision<C>): Promise<C & { record: T }> {
    return this.db.atomic(async () => {
      const at = isoTime(this.now());
      const row = await this.rowForWrite(id);
      const before = statusColumnsOf(row);
      const change = decide(before, at);
      const next = withStatusColumns(row, change.next, at);
      await this.write(next, STATUS_COLUMNS);
      const record = this.toRecord(next);
      await this.statusWritten?.(before, record);
      return { ...change, record };
    });
  }

  /**
   * The verifier gave up on a claim the gateway never caught up with (it kept answering an
   * earlier status): the claim is contradicted, and the row is a mismatch for a human.
   */
  async contradictClaim(id: number, note: string): Promise<T> {
    const at = isoTime(this.now());
    const text = `${note} at ${at}`;
    await this.db.run(`UPDATE ${this.shape.table} SET claim_state = 'contradicted', status_conflict = coalesce(status_conflict, ?),
           conflict = coalesce(conflict, ?), mismatch = 1, updated_at = ? WHERE id = ?`, [text, text, at, id]);
    return this.byIdOrThrow(id);
  }

  /**
   * Inserts the row for a request about to be sent, or returns the one already recorded for this
   * reference by the same attempt (a redo). A row of the reference recorded by another attempt is
   * refused, as is one with other money facts: on PostgreSQL two requests with one reference can
   * both pass the caller's "is it free?" read, and the second's insert then waits for the first's
   * commit and inserts nothing; taking the first's row would send the money a second time.
   */
  protected async recordRequestRow(facts: RequestFacts, reference: string, extra: Record<string, string | null>): Promise<T> {
    const { kind } = this;
    const { table, reference: referenceColumn } = this.shape;
    const amount = canonicalAmount(facts.amount, facts.method, facts.currency);
    return this.db.atomic(async () => {
      const at = isoTime(this.now());
      const columns = ['profile_id', referenceColumn, 'method', 'amount', 'currency', 'email', 'attempt_id', 'notify_unreachable', 'created_at', 'updated_at', ...Object.keys(extra)];
      const values = [facts.profileId, reference, facts.method, amount, facts.currency, facts.email, facts.attemptId ?? null, facts.notifyUnreachable ?? null, at, at, ...Object.values(extra)];
      // One statement for a new reference; one recorded already is read (and nothing else changes).
      const inserted = await this.db.get<Row>(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')}) ON CONFLICT (${referenceColumn}, profile_id) DO NOTHING RETURNING *`, values);
      if (!inserted) {
        const existing = (await this.byReference(facts.profileId, reference))!;
        // By value: a row written before amounts followed their currency holds "15.7" for "15.70".
        const same = compareAmounts(existing.amount, amount) === 0 && existing.currency === facts.currency && existing.method === facts.method;
        if (!same) throw new RangeError(`${kind} ${reference} is already recorded with another method, amount or currency`);
        if (existing.attemptId !== (facts.attemptId ?? null)) throw new RangeError(`${kind} ${reference} is already recorded for another request`);
        return existing;
      }
      const card = facts.card;
      if (card) {
        const { table: cards, column } = this.shape.cards;
        await this.db.run(`INSERT INTO ${cards} (${column}, brand, bin, last4, exp_month, exp_year) VALUES (?, ?, ?, ?, ?, ?)`, [inserted.id, card.brand, card.bin, card.last4, card.expMonth, card.expYear]);
      }
      return this.toRecord(inserted);
    });
  }

  /**
   * Records the gateway's answer to the create call (or a status read's facts): its id (set once,
   * a different one later is a conflict), its creation time, the subclass's columns (kept when the
   * answer has none), then the status columns as `decide` says. One read and one write of the row.
   */
  async recordCreateAnswer<C extends { next: StatusColumns }>(id: number, answer: CreateAnswer, decide: StatusDecision<C>): Promise<C & { record: T }> {
    const { gatewayId } = this.shape;
    return this.db.atomic(async () => {
      const row = await this.rowForWrite(id);
      const at = isoTime(this.now());
      const held = cell(row, gatewayId);
      const extra = this.answerColumns(answer);
      const answered: Row = { ...row, gateway_created_at: row.gateway_created_at ?? answer.createdAt ?? null };
      for (const [column, value] of Object.entries(extra)) setCell(answered, column, value ?? cell(row, column));
      if (answer.gatewayId && held === null) setCell(answered, gatewayId, answer.gatewayId);
      else if (answer.gatewayId && held !== answer.gatewayId) answered.conflict ??= `${gatewayId} ${String(held)} contradicted by ${answer.gatewayId} at ${at}`;
      const before = statusColumnsOf(answered);
      const change = decide(before, at);
      const next = withStatusColumns(answered, change.next, at);
      await this.write(next, [...STATUS_COLUMNS, gatewayId, 'gateway_created_at', ...Object.keys(extra)]);
      const record = this.toRecord(next);
      await this.statusWritten?.(before, record);
      return { ...change, record };
    });
  }

  /** Sets the gateway's id when still unknown; a different id than the one held is a conflict. */
  async attachGatewayId(id: number, value: string): Promise<T> {
    const { table, gatewayId } = this.shape;
    const row = (await this.db.get(`SELECT ${gatewayId} AS current FROM ${table} WHERE id = ?`, [id])) as { current: string | null } | undefined;
    if (!row) throw new RangeError(`no ${this.kind} row ${id}`);
    if (row.current === null) {
      await this.db.run(`UPDATE ${table} SET ${gatewayId} = ?, updated_at = ? WHERE id = ?`, [value, isoTime(this.now()), id]);
    } else if (row.current !== value) {
      return this.noteConflict(id, `${gatewayId} ${row.current} contradicted by ${value}`);
    }
    return this.byIdOrThrow(id);
  }

  protected async byIdOrThrow(id: number): Promise<T> {
    return this.toRecord(await this.rowOrThrow(id));
  }

  private async rowOrThrow(id: number, lock = ''): Promise<Row> {
    const row = await this.db.get<Row>(`SELECT * FROM ${this.shape.table} WHERE id = ?${lock}`, [id]);
    if (!row) throw new RangeError(`no ${this.kind} row ${id}`);
    return row;
  }

  /**
   * The row read to be written back whole, inside the caller's transaction: on PostgreSQL locked
   * until it ends, so a change another process commits meanwhile (a notification's claim while a
   * status read is applied) is not overwritten with what was read before it (SQLite's write lock
   * already keeps the two apart).
   */
  private async rowForWrite(id: number): Promise<Row> {
    return this.rowOrThrow(id, this.db.engine === 'postgres' ? ' FOR UPDATE' : '');
  }

  /** Writes these columns of the row, in one statement. */
  private async write(row: Row, columns: readonly string[]): Promise<void> {
    await this.db.run(`UPDATE ${this.shape.table} SET ${columns.map((column) => `${column} = ?`).join(', ')} WHERE id = ?`, [...columns.map((column) => cell(row, column)), row.id]);
  }

  /**
   * Records a contradiction (kept forever; a mismatch for a human): 'facts' for the money facts of
   * a notification or read (amount, currency, reference), 'status' for a status, 'other' otherwise
   * (e.g. a second gateway id).
   */
  async noteConflict(id: number, note: string, kind: 'facts' | 'status' | 'other' = 'other'): Promise<T> {
    const { table } = this.shape;
    const at = isoTime(this.now());
    const text = `${note} at ${at}`;
    const column = kind === 'facts' ? 'facts_conflict' : kind === 'status' ? 'status_conflict' : null;
    const extra = column ? `, ${column} = coalesce(${column}, @text)` : '';
    await this.db.run(`UPDATE ${table} SET conflict = coalesce(conflict, @text)${extra}, mismatch = 1, updated_at = @at WHERE id = @id`, { text, at, id });
    return this.byIdOrThrow(id);
  }

  /** Ids of the rows not final yet, oldest first (through the partial index of open rows), of one profile or all. */
  async openIds(profileId?: string): Promise<number[]> {
    const rows = profileId === undefined
      ? (await this.db.all(`SELECT id FROM ${this.shape.table} WHERE final = 0 ORDER BY created_at, id`))
      : (await this.db.all(`SELECT id FROM ${this.shape.table} WHERE final = 0 AND profile_id = ? ORDER BY created_at, id`, [profileId]));
    return (rows as { id: number }[]).map((r) => r.id);
  }

  /** Newest first unless request.order says oldest; see page.ts for the cursor. */
  async page(filter: TransactionFilter = {}, request: PageRequest = {}): Promise<Page<T>> {
    const { sql, params, size } = this.pageQuery(filter, request);
    const rows = (await this.db.all(sql, params)) as Row[];
    return toPage(rows.map((r) => this.toRecord(r)), size, createdPosition);
  }

  /** The SQL of a page (one row more than asked); public so its query plan can be checked. */
  pageQuery(filter: TransactionFilter, request: PageRequest = {}): { sql: string; params: SqlValue[]; size: number } {
    const size = pageSize(request.limit);
    const where = this.filterConditions(filter);
    where.after(request);
    const sql = `SELECT * FROM ${this.shape.table} ${where.sql()} ${pageOrderBy(request.order)} LIMIT ?`;
    return { sql, params: [...where.params, size + 1], size };
  }

  /** How many rows match the filter (the list's total). */
  async count(filter: TransactionFilter = {}): Promise<number> {
    const where = this.filterConditions(filter);
    return ((await this.db.get(`SELECT count(*) AS n FROM ${this.shape.table} ${where.sql()}`, where.params)) as { n: number }).n;
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
  async unverifiedClaimIds(limit = 100_000): Promise<number[]> {
    const sql = `SELECT id FROM ${this.shape.table} WHERE claim_state = 'unverified' ORDER BY created_at, id LIMIT ?`;
    return ((await this.db.all(sql, [limit])) as { id: number }[]).map((r) => r.id);
  }

  /** Open rows whose notifications cannot arrive, created at or after `since`, oldest first (the status poller's queue). */
  async polledIds(since: Date, limit = 10_000): Promise<number[]> {
    const sql = `SELECT id FROM ${this.shape.table} WHERE final = 0 AND notify_unreachable IS NOT NULL AND created_at >= ? ORDER BY created_at, id LIMIT ?`;
    return ((await this.db.all(sql, [isoTime(since), limit])) as { id: number }[]).map((r) => r.id);
  }

  /** How many rows carry each status code (the code explorer's counts). */
  async countByStatus(): Promise<Map<string, number>> {
    const sql = `SELECT status_code AS code, count(*) AS n FROM ${this.shape.table} WHERE status_code IS NOT NULL GROUP BY status_code`;
    const rows = (await this.db.all(sql)) as { code: string; n: number }[];
    return new Map(rows.map((r) => [r.code, r.n]));
  }
}
