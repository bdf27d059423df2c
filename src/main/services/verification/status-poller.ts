// Status reads in place of notifications that cannot arrive. A transaction sent
// by a sandbox or live profile whose notification link is a loopback address will never be
// notified (the gateway is another machine), so its status is read until it is final: through the
// verifier (judged as any read is) and so the shared StatusReader and its rate limiter, with
// growing pauses, for a bounded time. Rows are marked at creation (notify_unreachable, migration
// 0009); recover() picks the open ones up again at start-up. close() clears every timer; no timer
// keeps the process alive meanwhile. A failure to read the ledger is logged and the row read again
// after its pause; nothing here ever rejects into a timer.
import type { Repositories } from '../../ledger/repositories/index';
import { TRANSACTION_KINDS, type TransactionKind } from '../../transaction-kinds';
import type { Logger } from '../../logger';
import type { Verifier } from './verifier';

export interface PollTimings {
  /** Pauses before each read; the last one repeats. */
  delaysMs: readonly number[];
  /** A row older than this is no longer polled (a sweep or "Re-read status" still reads it). */
  maxAgeMs: number;
}

/** 5 s, doubling to 10 min between reads; for a day after creation (about 150 reads at most). */
export const DEFAULT_POLL_TIMINGS: PollTimings = {
  delaysMs: [5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 600_000],
  maxAgeMs: 24 * 60 * 60_000,
};

export interface StatusPollerDeps {
  verifier: Pick<Verifier, 'verifyNow'>;
  repos: Repositories;
  now: () => Date;
  log: Logger;
  timings?: Partial<PollTimings>;
}

interface Polled {
  subject: TransactionKind;
  rowId: number;
  reads: number;
  timer: NodeJS.Timeout | null;
}

const keyOf = (subject: TransactionKind, rowId: number) => `${subject}:${rowId}`;

export class StatusPoller {
  private readonly timings: PollTimings;
  private readonly polled = new Map<string, Polled>();
  private readonly abort = new AbortController();
  private closed = false;

  constructor(private readonly deps: StatusPollerDeps) {
    this.timings = { ...DEFAULT_POLL_TIMINGS, ...deps.timings };
  }

  /**
   * Polls this row until final, unless it is already polled, final, not marked, or too old. Never
   * rejects: a row that cannot be read now is logged and not polled.
   */
  async track(subject: TransactionKind, rowId: number): Promise<void> {
    const key = keyOf(subject, rowId);
    if (this.closed || this.polled.has(key)) return;
    // Taken before the row is read, so a second track() of it meanwhile adds nothing.
    const entry: Polled = { subject, rowId, reads: 0, timer: null };
    this.polled.set(key, entry);
    let wanted = false;
    try {
      wanted = await this.wanted(subject, rowId);
    } catch (error) {
      this.deps.log.error(`cannot tell whether to poll the status of ${key}`, error);
    }
    if (this.polled.get(key) !== entry) return; // closed meanwhile
    if (wanted) this.schedule(entry);
    else this.polled.delete(key);
  }

  /** At start-up: every open row whose notifications cannot arrive is polled again. Returns how many. */
  async recover(limit = 10_000): Promise<number> {
    const since = new Date(this.deps.now().getTime() - this.timings.maxAgeMs);
    let count = 0;
    for (const subject of ['payin', 'payout'] as const) {
      for (const id of await TRANSACTION_KINDS[subject].store(this.deps.repos).polledIds(since, limit)) {
        await this.track(subject, id);
        count++;
      }
    }
    return count;
  }

  /** Rows being polled. */
  size(): number {
    return this.polled.size;
  }

  close(): void {
    this.closed = true;
    this.abort.abort(new Error('status poller closed'));
    for (const entry of this.polled.values()) if (entry.timer) clearTimeout(entry.timer);
    this.polled.clear();
  }

  private async wanted(subject: TransactionKind, rowId: number): Promise<boolean> {
    const row = await TRANSACTION_KINDS[subject].store(this.deps.repos).byId(rowId);
    if (!row || row.final || row.notifyUnreachable === null) return false;
    return this.deps.now().getTime() - Date.parse(row.createdAt) < this.timings.maxAgeMs;
  }

  private schedule(entry: Polled): void {
    const { delaysMs } = this.timings;
    const delay = delaysMs[Math.min(entry.reads, delaysMs.length - 1)] ?? 60_000;
    entry.timer = setTimeout(() => void this.poll(entry).catch((error: unknown) => this.pollFailed(entry, error)), delay);
    entry.timer.unref();
  }

  private async poll(entry: Polled): Promise<void> {
    entry.timer = null;
    const key = keyOf(entry.subject, entry.rowId);
    if (this.closed) return;
    if (!(await this.wanted(entry.subject, entry.rowId))) {
      this.polled.delete(key);
      return;
    }
    entry.reads++;
    try {
      const { read } = await this.deps.verifier.verifyNow(entry.subject, entry.rowId, this.abort.signal);
      // Nothing to read it by (a payout whose create answer never came, on a gateway that cannot read
      // by merchantReference): its settling gives it a payout_id, then track() again.
      if (read?.result === 'skipped') {
        this.polled.delete(key);
        return;
      }
    } catch (error) {
      this.deps.log.error(`polling the status of ${key} failed`, error);
    }
    if (this.closed) return;
    if (await this.wanted(entry.subject, entry.rowId)) this.schedule(entry);
    else this.polled.delete(key);
  }

  /** The ledger could not be read for this row: logged, and read again after its pause. */
  private pollFailed(entry: Polled, error: unknown): void {
    this.deps.log.error(`polling the status of ${keyOf(entry.subject, entry.rowId)} failed`, error);
    if (!this.closed && this.polled.get(keyOf(entry.subject, entry.rowId)) === entry) this.schedule(entry);
  }
}
