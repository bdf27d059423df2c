// Raw notifications exactly as received (bytes, headers, source, time), then what became of them.
// The listener inserts them, many per transaction (group commit); the apply step sets the outcome.
import type { Sql, SqlValue } from '../engine/types';
import { isoTime, systemClock, type Clock } from '../support';
import { Conditions, cursorNumber, MAX_PAGE_SIZE, toPage, type PageAfter, type Page } from './page';

/**
 * What became of a notification. 'stale' (older news than the status already held: it changed
 * nothing) is stored as outcome 'applied' with stale = 1, since the outcome column's CHECK predates
 * it (migration 0011); everything here reads and writes it as its own outcome.
 */
export const OUTCOMES = ['pending', 'applied', 'stale', 'duplicate', 'orphan', 'mismatch', 'malformed'] as const;
export type NotificationOutcome = (typeof OUTCOMES)[number];

/** The SQL condition of a set of outcomes, 'applied' and 'stale' told apart by the stale flag. */
function outcomeCondition(outcomes: readonly NotificationOutcome[]): { sql: string; params: string[] } {
  const plain = outcomes.filter((o) => o !== 'applied' && o !== 'stale');
  const terms = plain.length > 0 ? [`outcome IN (${plain.map(() => '?').join(', ')})`] : [];
  if (outcomes.includes('applied')) terms.push("(outcome = 'applied' AND stale = 0)");
  if (outcomes.includes('stale')) terms.push("(outcome = 'applied' AND stale = 1)");
  return { sql: `(${terms.join(' OR ')})`, params: plain };
}

export interface NewNotification {
  profileId: string;
  receivedAt: string;
  sourceAddress: string | null;
  /** req.rawHeaders: name, value, name, value… in arrival order, duplicates kept. */
  rawHeaders: readonly string[];
  body: Buffer;
  /** The size announced or seen when the body was cut at the limit; equals body.length otherwise. */
  bodySize: number;
  bodyTruncated: boolean;
  /** The HTTP status this notification is answered with once committed. */
  answerStatus: number;
  event: string | null;
  transactionRef: string | null;
  requestRef: string | null;
  statusCode: string | null;
  dedupeKey: string | null;
  outcome: 'pending' | 'malformed';
  detail: string | null;
}

export interface StoredNotification extends Omit<NewNotification, 'outcome'> {
  id: number;
  outcome: NotificationOutcome;
  payinRowId: number | null;
  payoutRowId: number | null;
  tokenRowId: number | null;
  processedAt: string | null;
  /** When the retention rule dropped the body and headers (an orphan's; the row and its facts stay). */
  rawPrunedAt: string | null;
}

/** A stored notification without its raw material (body and headers): what lists and pushes need. */
export type NotificationSummaryRecord = Omit<StoredNotification, 'body' | 'rawHeaders'>;

export interface OutcomeLinks {
  detail?: string | null;
  payinRowId?: number | null;
  payoutRowId?: number | null;
  tokenRowId?: number | null;
}

interface NotificationRow {
  id: number;
  profile_id: string;
  received_at: string;
  source_address: string | null;
  raw_headers: string;
  body: Buffer;
  body_size: number;
  body_truncated: number;
  answer_status: number;
  event: string | null;
  transaction_ref: string | null;
  request_ref: string | null;
  status_code: string | null;
  dedupe_key: string | null;
  outcome: Exclude<NotificationOutcome, 'stale'>;
  stale: number;
  detail: string | null;
  payin_row_id: number | null;
  payout_row_id: number | null;
  token_row_id: number | null;
  processed_at: string | null;
  raw_pruned_at: string | null;
}

type SummaryRow = Omit<NotificationRow, 'body' | 'raw_headers'>;

/** Every column but the raw ones, so a list never reads a body off the disk. */
const SUMMARY_COLUMNS = `id, profile_id, received_at, source_address, body_size, body_truncated, answer_status, event, transaction_ref,
  request_ref, status_code, dedupe_key, outcome, stale, detail, payin_row_id, payout_row_id, token_row_id, processed_at, raw_pruned_at`;

const toSummary = (r: SummaryRow): NotificationSummaryRecord => ({
  id: r.id,
  profileId: r.profile_id,
  receivedAt: r.received_at,
  sourceAddress: r.source_address,
  bodySize: r.body_size,
  bodyTruncated: r.body_truncated === 1,
  answerStatus: r.answer_status,
  event: r.event,
  transactionRef: r.transaction_ref,
  requestRef: r.request_ref,
  statusCode: r.status_code,
  dedupeKey: r.dedupe_key,
  outcome: r.stale === 1 ? 'stale' : r.outcome,
  detail: r.detail,
  payinRowId: r.payin_row_id,
  payoutRowId: r.payout_row_id,
  tokenRowId: r.token_row_id,
  processedAt: r.processed_at,
  rawPrunedAt: r.raw_pruned_at,
});

