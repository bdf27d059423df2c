// Raw notifications exactly as received (bytes, headers, source, time), then what became of them.
// The listener inserts them, many per transaction (group commit); the apply step sets the outcome.
import type { Ledger } from '../connection';
import { isoTime, systemClock, type Clock } from '../support';

export const OUTCOMES = ['pending', 'applied', 'duplicate', 'orphan', 'mismatch', 'malformed'] as const;
export type NotificationOutcome = (typeof OUTCOMES)[number];

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
}

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
  outcome: NotificationOutcome;
  detail: string | null;
  payin_row_id: number | null;
  payout_row_id: number | null;
  token_row_id: number | null;
  processed_at: string | null;
}

const toNotification = (r: NotificationRow): StoredNotification => ({
  id: r.id,
  profileId: r.profile_id,
  receivedAt: r.received_at,
  sourceAddress: r.source_address,
  rawHeaders: JSON.parse(r.raw_headers) as string[],
  body: r.body,
  bodySize: r.body_size,
  bodyTruncated: r.body_truncated === 1,
  answerStatus: r.answer_status,
  event: r.event,
  transactionRef: r.transaction_ref,
  requestRef: r.request_ref,
  statusCode: r.status_code,
  dedupeKey: r.dedupe_key,
  outcome: r.outcome,
  detail: r.detail,
  payinRowId: r.payin_row_id,
  payoutRowId: r.payout_row_id,
  tokenRowId: r.token_row_id,
  processedAt: r.processed_at,
});

export interface NotificationFilter {
  profileId?: string;
  outcomes?: readonly NotificationOutcome[];
  /** Newest first, ids below this one (keyset on id: ids follow arrival order). */
  beforeId?: number;
  limit?: number;
}

export class NotificationsRepository {
  /** Prepared once: this is the listener's hot path (thousands of rows per second). */
  private readonly insertBatch: (notifications: readonly NewNotification[]) => number[];

