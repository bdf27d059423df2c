// Payout batches and their items (migration 0007). Where a batch or an item may go is the services'
// (services/payouts-batch/batch-states.ts): these write the move they are given, only where the row
// is still in a state it moves from; items move forward only (a trigger refuses anything else too).
// The key of an item's attempt is written in the transaction that prepares the attempt
// (markPrepared, called from the submitter's hook).
import { batchItemStateSchema, type BatchItemState, type BatchState, type EnvironmentKind } from '../../../shared/contract';
import type { Sql } from '../engine/types';
import { isoTime, systemClock, type Clock, type StateMove } from '../support';
import { notHeldBy } from './instances';
import { cursorNumber, placeholders, toPage, type PageAfter, type Page } from './page';

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
  /** The instance that runs it (or fills the draft): only that one claims its items. */
  runBy: string | null;
  /** Rows of the file that are not sent (each kept with why in batch_left_out_rows). */
  leftOutRows: number;
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
  /** JSON of the earlier payouts (PayoutMatch[]) a person confirmed this item may repeat; null when it matched none. */
  duplicateOf: string | null;
}

/** A row of the file that is not sent, with why (the problems the check found, or that a person left it out). */
export interface LeftOutRow {
  line: number;
  reason: string;
}

export interface ItemWithPayout extends BatchItemRecord {
  payoutId: string | null;
  statusCode: string | null;
  final: boolean;
}

export type NewBatchItem = Pick<BatchItemRecord, 'line' | 'merchantReference' | 'method' | 'amount' | 'currency' | 'beneficiary' | 'destination' | 'form'> & { duplicateOf?: string | null };

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
  run_by: string | null;
  left_out_rows: number;
}

/** An item's columns: those named as the record's fields hold them as they are. */
interface ItemRow extends Pick<BatchItemRecord, 'id' | 'line' | 'method' | 'amount' | 'currency' | 'beneficiary' | 'destination' | 'form' | 'state' | 'error'> {
  batch_id: number;
  merchant_reference: string;
  idempotency_key: string | null;
  payout_row_id: number | null;
  updated_at: string;
  duplicate_of: string | null;
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
  runBy: r.run_by,
  leftOutRows: Number(r.left_out_rows),
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
  duplicateOf: r.duplicate_of,
});


export class BatchesRepository {
  /** A running batch calls these for every item. */

  /**
   * @param instance the instance (this process, repositories/instances.ts) recorded as the one
   * that fills a draft or runs a batch (run_by): recovery takes over only a dead instance's batches.
   */
  constructor(
    private readonly db: Sql,
    private readonly now: Clock = systemClock,
    private readonly instance: string | null = null,
  ) {
  }


  private at(): string {
    return isoTime(this.now());
  }

  async createDraft(input: { profileId: string; environment: EnvironmentKind; fileName: string; declaredRows: number; leftOutRows?: number }): Promise<BatchRecord> {
    const at = this.at();
    const row = (await this.db.get("INSERT INTO batches (profile_id, environment, file_name, state, declared_rows, left_out_rows, created_at, updated_at) VALUES (?, ?, ?, 'draft', ?, ?, ?, ?) RETURNING *", [input.profileId, input.environment, input.fileName, input.declaredRows, input.leftOutRows ?? 0, at, at])) as BatchRow;
    return toBatch(row);
  }

  async batch(id: number): Promise<BatchRecord | undefined> {
    const row = (await this.db.get('SELECT * FROM batches WHERE id = ?', [id])) as BatchRow | undefined;
    return row && toBatch(row);
  }

  /**
   * Inside a transaction: the batch, its row locked on PostgreSQL until the transaction ends,
   * shared by the runner's claims ('claim') and exclusive for a change of state ('change'). So a
   * pause, resume or cancel waits for the claims in progress to commit, and a claim after it reads
   * the new state: a paused batch claims nothing more, in this process or another. (On SQLite the
   * write transaction already keeps every other one out.)
   */
  async lockedBatch(id: number, purpose: 'claim' | 'change'): Promise<BatchRecord | undefined> {
    const lock = this.db.engine !== 'postgres' ? '' : purpose === 'claim' ? ' FOR SHARE' : ' FOR UPDATE';
    const row = (await this.db.get(`SELECT * FROM batches WHERE id = ?${lock}`, [id])) as BatchRow | undefined;
    return row && toBatch(row);
  }

