// The verifier: a notification carries no signature (spec 5, rule 6), so every one that claims a
// new status (or contradicts the ledger) is confirmed with one status read of its transaction.
// Fed by the apply step's results (from start() on, it takes the applier's); one entry per transaction however many notifications arrive;
// a few reads in flight, paced by the shared rate limiter.
//
//   gateway agrees (or has moved past a pending claim)   → verified
//   gateway says another final result                      → mismatch (the read's status applies;
//                                                            the claim never does)
//   gateway still says an earlier status                   → read again after recheckDelaysMs[i];
//                                                            when they run out → mismatch
//   gateway does not know the transaction                  → mismatch
//   no usable answer (unreachable, 5xx, still 429)         → retry after retryDelaysMs[i]; then
//                                                            left "notified, not verified"
//
// Unverified claims survive restarts: recover() queues every row whose claim is unverified.
// close() clears every timer; no timer keeps the process alive meanwhile (unref).
import type { Repositories } from '../../ledger/repositories/index';
import { TRANSACTION_KINDS, type TransactionKind } from '../../transaction-kinds';
import type { Logger } from '../../logger';
import type { AppliedNotification, NotificationApplier } from '../notification-applier';
import type { StatusReader, StatusReadOutcome } from './status-reader';

export interface VerifierTimings {
  /** Waits before re-reading a transaction whose gateway status is still behind the notified claim. */
  recheckDelaysMs: readonly number[];
  /** Waits before retrying a read that got no usable answer. */
  retryDelaysMs: readonly number[];
  /** Reads in flight at once (the rate limiter paces them further). */
  concurrency: number;
}

export const DEFAULT_VERIFIER_TIMINGS: VerifierTimings = {
  recheckDelaysMs: [2_000, 5_000, 15_000, 30_000, 60_000],
  retryDelaysMs: [1_000, 5_000, 30_000, 120_000],
  concurrency: 4,
};

export type VerificationVerdict = 'verified' | 'mismatch' | 'recheck' | 'retry' | 'gave_up' | 'nothing_to_verify' | 'cancelled';

export interface VerificationResult {
  subject: TransactionKind;
  rowId: number;
  verdict: VerificationVerdict;
  read: StatusReadOutcome | null;
}

export interface VerifierDeps {
  /** Its work: every applied notification that claims news queues a read. */
  applier: Pick<NotificationApplier, 'subscribe'>;
  reader: StatusReader;
  repos: Repositories;
  log: Logger;
  timings?: Partial<VerifierTimings>;
  /** After every read: the transaction (and any re-marked notifications) changed. Awaited; a failure is logged. */
  onVerified?: (result: VerificationResult) => void | Promise<void>;
}

interface Entry {
  subject: TransactionKind;
  rowId: number;
  /** Read even when no claim is unverified (a notification contradicted the ledger). */
  force: boolean;
  rechecks: number;
  retries: number;
  timer: NodeJS.Timeout | null;
  queued: boolean;
  running: boolean;
}

const keyOf = (subject: TransactionKind, rowId: number) => `${subject}:${rowId}`;

export class Verifier {
  private readonly timings: VerifierTimings;
  private readonly entries = new Map<string, Entry>();
  private readonly ready: string[] = [];
  private readonly abort = new AbortController();
  private inFlight = 0;
  private closed = false;
  private readonly idleWaiters: (() => void)[] = [];
  private readonly running = new Set<Promise<unknown>>();
  private unsubscribe: () => void = () => {};

  constructor(private readonly deps: VerifierDeps) {
    this.timings = { ...DEFAULT_VERIFIER_TIMINGS, ...deps.timings };
  }

  /** Takes the applier's results from now on (what it applied before is found by recover()). */
  start(): void {
    this.unsubscribe = this.deps.applier.subscribe((result) => this.onApplied(result));
  }

  /** Queues a read for every applied notification that needs one. */
  private onApplied(result: AppliedNotification): void {
    if (!result.needsVerification || result.subject === null || result.rowId === null) return;
    this.enqueue(result.subject, result.rowId, { force: result.outcome === 'mismatch' });
  }