  constructor(
    private readonly db: Ledger,
    private readonly now: Clock = systemClock,
  ) {
    const insert = db.prepare(
      `INSERT INTO notifications (profile_id, received_at, source_address, raw_headers, body, body_size, body_truncated,
         answer_status, event, transaction_ref, request_ref, status_code, dedupe_key, outcome, detail)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.insertBatch = db.transaction((notifications: readonly NewNotification[]) =>
      notifications.map((n) =>
        Number(
          insert.run(n.profileId, n.receivedAt, n.sourceAddress, JSON.stringify(n.rawHeaders), n.body, n.bodySize, n.bodyTruncated ? 1 : 0,
            n.answerStatus, n.event, n.transactionRef, n.requestRef, n.statusCode, n.dedupeKey, n.outcome, n.detail).lastInsertRowid,
        ),
      ),
    );
  }

  insert(notification: NewNotification): number {
    const [id] = this.insertMany([notification]);
    return id as number;
  }

  /** All in one transaction: one durable commit (one fsync) for the whole batch; ids in input order. */
  insertMany(notifications: readonly NewNotification[]): number[] {
    return this.insertBatch(notifications);
  }

  byId(id: number): StoredNotification | undefined {
    const row = this.db.prepare('SELECT * FROM notifications WHERE id = ?').get(id) as NotificationRow | undefined;
    return row && toNotification(row);
  }

  markOutcome(id: number, outcome: Exclude<NotificationOutcome, 'pending'>, links: OutcomeLinks = {}): void {
    const result = this.db
      .prepare(
        `UPDATE notifications SET outcome = ?, detail = coalesce(?, detail), payin_row_id = coalesce(?, payin_row_id),
           payout_row_id = coalesce(?, payout_row_id), token_row_id = coalesce(?, token_row_id), processed_at = ?
         WHERE id = ?`,
      )
      .run(outcome, links.detail ?? null, links.payinRowId ?? null, links.payoutRowId ?? null, links.tokenRowId ?? null,
        isoTime(this.now()), id);
    if (result.changes === 0) throw new RangeError(`no notification ${id}`);
  }

  /**
   * The earliest notification of this profile received before this one with the same dedupe key
   * and already processed (anything but pending or malformed): this one is a duplicate of it.
   */
  firstWithSameKey(id: number): StoredNotification | undefined {
    // The outcome terms match the partial index notifications_processed_dedupe (migration 0008).
    const row = this.db
      .prepare(
        `SELECT other.* FROM notifications AS self
           JOIN notifications AS other ON other.dedupe_key = self.dedupe_key AND other.profile_id = self.profile_id
         WHERE self.id = ? AND other.id < self.id AND other.outcome NOT IN ('pending', 'malformed')
         ORDER BY other.id LIMIT 1`,
      )
      .get(id) as NotificationRow | undefined;
    return row && toNotification(row);
  }

  /** Notifications with this one's dedupe key received after it and marked duplicate, oldest first. */
  laterDuplicates(id: number): StoredNotification[] {
    // The outcome terms match the partial index notifications_processed_dedupe (migration 0008).
    const rows = this.db
      .prepare(
        `SELECT other.* FROM notifications AS self
           JOIN notifications AS other ON other.dedupe_key = self.dedupe_key AND other.profile_id = self.profile_id
         WHERE self.id = ? AND other.id > self.id AND other.outcome NOT IN ('pending', 'malformed') AND other.outcome = 'duplicate'
         ORDER BY other.id`,
      )
      .all(id) as NotificationRow[];
    return rows.map(toNotification);
  }

  /** Orphans waiting for this transaction, by its gateway id or its merchant reference, oldest first. */
  orphansFor(profileId: string, refs: { transactionRef?: string | null; requestRef?: string | null }): StoredNotification[] {
    const rows = this.db
      .prepare(
        `SELECT * FROM notifications WHERE id IN (
           SELECT id FROM notifications WHERE outcome = 'orphan' AND transaction_ref = @tx AND profile_id = @profileId
           UNION SELECT id FROM notifications WHERE outcome = 'orphan' AND request_ref = @req AND profile_id = @profileId)
         ORDER BY id`,
      )
      .all({ tx: refs.transactionRef ?? null, req: refs.requestRef ?? null, profileId }) as NotificationRow[];
    return rows.map(toNotification);
  }

  /** Orphans (any profile) whose gateway id or merchant reference is `ref`, newest first. */
  orphansByReference(ref: string, limit = 20): StoredNotification[] {
    const rows = this.db
      .prepare(
        `SELECT * FROM notifications WHERE id IN (
           SELECT id FROM notifications WHERE outcome = 'orphan' AND transaction_ref = @ref
           UNION SELECT id FROM notifications WHERE outcome = 'orphan' AND request_ref = @ref)
         ORDER BY id DESC LIMIT @limit`,
      )
      .all({ ref, limit }) as NotificationRow[];
    return rows.map(toNotification);
  }

  /** Stored but not yet applied (after a crash between commit and apply), oldest first. */
  pendingIds(limit = 1000): number[] {
    return (this.db.prepare("SELECT id FROM notifications WHERE outcome = 'pending' ORDER BY id LIMIT ?").all(limit) as { id: number }[]).map(
      (r) => r.id,
    );
  }

  /** Notifications with this outcome, oldest first (orphan, duplicate and mismatch are indexed). */
  withOutcome(outcome: NotificationOutcome, limit = 1000): StoredNotification[] {
    if (!OUTCOMES.includes(outcome)) throw new RangeError(`unknown outcome ${String(outcome)}`);
    // A literal, not a parameter, so SQLite can use the partial index of that outcome.
    const rows = this.db.prepare(`SELECT * FROM notifications WHERE outcome = '${outcome}' ORDER BY id LIMIT ?`).all(limit);
    return (rows as NotificationRow[]).map(toNotification);
  }

  forPayin(payinRowId: number): StoredNotification[] {
    return (this.db.prepare('SELECT * FROM notifications WHERE payin_row_id = ? ORDER BY id').all(payinRowId) as NotificationRow[]).map(toNotification);
  }

  forPayout(payoutRowId: number): StoredNotification[] {
    return (this.db.prepare('SELECT * FROM notifications WHERE payout_row_id = ? ORDER BY id').all(payoutRowId) as NotificationRow[]).map(toNotification);
  }

  /** The webhook inspector's list, newest first. */
  list(filter: NotificationFilter = {}): StoredNotification[] {
    const terms: string[] = [];
    const params: unknown[] = [];
    if (filter.profileId !== undefined) {
      terms.push('profile_id = ?');
      params.push(filter.profileId);
    }
    if (filter.outcomes && filter.outcomes.length > 0) {
      terms.push(`outcome IN (${filter.outcomes.map(() => '?').join(', ')})`);
      params.push(...filter.outcomes);
    }
    if (filter.beforeId !== undefined) {
      terms.push('id < ?');
      params.push(filter.beforeId);
    }
    const where = terms.length > 0 ? `WHERE ${terms.join(' AND ')}` : '';
    const rows = this.db.prepare(`SELECT * FROM notifications ${where} ORDER BY id DESC LIMIT ?`).all(...params, Math.min(filter.limit ?? 50, 500));
    return (rows as NotificationRow[]).map(toNotification);
  }
}