const toNotification = (r: NotificationRow): StoredNotification => ({
  ...toSummary(r),
  rawHeaders: JSON.parse(r.raw_headers) as string[],
  body: r.body,
});

export interface NotificationFilter {
  profileId?: string | undefined;
  outcomes?: readonly NotificationOutcome[] | undefined;
  events?: readonly string[] | undefined;
  statusCodes?: readonly string[] | undefined;
  /** Prefix of transaction_ref (payin_id / payout_id) or request_ref (request_id / merchantReference), as written. */
  search?: string | undefined;
  payinRowId?: number | undefined;
  payoutRowId?: number | undefined;
}

/** The columns a new notification fills, in the order of insertValues, with their type in the PostgreSQL batch's recordset. */
const INSERTED = [
  ['profile_id', 'text'], ['received_at', 'text'], ['source_address', 'text'], ['raw_headers', 'text'], ['body', 'text'], ['body_size', 'bigint'],
  ['body_truncated', 'integer'], ['answer_status', 'integer'], ['event', 'text'], ['transaction_ref', 'text'], ['request_ref', 'text'],
  ['status_code', 'text'], ['dedupe_key', 'text'], ['outcome', 'text'], ['detail', 'text'],
] as const;
const INSERTED_COLUMNS = INSERTED.map(([column]) => column).join(', ');

const INSERT = `INSERT INTO notifications (${INSERTED_COLUMNS}) VALUES (${INSERTED.map(() => '?').join(', ')}) RETURNING id`;

/**
 * PostgreSQL: a whole batch in one statement, its rows one JSON parameter (bodies in hex), inserted
 * in input order (ORDINALITY), so the identity gives them ascending ids in that order. One
 * statement text whatever the batch size.
 */
const INSERT_BATCH = `INSERT INTO notifications (${INSERTED_COLUMNS})
   SELECT ${INSERTED.map(([column]) => (column === 'body' ? "decode(r.body, 'hex')" : `r.${column}`)).join(', ')}
   FROM ROWS FROM (json_to_recordset(?::json) AS (${INSERTED.map(([column, type]) => `${column} ${type}`).join(', ')})) WITH ORDINALITY AS r
   ORDER BY r.ordinality
   RETURNING id`;

const insertValues = (n: NewNotification): SqlValue[] => [
  n.profileId, n.receivedAt, n.sourceAddress, JSON.stringify(n.rawHeaders), n.body, n.bodySize, n.bodyTruncated ? 1 : 0,
  n.answerStatus, n.event, n.transactionRef, n.requestRef, n.statusCode, n.dedupeKey, n.outcome, n.detail,
];

/**
 * Text as the driver sends a parameter (UTF-8): a lone surrogate (a body may carry "\ud800") becomes
 * U+FFFD. JSON would carry it as an escape PostgreSQL refuses, failing the whole batch.
 */
const utf8 = (text: string): string => (/[\ud800-\udfff]/.test(text) ? Buffer.from(text, 'utf8').toString('utf8') : text);

/** The batch's JSON parameter: each notification's insertValues under its column names, the body in hex. */
const batchJson = (notifications: readonly NewNotification[]): string =>
  JSON.stringify(notifications.map((n) => Object.fromEntries(insertValues(n).map((value, i) => [
    INSERTED[i]![0], Buffer.isBuffer(value) ? value.toString('hex') : typeof value === 'string' ? utf8(value) : value,
  ]))));

/** The filters as SQL conditions; every one given must hold. */
function filterConditions(filter: NotificationFilter): Conditions {
  const where = new Conditions().oneOf('event', filter.events).oneOf('status_code', filter.statusCodes);
  if (filter.profileId !== undefined) where.add('profile_id = ?', filter.profileId);
  if (filter.outcomes && filter.outcomes.length > 0) {
    const condition = outcomeCondition(filter.outcomes);
    where.add(condition.sql, ...condition.params);
  }
  if (filter.payinRowId !== undefined) where.add('payin_row_id = ?', filter.payinRowId);
  if (filter.payoutRowId !== undefined) where.add('payout_row_id = ?', filter.payoutRowId);
  if (filter.search !== undefined && filter.search !== '') {
    // Prefix ranges: one range scan per column of the processed rows' indexes (migration 0013,
    // whose WHERE the first two branches repeat verbatim), plus the few pending rows by theirs.
    const low = filter.search;
    const high = `${filter.search}\u{10FFFF}`;
    where.add(
      `id IN (SELECT id FROM notifications WHERE outcome <> 'pending' AND transaction_ref >= ? AND transaction_ref < ?
         UNION SELECT id FROM notifications WHERE outcome <> 'pending' AND request_ref >= ? AND request_ref < ?
         UNION SELECT id FROM notifications WHERE outcome = 'pending' AND (transaction_ref >= ? AND transaction_ref < ? OR request_ref >= ? AND request_ref < ?))`,
      low, high, low, high, low, high, low, high,
    );
  }
  return where;
}

