// SQL of payout batches and their items (migration 0007). Items move forward only (a trigger
// refuses anything else); the key of an item's attempt is written in the transaction that
// prepares the attempt (markPrepared, called from the submitter's hook). A running batch calls
// these for every item, so statements are compiled once per SQL text.
import type { Statement } from 'better-sqlite3';
import type { BatchItemState, BatchState, EnvironmentKind } from '../../../shared/contract';
import type { Ledger } from '../../ledger/connection';
import { isoTime, StatementCache } from '../../ledger/support';

export interface BatchRecord {
  id: number;
  profileId: string;
  environment: EnvironmentKind;
  fileName: string;
  state: BatchState;
  declaredRows: number;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface BatchItemRecord {
  id: number;
  batchId: number;
  line: number;
  merchantReference: string;
  method: string;
  amount: string;
  currency: string;
  beneficiary: string;
  destination: string;
  /** JSON of the payout form (BatchRowForm with its merchantReference). */
  form: string;
  state: BatchItemState;
  idempotencyKey: string | null;
  payoutRowId: number | null;
  error: string | null;
  updatedAt: string;
}

export interface ItemWithPayout extends BatchItemRecord {
  payoutId: string | null;
  statusCode: string | null;
  final: boolean;
}

export type NewBatchItem = Pick<BatchItemRecord, 'line' | 'merchantReference' | 'method' | 'amount' | 'currency' | 'beneficiary' | 'destination' | 'form'>;

interface BatchRow {
  id: number;
  profile_id: string;
  environment: EnvironmentKind;
  file_name: string;
  state: BatchState;
  declared_rows: number;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
}

interface ItemRow {
  id: number;
  batch_id: number;
  line: number;
  merchant_reference: string;
  method: string;
  amount: string;
  currency: string;
  beneficiary: string;
  destination: string;
  form: string;
  state: BatchItemState;
  idempotency_key: string | null;
  payout_row_id: number | null;
  error: string | null;
  updated_at: string;
}

const toBatch = (r: BatchRow): BatchRecord => ({
  id: r.id,
  profileId: r.profile_id,
  environment: r.environment,
  fileName: r.file_name,
  state: r.state,
  declaredRows: r.declared_rows,
  lastError: r.last_error,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  startedAt: r.started_at,
  finishedAt: r.finished_at,
});

const toItem = (r: ItemRow): BatchItemRecord => ({
  id: r.id,
  batchId: r.batch_id,
  line: r.line,
  merchantReference: r.merchant_reference,
  method: r.method,
  amount: r.amount,
  currency: r.currency,
  beneficiary: r.beneficiary,
  destination: r.destination,
  form: r.form,
  state: r.state,
  idempotencyKey: r.idempotency_key,
  payoutRowId: r.payout_row_id,
  error: r.error,
  updatedAt: r.updated_at,
});

export const ITEM_STATES: readonly BatchItemState[] = ['pending', 'sending', 'sent', 'refused', 'unknown', 'cancelled'];

/** Distinct statements kept compiled (page filters vary their SQL). */
const CACHED_STATEMENTS = 64;

export class BatchStore {
  /** A running batch calls these for every item. */
  private readonly statements: StatementCache;

  constructor(
    private readonly db: Ledger,
    private readonly now: () => Date,
  ) {
    this.statements = new StatementCache(db, CACHED_STATEMENTS);
  }

  private sql(text: string): Statement {
    return this.statements.sql(text);
  }

  private at(): string {
    return isoTime(this.now());
  }

  createDraft(input: { profileId: string; environment: EnvironmentKind; fileName: string; declaredRows: number }): BatchRecord {
    const at = this.at();
    const { lastInsertRowid } = this.sql(
      "INSERT INTO batches (profile_id, environment, file_name, state, declared_rows, created_at, updated_at) VALUES (?, ?, ?, 'draft', ?, ?, ?)",
    ).run(input.profileId, input.environment, input.fileName, input.declaredRows, at, at);
    return this.batch(Number(lastInsertRowid)) as BatchRecord;
  }