  /** Started batches, newest first, keyset on id. */
  async page(request: PageAfter): Promise<Page<BatchRecord>> {
    const rows = (await this.db.all("SELECT * FROM batches WHERE id < ? AND state <> 'draft' ORDER BY id DESC LIMIT ?", [cursorNumber(request.cursor) ?? Number.MAX_SAFE_INTEGER,
      request.limit + 1,])) as BatchRow[];
    return toPage(rows.map(toBatch), request.limit, (batch) => [batch.id]);
  }

  /** Moves a batch to `move.to` where it is still in one of `move.from`; whether it moved. */
  async moveBatch(id: number, move: StateMove<BatchState>, extra: { lastError?: string | null; started?: boolean; finished?: boolean } = {}): Promise<boolean> {
    const at = this.at();
    const changed = await this.db.run(`UPDATE batches SET state = ?, updated_at = ?, last_error = CASE WHEN ? = 1 THEN ? ELSE last_error END,
         started_at = CASE WHEN ? = 1 THEN coalesce(started_at, ?) ELSE started_at END,
         finished_at = CASE WHEN ? = 1 THEN ? ELSE NULL END
       WHERE id = ? AND state IN (${placeholders(move.from)})`, [move.to, at, extra.lastError !== undefined ? 1 : 0, extra.lastError ?? null, extra.started ? 1 : 0, at, extra.finished ? 1 : 0, at, id, ...move.from]);
    return changed === 1;
  }

  /** Whether this instance runs the batch: a resume elsewhere or a takeover moves it, and its runner here stops claiming. */
  runsHere(batch: BatchRecord): boolean {
    return batch.runBy === this.instance;
  }

  /** This instance fills the draft, or runs the batch (a start or a resume): it is its to go on with, or to leave to the next start. */
  async runHere(id: number): Promise<void> {
    await this.db.run('UPDATE batches SET run_by = ? WHERE id = ?', [this.instance, id]);
  }

  /**
   * Batches to pick up: running ones, and any with an item whose attempt may have left, that no
   * instance of `alive` runs. Each becomes this instance's (a compare-and-set: two instances
   * taking over the same dead one take each batch once; on PostgreSQL the rows are locked in id
   * order first, so two takers wait for each other instead of deadlocking, and what they held is
   * read under that lock). Returns their ids in order, each with the instance that ran it before.
   */
  async takeOver(alive: readonly string[]): Promise<{ id: number; runBy: string | null }[]> {
    const free = notHeldBy('run_by', alive);
    const lock = this.db.engine === 'postgres' ? ' FOR UPDATE' : '';
    return this.db.atomic(async () => {
      const held = await this.db.all<{ id: number; run_by: string | null }>(
        `SELECT id, run_by FROM batches WHERE (state = 'running' OR id IN (SELECT batch_id FROM batch_items WHERE state = 'sending')) AND ${free.sql} ORDER BY id${lock}`,
        free.params,
      );
      if (held.length === 0) return [];
      const taken = new Set(
        (await this.db.all<{ id: number }>(`UPDATE batches SET run_by = ? WHERE id IN (${placeholders(held.map((r) => r.id))}) AND ${free.sql} RETURNING id`, [this.instance, ...held.map((r) => r.id), ...free.params])).map((r) => Number(r.id)),
      );
      return held.filter((r) => taken.has(Number(r.id))).map((r) => ({ id: Number(r.id), runBy: r.run_by }));
    });
  }

  /** The batches this instance runs that are open (running, or an item whose attempt may have left). */
  async runHereOpen(): Promise<number[]> {
    const rows = (await this.db.all("SELECT id FROM batches WHERE run_by IS NOT DISTINCT FROM ? AND (state = 'running' OR id IN (SELECT batch_id FROM batch_items WHERE state = 'sending')) ORDER BY id", [this.instance])) as { id: number }[];
    return rows.map((r) => r.id);
  }

  /** The highest batch id so far (0 when there is none): every batch of the ledger is at or below it. */
  async highestId(): Promise<number> {
    return Number((await this.db.get<{ id: number | null }>('SELECT max(id) AS id FROM batches'))?.id ?? 0);
  }

  /** How many batch items are being sent now, on the whole ledger (metrics). */
  async countInFlight(): Promise<number> {
    return Number((await this.db.get<{ n: number }>("SELECT count(*) AS n FROM batch_items WHERE state = 'sending'"))?.n ?? 0);
  }

  /** How many batches are running or paused: started and not finished. */
  async countUnfinished(): Promise<number> {
    return Number((await this.db.get<{ n: number }>("SELECT count(*) AS n FROM batches WHERE state IN ('running', 'paused')"))?.n ?? 0);
  }