export class NotificationsRepository {
  constructor(
    private readonly db: Sql,
    private readonly now: Clock = systemClock,
  ) {}

  async insert(notification: NewNotification): Promise<number> {
    const [id] = await this.insertMany([notification]);
    return id as number;
  }

  /**
   * All in one transaction: one durable commit (one fsync) for the whole batch; ids in input order.
   * This is the listener's hot path (thousands of rows per second): on SQLite every statement runs
   * at once inside the engine, on one compiled statement.
   */
  async insertMany(notifications: readonly NewNotification[]): Promise<number[]> {
    if (this.db.engine === 'postgres') {
      // One statement, so one round trip and atomic without BEGIN and COMMIT (two more): a row
      // per round trip capped the listener far below its target on PostgreSQL (bench/postgres.ts).
      if (notifications.length === 0) return [];
      // The identity is drawn as the rows are inserted, in ORDINALITY order: ascending ids are input order,
      // whatever order RETURNING lists them in.
      return (await this.db.all<{ id: number }>(INSERT_BATCH, [batchJson(notifications)])).map((r) => r.id).sort((a, b) => a - b);
    }
    return this.db.atomic(async () => {
      const ids: number[] = [];
      for (const n of notifications) ids.push((await this.db.get<{ id: number }>(INSERT, insertValues(n)))!.id);
      return ids;
    });
  }

  async byId(id: number): Promise<StoredNotification | undefined> {
    const row = (await this.db.get('SELECT * FROM notifications WHERE id = ?', [id])) as NotificationRow | undefined;
    return row && toNotification(row);
  }

  /** Records what became of a notification; resolves with its summary as it now stands. */
  async markOutcome(id: number, outcome: Exclude<NotificationOutcome, 'pending'>, links: OutcomeLinks = {}): Promise<NotificationSummaryRecord> {
    const row = await this.db.get<SummaryRow>(`UPDATE notifications SET outcome = ?, stale = ?, detail = coalesce(?, detail), payin_row_id = coalesce(?, payin_row_id),
           payout_row_id = coalesce(?, payout_row_id), token_row_id = coalesce(?, token_row_id), processed_at = ?
         WHERE id = ? RETURNING ${SUMMARY_COLUMNS}`, [outcome === 'stale' ? 'applied' : outcome, outcome === 'stale' ? 1 : 0, links.detail ?? null, links.payinRowId ?? null, links.payoutRowId ?? null, links.tokenRowId ?? null,
        isoTime(this.now()), id]);
    if (!row) throw new RangeError(`no notification ${id}`);
    return toSummary(row);
  }

  /**
   * Inside a transaction that applies notifications: one such transaction at a time (PostgreSQL:
   * an advisory lock until it ends, across processes), so each sees the outcomes the one before it
   * committed and two copies of one notification are never both taken for the original. SQLite's
   * write transaction already runs alone.
   */
  async lockForApplying(): Promise<void> {
    await this.db.lock('applier');
  }

  /**
   * The earliest other notification of this profile with the same dedupe key already processed
   * (anything but pending, malformed or itself a duplicate): this one is a duplicate of it.
   * Received before or after this one: a copy can be applied first (the listener takes new ones
   * while start-up still applies those an earlier run left pending), and the one applied first is
   * the original.
   */
  async firstWithSameKey(id: number): Promise<StoredNotification | undefined> {
    // The first outcome term is the partial index's (notifications_processed_dedupe, migration 0008),
    // written as it is there so SQLite uses the index; a copy that is itself a duplicate is no original.
    const row = (await this.db.get(`SELECT other.* FROM notifications AS self
           JOIN notifications AS other ON other.dedupe_key = self.dedupe_key AND other.profile_id = self.profile_id
         WHERE self.id = ? AND other.id <> self.id AND other.outcome NOT IN ('pending', 'malformed') AND other.outcome <> 'duplicate'
         ORDER BY other.id LIMIT 1`, [id])) as NotificationRow | undefined;
    return row && toNotification(row);
  }