  batch(id: number): BatchRecord | undefined {
    const row = this.sql('SELECT * FROM batches WHERE id = ?').get(id) as BatchRow | undefined;
    return row && toBatch(row);
  }

  /** Newest first, keyset on id. */
  list(beforeId: number | null, limit: number): BatchRecord[] {
    const rows = this.sql("SELECT * FROM batches WHERE id < ? AND state != 'draft' ORDER BY id DESC LIMIT ?").all(beforeId ?? Number.MAX_SAFE_INTEGER, limit) as BatchRow[];
    return rows.map(toBatch);
  }

  setState(id: number, state: BatchState, extra: { lastError?: string | null; started?: boolean; finished?: boolean } = {}): void {
    const at = this.at();
    this.sql(
      `UPDATE batches SET state = ?, updated_at = ?, last_error = CASE WHEN ? THEN ? ELSE last_error END,
         started_at = CASE WHEN ? THEN coalesce(started_at, ?) ELSE started_at END,
         finished_at = CASE WHEN ? THEN ? ELSE NULL END
       WHERE id = ?`,
    ).run(state, at, extra.lastError !== undefined ? 1 : 0, extra.lastError ?? null, extra.started ? 1 : 0, at, extra.finished ? 1 : 0, at, id);
  }

  /** Batches to pick up at start-up: running ones, and any with an item whose attempt may have left. */
  toResume(): number[] {
    return this.sql("SELECT id FROM batches WHERE state = 'running' UNION SELECT DISTINCT batch_id FROM batch_items WHERE state = 'sending' ORDER BY 1").pluck().all() as number[];
  }

  drafts(): number[] {
    return this.sql("SELECT id FROM batches WHERE state = 'draft'").pluck().all() as number[];
  }

  /** A draft's rows go with it; nothing of a draft was ever sent. */
  deleteDraft(id: number): boolean {
    return this.db.transaction(() => {
      if (this.batch(id)?.state !== 'draft') return false;
      this.sql('DELETE FROM batch_items WHERE batch_id = ?').run(id);
      this.sql('DELETE FROM batches WHERE id = ?').run(id);
      return true;
    })();
  }

  addItems(batchId: number, items: readonly NewBatchItem[]): void {
    const at = this.at();
    const insert = this.sql(
      `INSERT INTO batch_items (batch_id, line, merchant_reference, method, amount, currency, beneficiary, destination, form, state, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?)`,
    );
    for (const item of items) insert.run(batchId, item.line, item.merchantReference, item.method, item.amount, item.currency, item.beneficiary, item.destination, item.form, at);
  }

  itemCount(batchId: number): number {
    return this.sql('SELECT count(*) FROM batch_items WHERE batch_id = ?').pluck().get(batchId) as number;
  }

  hasLine(batchId: number, line: number): boolean {
    return this.sql('SELECT 1 FROM batch_items WHERE batch_id = ? AND line = ?').get(batchId, line) !== undefined;
  }

  hasReference(batchId: number, merchantReference: string): boolean {
    return this.sql('SELECT 1 FROM batch_items WHERE batch_id = ? AND merchant_reference = ?').get(batchId, merchantReference) !== undefined;
  }

  item(id: number): BatchItemRecord | undefined {
    const row = this.sql('SELECT * FROM batch_items WHERE id = ?').get(id) as ItemRow | undefined;
    return row && toItem(row);
  }

  counts(batchId: number): Record<BatchItemState, number> {
    const counts = Object.fromEntries(ITEM_STATES.map((s) => [s, 0])) as Record<BatchItemState, number>;
    for (const row of this.sql('SELECT state, count(*) AS n FROM batch_items WHERE batch_id = ? GROUP BY state').all(batchId) as { state: BatchItemState; n: number }[]) {
      counts[row.state] = row.n;
    }
    return counts;
  }