  /** Drafts no instance of `alive` is filling (an upload its instance never finished). */
  async drafts(alive: readonly string[]): Promise<{ id: number; profileId: string }[]> {
    const free = notHeldBy('run_by', alive);
    return ((await this.db.all(`SELECT id, profile_id FROM batches WHERE state = 'draft' AND ${free.sql}`, free.params)) as { id: number; profile_id: string }[]).map((r) => ({ id: Number(r.id), profileId: r.profile_id }));
  }

  /** A draft's rows go with it; nothing of a draft was ever sent. */
  async deleteDraft(id: number): Promise<boolean> {
    return this.db.atomic(async () => {
      if ((await this.batch(id))?.state !== 'draft') return false;
      await this.db.run('DELETE FROM batch_items WHERE batch_id = ?', [id]);
      await this.db.run('DELETE FROM batch_left_out_rows WHERE batch_id = ?', [id]);
      await this.db.run('DELETE FROM batches WHERE id = ?', [id]);
      return true;
    });
  }

  /** One statement for a chunk of rows (at most BATCH_CHUNK_ROWS, 11 values each). */
  async addItems(batchId: number, items: readonly NewBatchItem[]): Promise<void> {
    if (items.length === 0) return;
    const at = this.at();
    await this.db.run(
      `INSERT INTO batch_items (batch_id, line, merchant_reference, method, amount, currency, beneficiary, destination, form, duplicate_of, state, updated_at)
       VALUES ${items.map(() => "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?)").join(', ')}`,
      items.flatMap((item) => [batchId, item.line, item.merchantReference, item.method, item.amount, item.currency, item.beneficiary, item.destination, item.form, item.duplicateOf ?? null, at]),
    );
  }

  /** The file's rows that are not sent, with why (one statement for a chunk). */
  async addLeftOut(batchId: number, rows: readonly LeftOutRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db.run(`INSERT INTO batch_left_out_rows (batch_id, line, reason) VALUES ${rows.map(() => '(?, ?, ?)').join(', ')}`, rows.flatMap((row) => [batchId, row.line, row.reason]));
  }

  async leftOutCount(batchId: number): Promise<number> {
    return Number((await this.db.get<{ n: number }>('SELECT count(*) AS n FROM batch_left_out_rows WHERE batch_id = ?', [batchId]))!.n);
  }

  /** Of these lines, the ones the batch holds already, sent or left out. */
  async fileLinesTaken(batchId: number, lines: readonly number[]): Promise<Set<number>> {
    if (lines.length === 0) return new Set();
    const rows = await this.db.all<{ line: number }>(
      `SELECT line FROM batch_items WHERE batch_id = ? AND line IN (${placeholders(lines)}) UNION SELECT line FROM batch_left_out_rows WHERE batch_id = ? AND line IN (${placeholders(lines)})`,
      [batchId, ...lines, batchId, ...lines],
    );
    return new Set(rows.map((r) => Number(r.line)));
  }

  /** The left-out rows by line, keyset paged. */
  async leftOutPage(batchId: number, request: PageAfter): Promise<Page<LeftOutRow>> {
    const rows = await this.db.all<{ line: number; reason: string }>('SELECT line, reason FROM batch_left_out_rows WHERE batch_id = ? AND line > ? ORDER BY line LIMIT ?', [batchId, cursorNumber(request.cursor) ?? 0, request.limit + 1]);
    return toPage(rows.map((r) => ({ line: Number(r.line), reason: r.reason })), request.limit, (row) => [row.line]);
  }

  /** The items a person confirmed may repeat an earlier payout, by line. */
  async confirmedDuplicates(batchId: number): Promise<BatchItemRecord[]> {
    return (await this.db.all<ItemRow>('SELECT * FROM batch_items WHERE batch_id = ? AND duplicate_of IS NOT NULL ORDER BY line', [batchId])).map(toItem);
  }

  async itemCount(batchId: number): Promise<number> {
    return ((await this.db.get('SELECT count(*) AS n FROM batch_items WHERE batch_id = ?', [batchId])) as { n: number }).n;
  }

  /** Of these lines, the ones the batch holds already (one query for a chunk of rows). */
  async linesTaken(batchId: number, lines: readonly number[]): Promise<Set<number>> {
    if (lines.length === 0) return new Set();
    const rows = await this.db.all<{ line: number }>(`SELECT line FROM batch_items WHERE batch_id = ? AND line IN (${placeholders(lines)})`, [batchId, ...lines]);
    return new Set(rows.map((r) => r.line));
  }