  /** Notifications with this one's dedupe key received after it and marked duplicate, oldest first. */
  async laterDuplicates(id: number): Promise<StoredNotification[]> {
    // The outcome terms match the partial index notifications_processed_dedupe (migration 0008).
    const rows = (await this.db.all(`SELECT other.* FROM notifications AS self
           JOIN notifications AS other ON other.dedupe_key = self.dedupe_key AND other.profile_id = self.profile_id
         WHERE self.id = ? AND other.id > self.id AND other.outcome NOT IN ('pending', 'malformed') AND other.outcome = 'duplicate'
         ORDER BY other.id`, [id])) as NotificationRow[];
    return rows.map(toNotification);
  }

  /** Orphans waiting for this transaction, by its gateway id or its merchant reference, oldest first. */
  async orphansFor(profileId: string, refs: { transactionRef?: string | null; requestRef?: string | null }): Promise<StoredNotification[]> {
    const rows = (await this.db.all(`SELECT * FROM notifications WHERE id IN (
           SELECT id FROM notifications WHERE outcome = 'orphan' AND transaction_ref = @tx AND profile_id = @profileId
           UNION SELECT id FROM notifications WHERE outcome = 'orphan' AND request_ref = @req AND profile_id = @profileId)
         ORDER BY id`, { tx: refs.transactionRef ?? null, req: refs.requestRef ?? null, profileId })) as NotificationRow[];
    return rows.map(toNotification);
  }

  /** Orphans (any profile) whose gateway id or merchant reference is `ref`, newest first. */
  async orphansByReference(ref: string, limit = 20): Promise<StoredNotification[]> {
    const rows = (await this.db.all(`SELECT * FROM notifications WHERE id IN (
           SELECT id FROM notifications WHERE outcome = 'orphan' AND transaction_ref = @ref
           UNION SELECT id FROM notifications WHERE outcome = 'orphan' AND request_ref = @ref)
         ORDER BY id DESC LIMIT @limit`, { ref, limit })) as NotificationRow[];
    return rows.map(toNotification);
  }

  /** Stored but not yet applied (after a crash between commit and apply), oldest first. */
  async pendingIds(limit = 1000): Promise<number[]> {
    return ((await this.db.all("SELECT id FROM notifications WHERE outcome = 'pending' ORDER BY id LIMIT ?", [limit])) as { id: number }[]).map(
      (r) => r.id,
    );
  }

  /** Notifications with this outcome, oldest first (orphan, duplicate and mismatch are indexed). */
  async withOutcome(outcome: NotificationOutcome, limit = 1000): Promise<StoredNotification[]> {
    if (!OUTCOMES.includes(outcome)) throw new RangeError(`unknown outcome ${String(outcome)}`);
    // A literal, not a parameter, so SQLite can use the partial index of that outcome.
    const where = outcome === 'applied' || outcome === 'stale' ? `outcome = 'applied' AND stale = ${outcome === 'stale' ? 1 : 0}` : `outcome = '${outcome}'`;
    const rows = (await this.db.all(`SELECT * FROM notifications WHERE ${where} ORDER BY id LIMIT ?`, [limit]));
    return (rows as NotificationRow[]).map(toNotification);
  }

  async forPayin(payinRowId: number): Promise<StoredNotification[]> {
    return ((await this.db.all('SELECT * FROM notifications WHERE payin_row_id = ? ORDER BY id', [payinRowId])) as NotificationRow[]).map(toNotification);
  }

  async forPayout(payoutRowId: number): Promise<StoredNotification[]> {
    return ((await this.db.all('SELECT * FROM notifications WHERE payout_row_id = ? ORDER BY id', [payoutRowId])) as NotificationRow[]).map(toNotification);
  }

  async summaryById(id: number): Promise<NotificationSummaryRecord | undefined> {
    const row = (await this.db.get(`SELECT ${SUMMARY_COLUMNS} FROM notifications WHERE id = ?`, [id])) as SummaryRow | undefined;
    return row && toSummary(row);
  }

  /** The webhook inspector's list, newest first (keyset on id: ids follow arrival order), without bodies or headers. */
  async summaryPage(filter: NotificationFilter, request: PageAfter): Promise<Page<NotificationSummaryRecord>> {
    const where = filterConditions(filter);
    const before = cursorNumber(request.cursor);
    if (before !== null) where.add('id < ?', before);
    const size = Math.min(request.limit, MAX_PAGE_SIZE);
    const rows = await this.db.all(`SELECT ${SUMMARY_COLUMNS} FROM notifications ${where.sql()} ORDER BY id DESC LIMIT ?`, [...where.params, size + 1]);
    return toPage((rows as SummaryRow[]).map(toSummary), size, (n) => [n.id]);
  }

  /** How many notifications the list holds under these filters (its total). */
  async count(filter: NotificationFilter): Promise<number> {
    const where = filterConditions(filter);
    return ((await this.db.get(`SELECT count(*) AS n FROM notifications ${where.sql()}`, where.params)) as { n: number }).n;
  }
}