  /** Of the items the gateway accepted: final success, final failure, not final yet. */
  outcomes(batchId: number): { paid: number; failed: number; processing: number } {
    const row = this.sql(
      `SELECT coalesce(sum(p.final = 1 AND p.status_code = 'P200'), 0) AS paid,
              coalesce(sum(p.final = 1 AND p.status_code != 'P200'), 0) AS failed,
              coalesce(sum(p.final = 0), 0) AS processing
       FROM batch_items i JOIN payouts p ON p.id = i.payout_row_id
       WHERE i.batch_id = ? AND i.state = 'sent'`,
    ).get(batchId) as { paid: number; failed: number; processing: number };
    return row;
  }

  /** Every item's currency and amount (for the exact per-currency totals). */
  amounts(batchId: number): { currency: string; amount: string }[] {
    return this.sql('SELECT currency, amount FROM batch_items WHERE batch_id = ?').all(batchId) as { currency: string; amount: string }[];
  }

  /** The next items in these states by line, skipping those in `exclude` (being worked on). */
  next(batchId: number, states: readonly BatchItemState[], exclude: ReadonlySet<number>, limit = 16): BatchItemRecord[] {
    const placeholders = states.map(() => '?').join(', ');
    const rows = this.sql(`SELECT * FROM batch_items WHERE batch_id = ? AND state IN (${placeholders}) ORDER BY line LIMIT ?`).all(batchId, ...states, limit + exclude.size) as ItemRow[];
    return rows.filter((r) => !exclude.has(r.id)).slice(0, limit).map(toItem);
  }

  /** Inside the prepare transaction: the item takes its attempt's key and payout row. */
  markPrepared(itemId: number, key: string, payoutRowId: number): void {
    const changed = this.sql(
      "UPDATE batch_items SET state = 'sending', idempotency_key = ?, payout_row_id = ?, error = NULL, updated_at = ? WHERE id = ? AND state = 'pending'",
    ).run(key, payoutRowId, this.at(), itemId).changes;
    if (changed !== 1) throw new Error(`batch item ${itemId} is no longer pending`);
  }

  /** An item whose send failed before its answer was recorded: "unknown", unless it was settled meanwhile. */
  markUnknownIfSending(itemId: number, error: string): void {
    this.sql("UPDATE batch_items SET state = 'unknown', error = ?, updated_at = ? WHERE id = ? AND state = 'sending'").run(error, this.at(), itemId);
  }

  settle(itemId: number, state: Exclude<BatchItemState, 'pending' | 'sending'>, error: string | null): void {
    this.sql('UPDATE batch_items SET state = ?, error = ?, updated_at = ? WHERE id = ?').run(state, error, this.at(), itemId);
  }

  cancelPending(batchId: number): number {
    return this.sql("UPDATE batch_items SET state = 'cancelled', error = 'cancelled before it was sent', updated_at = ? WHERE batch_id = ? AND state = 'pending'").run(this.at(), batchId).changes;
  }

  page(batchId: number, states: readonly BatchItemState[] | undefined, afterLine: number, limit: number): ItemWithPayout[] {
    const filter = states && states.length > 0 ? `AND i.state IN (${states.map(() => '?').join(', ')})` : '';
    const rows = this.sql(
      `SELECT i.*, p.payout_id AS payout_id, p.status_code AS status_code, coalesce(p.final, 0) AS final
       FROM batch_items i LEFT JOIN payouts p ON p.id = i.payout_row_id
       WHERE i.batch_id = ? AND i.line > ? ${filter} ORDER BY i.line LIMIT ?`,
    ).all(batchId, afterLine, ...(states ?? []), limit) as (ItemRow & { payout_id: string | null; status_code: string | null; final: number })[];
    return rows.map((r) => ({ ...toItem(r), payoutId: r.payout_id, statusCode: r.status_code, final: r.final === 1 }));
  }

  batchOfPayoutRow(payoutRowId: number): number | undefined {
    return this.sql('SELECT batch_id FROM batch_items WHERE payout_row_id = ?').pluck().get(payoutRowId) as number | undefined;
  }
}