  /** Of these merchantReferences, the ones a row of the batch holds already. */
  async referencesTaken(batchId: number, references: readonly string[]): Promise<Set<string>> {
    if (references.length === 0) return new Set();
    const rows = await this.db.all<{ merchant_reference: string }>(`SELECT merchant_reference FROM batch_items WHERE batch_id = ? AND merchant_reference IN (${placeholders(references)})`, [batchId, ...references]);
    return new Set(rows.map((r) => r.merchant_reference));
  }

  async item(id: number): Promise<BatchItemRecord | undefined> {
    const row = (await this.db.get('SELECT * FROM batch_items WHERE id = ?', [id])) as ItemRow | undefined;
    return row && toItem(row);
  }

  async counts(batchId: number): Promise<Record<BatchItemState, number>> {
    const counts = Object.fromEntries(batchItemStateSchema.options.map((s) => [s, 0])) as Record<BatchItemState, number>;
    for (const row of (await this.db.all('SELECT state, count(*) AS n FROM batch_items WHERE batch_id = ? GROUP BY state', [batchId])) as { state: BatchItemState; n: number }[]) {
      counts[row.state] = row.n;
    }
    return counts;
  }

  /** Of the items the gateway accepted: final success, final failure, not final yet (and of those, claimed by a notification, not yet confirmed by a status read). */
  async outcomes(batchId: number): Promise<{ paid: number; failed: number; processing: number; awaitingVerification: number }> {
    const row = (await this.db.get(`SELECT coalesce(sum(CASE WHEN p.final = 1 AND p.status_code = 'P200' THEN 1 ELSE 0 END), 0) AS paid,
              coalesce(sum(CASE WHEN p.final = 1 AND p.status_code <> 'P200' THEN 1 ELSE 0 END), 0) AS failed,
              coalesce(sum(CASE WHEN p.final = 0 THEN 1 ELSE 0 END), 0) AS processing,
              coalesce(sum(CASE WHEN p.final = 0 AND p.claim_state = 'unverified' THEN 1 ELSE 0 END), 0) AS "awaitingVerification"
       FROM batch_items i JOIN payouts p ON p.id = i.payout_row_id
       WHERE i.batch_id = ? AND i.state = 'sent'`, [batchId])) as { paid: number; failed: number; processing: number; awaitingVerification: number };
    return row;
  }

  /** Every item's currency and amount (for the exact per-currency totals). */
  async amounts(batchId: number): Promise<{ currency: string; amount: string }[]> {
    return (await this.db.all('SELECT currency, amount FROM batch_items WHERE batch_id = ?', [batchId])) as { currency: string; amount: string }[];
  }

  /**
   * The next open items (sending, unknown: the attempt may have left) to settle under their keys,
   * by line, skipping those in `exclude` (being worked on). An item whose attempt is still
   * "sending" is not one: its request is in flight in the process that claimed it (on PostgreSQL,
   * another process running the batch), which records it; a crash's leftovers are "unknown" by
   * then (start-up recovery moves interrupted attempts before batches resume).
   */
  async nextOpen(batchId: number, exclude: ReadonlySet<number>, limit = 16): Promise<BatchItemRecord[]> {
    // SQLite would otherwise walk the whole batch by (batch_id, line) to skip the sort, a scan of
    // every item per look while a batch runs (0.23 ms each at 1,000 items); the few open items
    // come straight from the state index and are sorted after. PostgreSQL picks it by itself.
    const byState = this.db.engine === 'sqlite' ? ' INDEXED BY batch_items_state' : '';
    const rows = (await this.db.all(`SELECT i.* FROM batch_items i${byState} LEFT JOIN attempts a ON a.idempotency_key = i.idempotency_key
       WHERE i.batch_id = ? AND i.state IN ('sending', 'unknown') AND (a.state IS NULL OR a.state <> 'sending')
       ORDER BY i.line LIMIT ?`, [batchId, limit + exclude.size])) as ItemRow[];
    return rows.filter((r) => !exclude.has(r.id)).slice(0, limit).map(toItem);
  }

