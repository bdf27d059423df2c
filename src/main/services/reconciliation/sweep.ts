// The sweep: one status read of every non-final pay-in and payout (oldest first), through the
// verifier (so a read that settles a notified claim is judged the same way) and so within the
// shared rate limit, with 429s waited out per Retry-After. Orphans whose transaction has appeared
// are matched first. Progress is published (throttled) and at the end; cancel() stops it between
// reads and aborts the waits. One sweep at a time.
import { randomUUID } from 'node:crypto';
import type { SweepState } from '../../../shared/contract';
import type { Ledger } from '../../ledger/connection';
import type { TransactionKind } from '../../ledger/status';
import { isoTime, type Clock } from '../../ledger/support';
import type { Logger } from '../../logger';
import { ServiceError } from '../errors';
import type { NotificationApplier } from '../notification-applier';
import type { Verifier } from '../verification/verifier';

export interface SweepDeps {
  db: Ledger;
  verifier: Pick<Verifier, 'verifyNow'>;
  applier: Pick<NotificationApplier, 'retryOrphans'>;
  now: Clock;
  log: Logger;
  publish: (state: SweepState) => void;
  /** Reads in flight at once (the rate limiter paces them). Default 4. */
  concurrency?: number;
  /** Least time between two progress pushes. Default 250 ms. */
  progressIntervalMs?: number;
}

export class Sweeper {
  private state: SweepState | null = null;
  private controller: AbortController | null = null;
  private running: Promise<void> | null = null;
  private lastPublished = 0;

  constructor(private readonly deps: SweepDeps) {}

  current(): SweepState | null {
    return this.state && { ...this.state };
  }

  start(options: { profileId?: string | undefined; subjects?: TransactionKind[] | undefined }): SweepState {
    if (this.state?.state === 'running') throw new ServiceError('conflict', 'A sweep is already running: cancel it or wait for it to end.');
    const orphansMatched = this.deps.applier.retryOrphans().filter((r) => r.outcome !== 'orphan').length;
    const items = this.items(options.profileId, options.subjects ?? ['payin', 'payout']);
    const controller = new AbortController();
    this.controller = controller;
    this.state = {
      id: randomUUID(),
      state: 'running',
      profileId: options.profileId ?? null,
      total: items.length,
      done: 0,
      changed: 0,
      verified: 0,
      mismatches: 0,
      failed: 0,
      skipped: 0,
      rateLimited: 0,
      orphansMatched,
      startedAt: isoTime(this.deps.now()),
      finishedAt: null,
      error: null,
    };
    this.publish(true);
    this.running = this.run(this.state, items, controller.signal);
    return { ...this.state };
  }

  cancel(id?: string): { cancelled: boolean; sweep: SweepState | null } {
    if (!this.state || this.state.state !== 'running' || (id !== undefined && id !== this.state.id)) return { cancelled: false, sweep: this.current() };
    this.controller?.abort(new Error('sweep cancelled'));
    return { cancelled: true, sweep: this.current() };
  }

  /** Resolves when the running sweep (if any) has ended. */
  async settled(): Promise<void> {
    await this.running;
  }

  async close(): Promise<void> {
    this.controller?.abort(new Error('closing'));
    await this.running;
  }

  /** Non-final rows, oldest first, through the partial index of open rows. */
  private items(profileId: string | undefined, subjects: TransactionKind[]): { subject: TransactionKind; id: number }[] {
    const items: { subject: TransactionKind; id: number }[] = [];
    for (const subject of subjects) {
      const table = subject === 'payin' ? 'payins' : 'payouts';
      const sql = `SELECT id FROM ${table} WHERE final = 0${profileId === undefined ? '' : ' AND profile_id = ?'} ORDER BY created_at, id`;
      const rows = this.deps.db.prepare(sql).all(...(profileId === undefined ? [] : [profileId])) as { id: number }[];
      for (const { id } of rows) items.push({ subject, id });
    }
    return items;
  }

  private async run(state: SweepState, items: { subject: TransactionKind; id: number }[], signal: AbortSignal): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (!signal.aborted && next < items.length) {
        const item = items[next++] as { subject: TransactionKind; id: number };
        try {
          const { verdict, read } = await this.deps.verifier.verifyNow(item.subject, item.id, signal);
          if (signal.aborted && (read === null || read.result === 'skipped')) break; // not read: not counted
          state.done++;
          if (read) {
            state.rateLimited += read.rateLimited;
            if (read.changed) state.changed++;
            if (read.claim === 'verified') state.verified++;
            if (read.result === 'skipped') state.skipped++;
            else if (read.result !== 'ok' && read.result !== 'not_found') state.failed++;
          }
          if (verdict === 'mismatch') state.mismatches++;
        } catch (error) {
          if (signal.aborted) break;
          state.done++;
          state.failed++;
          this.deps.log.error(`sweep: reading ${item.subject} ${item.id} failed`, error);
        }
        this.publish(false);
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.max(1, this.deps.concurrency ?? 4) }, () => worker()));
      state.state = signal.aborted ? 'cancelled' : 'done';
    } catch (error) {
      state.state = 'failed';
      state.error = (error as Error).message;
    }
    state.finishedAt = isoTime(this.deps.now());
    this.publish(true);
  }

  private publish(force: boolean): void {
    if (!this.state) return;
    const now = Date.now();
    if (!force && now - this.lastPublished < (this.deps.progressIntervalMs ?? 250)) return;
    this.lastPublished = now;
    try {
      this.deps.publish({ ...this.state });
    } catch (error) {
      this.deps.log.error('publishing sweep progress failed', error);
    }
  }
}