  enqueue(subject: TransactionKind, rowId: number, options: { force?: boolean } = {}): void {
    if (this.closed) return;
    const key = keyOf(subject, rowId);
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { subject, rowId, force: false, rechecks: 0, retries: 0, timer: null, queued: false, running: false };
      this.entries.set(key, entry);
    }
    entry.force ||= options.force === true;
    // New news resets the patience: a fresh claim gets its own rechecks.
    entry.rechecks = 0;
    entry.retries = 0;
    if (entry.timer) {
      clearTimeout(entry.timer);
      entry.timer = null;
    }
    this.markReady(key, entry);
  }

  /** At start-up: every claim left unverified by the last run is read again. Returns how many. */
  async recover(limit = 100_000): Promise<number> {
    let count = 0;
    for (const subject of ['payin', 'payout'] as const) {
      const ids = await TRANSACTION_KINDS[subject].store(this.deps.repos).unverifiedClaimIds(limit);
      for (const id of ids) this.enqueue(subject, id);
      count += ids.length;
    }
    return count;
  }

  /** Transactions queued, waiting for a recheck or being read. */
  pending(): number {
    return this.entries.size;
  }

  /** Resolves when nothing is queued or in flight (timers for later rechecks may remain). */
  whenIdle(): Promise<void> {
    if (this.ready.length === 0 && this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * One read and its verdict now (the reconciliation sweep): the same decisions as the queue,
   * and a recheck is queued when the gateway is still behind a notified claim.
   */
  async verifyNow(subject: TransactionKind, rowId: number, signal?: AbortSignal): Promise<VerificationResult> {
    const key = keyOf(subject, rowId);
    const entry = this.entries.get(key) ?? { subject, rowId, force: true, rechecks: 0, retries: 0, timer: null, queued: false, running: false };
    return this.run(entry, signal, true);
  }

  /**
   * Stops: no new read, every timer cleared, waits for a slot aborted. Reads already on the wire
   * get up to `graceMs` to land in the ledger (their HTTP call cannot be recalled).
   */
  async close(graceMs = 2_000): Promise<void> {
    this.closed = true;
    this.unsubscribe();
    this.abort.abort(new Error('verifier closed'));
    for (const entry of this.entries.values()) if (entry.timer) clearTimeout(entry.timer);
    this.entries.clear();
    this.ready.length = 0;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
    if (this.running.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
      timer.unref();
    });
    await Promise.race([Promise.allSettled([...this.running]), grace]);
    clearTimeout(timer);
  }

  private markReady(key: string, entry: Entry): void {
    if (entry.queued || entry.running) {
      // Running: it is read again right after (the news may have come after the read was sent).
      if (entry.running) entry.queued = true;
      return;
    }
    entry.queued = true;
    this.ready.push(key);
    this.pump();
  }

  private pump(): void {
    while (!this.closed && this.inFlight < this.timings.concurrency && this.ready.length > 0) {
      const key = this.ready.shift() as string;
      const entry = this.entries.get(key);
      if (!entry || entry.running) continue;
      entry.queued = false;
      this.inFlight++;
      void this.run(entry, this.abort.signal, false).finally(() => {
        this.inFlight--;
        if (entry.queued && !this.closed) {
          entry.queued = false;
          this.markReady(key, entry);
        }
        this.pump();
        if (this.ready.length === 0 && this.inFlight === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
      });
    }
  }

  private run(entry: Entry, signal: AbortSignal | undefined, direct: boolean): Promise<VerificationResult> {
    const run = this.runOnce(entry, signal, direct);
    this.running.add(run);
    void run.finally(() => this.running.delete(run)).catch(() => {});
    return run;
  }

  private async runOnce(entry: Entry, signal: AbortSignal | undefined, direct: boolean): Promise<VerificationResult> {
    const { subject, rowId } = entry;
    const key = keyOf(subject, rowId);
    // Running from before the first await: news that comes meanwhile queues one more read after this one, never a second at once.
    entry.running = true;
    let read: StatusReadOutcome | null = null;
    let verdict: VerificationVerdict;
    try {
      const current = await this.deps.reader.record(subject, rowId);
      if (!current || (!entry.force && !direct && current.claimState !== 'unverified')) {
        if (!entry.queued) this.entries.delete(key);
        return { subject, rowId, verdict: 'nothing_to_verify', read: null };
      }
      read = await this.deps.reader.read(subject, rowId, signal);
      verdict = await this.decide(entry, read);
    } catch (error) {
      this.deps.log.error(`verifying ${key} failed`, error);
      verdict = this.retryLater(entry);
    } finally {
      entry.running = false;
    }
    if (signal?.aborted && read?.result === 'skipped') verdict = 'cancelled';
    if ((verdict === 'verified' || verdict === 'mismatch' || verdict === 'gave_up' || verdict === 'cancelled' || verdict === 'nothing_to_verify') && !entry.queued && !entry.timer) {
      this.entries.delete(key);
    }
    const result = { subject, rowId, verdict, read };
    try {
      await this.deps.onVerified?.(result);
    } catch (error) {
      this.deps.log.error('onVerified failed', error);
    }
    return result;
  }

  private async decide(entry: Entry, read: StatusReadOutcome): Promise<VerificationVerdict> {
    const record = read.record;
    if (read.result === 'ok') {
      if (read.claim === 'contradicted' || record?.mismatch) return 'mismatch';
      return read.claim === 'ahead' ? this.recheckLater(entry, read) : 'verified';
    }
    if (read.result === 'not_found') return read.claim === 'contradicted' ? 'mismatch' : 'gave_up';
    if (read.result === 'skipped' && this.closed) return 'cancelled';
    if (read.result === 'rate_limited' || read.result === 'unreachable' || read.result === 'error') return this.retryLater(entry, read.retryAfterSeconds);
    // rejected (401 …) or skipped (nothing to read by): a person must look; it stays "notified, not verified".
    this.deps.log.warn(`cannot verify ${entry.subject} ${entry.rowId}: ${read.detail ?? read.result}`);
    return 'gave_up';
  }

  private async recheckLater(entry: Entry, read: StatusReadOutcome): Promise<VerificationVerdict> {
    const delay = this.timings.recheckDelaysMs[entry.rechecks];
    if (delay === undefined) {
      const store = TRANSACTION_KINDS[entry.subject].store(this.deps.repos);
      const claim = read.record?.lastNotifiedStatus ?? '?';
      await store.contradictClaim(entry.rowId, `notified status ${claim}, but the gateway still says ${read.statusCode ?? '?'} after ${entry.rechecks + 1} status reads`);
      read.contradictedNotifications.push(...(await this.deps.reader.markContradicted(entry.subject, entry.rowId, read.statusCode, true)));
      read.record = await this.deps.reader.record(entry.subject, entry.rowId);
      return 'mismatch';
    }
    entry.rechecks++;
    this.schedule(entry, delay);
    return 'recheck';
  }

  private retryLater(entry: Entry, retryAfterSeconds: number | null = null): VerificationVerdict {
    const delay = this.timings.retryDelaysMs[entry.retries];
    if (delay === undefined) {
      this.deps.log.warn(`gave up verifying ${entry.subject} ${entry.rowId} after ${entry.retries + 1} reads without a usable answer`);
      return 'gave_up';
    }
    entry.retries++;
    this.schedule(entry, Math.max(delay, (retryAfterSeconds ?? 0) * 1000));
    return 'retry';
  }

  private schedule(entry: Entry, delayMs: number): void {
    if (this.closed) return;
    const key = keyOf(entry.subject, entry.rowId);
    this.entries.set(key, entry);
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = setTimeout(() => {
      entry.timer = null;
      this.markReady(key, entry);
    }, delayMs);
    entry.timer.unref();
  }
}