  /**
   * Inside the transaction that claims it: the first pending item by line that this process's
   * workers do not hold (`held`). On PostgreSQL its row is locked until that transaction ends and
   * rows other transactions hold are passed by (FOR UPDATE SKIP LOCKED, on the one row returned),
   * so two processes running one batch never claim the same item; on SQLite the write transaction
   * already keeps every other one out.
   */
  async nextToClaim(batchId: number, held: ReadonlySet<number>): Promise<BatchItemRecord | undefined> {
    const ids = [...held];
    const notHeld = ids.length > 0 ? ` AND id NOT IN (${placeholders(ids)})` : '';
    const lock = this.db.engine === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : '';
    const row = await this.db.get<ItemRow>(`SELECT * FROM batch_items WHERE batch_id = ? AND state = 'pending'${notHeld} ORDER BY line LIMIT 1${lock}`, [batchId, ...ids]);
    return row && toItem(row);
  }

  /** Inside the prepare transaction: the item moves (to sending) with its attempt's key and payout row, or this throws. */
  async markPrepared(itemId: number, move: StateMove<BatchItemState>, key: string, payoutRowId: number): Promise<void> {
    const changed = await this.db.run(`UPDATE batch_items SET state = ?, idempotency_key = ?, payout_row_id = ?, error = NULL, updated_at = ? WHERE id = ? AND state IN (${placeholders(move.from)})`, [move.to, key, payoutRowId, this.at(), itemId, ...move.from]);
    if (changed !== 1) throw new Error(`batch item ${itemId} is no longer ${move.from.join(' or ')}`);
  }

  /** Moves an item, with its error, where it is still in one of `move.from` (one settled meanwhile by another process is left as it is); whether it moved. */
  async moveItem(itemId: number, move: StateMove<BatchItemState>, error: string | null): Promise<boolean> {
    return (await this.db.run(`UPDATE batch_items SET state = ?, error = ?, updated_at = ? WHERE id = ? AND state IN (${placeholders(move.from)})`, [move.to, error, this.at(), itemId, ...move.from])) === 1;
  }

  /** Moves every item of the batch that is in one of `move.from`; how many. */
  async moveItems(batchId: number, move: StateMove<BatchItemState>, error: string | null): Promise<number> {
    return this.db.run(`UPDATE batch_items SET state = ?, error = ?, updated_at = ? WHERE batch_id = ? AND state IN (${placeholders(move.from)})`, [move.to, error, this.at(), batchId, ...move.from]);
  }

  /** A batch's items in these states (all when none is given), by line, with their payouts. */
  async itemPage(batchId: number, states: readonly BatchItemState[] | undefined, request: PageAfter): Promise<Page<ItemWithPayout>> {
    const filter = states && states.length > 0 ? `AND i.state IN (${placeholders(states)})` : '';
    const rows = (await this.db.all(`SELECT i.*, p.payout_id AS payout_id, p.status_code AS status_code, coalesce(p.final, 0) AS final
       FROM batch_items i LEFT JOIN payouts p ON p.id = i.payout_row_id
       WHERE i.batch_id = ? AND i.line > ? ${filter} ORDER BY i.line LIMIT ?`, [batchId, cursorNumber(request.cursor) ?? 0, ...(states ?? []), request.limit + 1])) as (ItemRow & { payout_id: string | null; status_code: string | null; final: number })[];
    const items = rows.map((r) => ({ ...toItem(r), payoutId: r.payout_id, statusCode: r.status_code, final: r.final === 1 }));
    return toPage(items, request.limit, (item) => [item.line]);
  }

  /** Visits the items in these states by line, one row at a time (a review's digest covers up to 10,000). */
  async eachItem(batchId: number, states: readonly BatchItemState[], visit: (item: BatchItemRecord) => void): Promise<void> {
    const sql = `SELECT * FROM batch_items WHERE batch_id = ? AND line > ? AND state IN (${placeholders(states)}) ORDER BY line LIMIT 1000`;
    for (let after = 0; ; ) {
      const rows = await this.db.all<ItemRow>(sql, [batchId, after, ...states]);
      for (const row of rows) visit(toItem(row));
      if (rows.length < 1000) return;
      after = rows.at(-1)!.line;
    }
  }

  async batchOfPayoutRow(payoutRowId: number): Promise<number | undefined> {
    return ((await this.db.get('SELECT batch_id FROM batch_items WHERE payout_row_id = ?', [payoutRowId])) as { batch_id: number } | undefined)?.batch_id;
  }

  /** Whether this Idempotency-Key is a batch item's (its batch settles it). */
  async ownsKey(idempotencyKey: string): Promise<boolean> {
    return (await this.db.get('SELECT 1 FROM batch_items WHERE idempotency_key = ?', [idempotencyKey])) !== undefined;
  }
}
