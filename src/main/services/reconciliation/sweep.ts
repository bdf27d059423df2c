// The sweep: one status read of every non-final pay-in and payout (oldest first), through the
// verifier (so a read that settles a notified claim is judged the same way) and so within the
// shared rate limit, with 429s waited out per Retry-After. Orphans whose transaction has appeared
// are matched first, then create calls whose outcome is unknown are settled where no person is
// needed (UnknownSettler: a status read by request_id, or a resend under their own key), so a
// payout whose answer was lost gets its payout_id and is read like the rest. Progress is
// published (throttled) and at the end; cancel() stops it between reads and aborts the waits. One
// sweep at a time, across the instances of a team server too (ledger/cluster.ts).
import { randomUUID } from 'node:crypto';
import { SWEEP_FAILURES_LISTED, type SettleSummary, type SweepState } from '../../../shared/contract';
import type { Cluster } from '../../ledger/cluster';
import type { Repositories } from '../../ledger/repositories/index';
import type { StatusReadResult } from '../../ledger/repositories/status-reads';
import { TRANSACTION_KINDS, type TransactionKind } from '../../transaction-kinds';
import { isoTime, type Clock } from '../../ledger/support';
import type { Logger } from '../../logger';
import { ServiceError } from '../errors';
import type { NotificationApplier } from '../notification-applier';
import type { Verifier } from '../verification/verifier';

export interface SweepDeps {
  repos: Pick<Repositories, 'payins' | 'payouts'>;
  verifier: Pick<Verifier, 'verifyNow'>;
  applier: Pick<NotificationApplier, 'retryOrphans'>;
  now: Clock;
  log: Logger;
  publish: (state: SweepState) => void;
  /** Settles unknown attempts first (UnknownSettler.settleAll). */
  settleUnknown?: (options: { profileId?: string | undefined; signal: AbortSignal }) => Promise<SettleSummary>;
  /** Reads in flight at once (the rate limiter paces them). Default 4. */
  concurrency?: number;
  /** Least time between two progress pushes. Default 250 ms. */
  progressIntervalMs?: number;
  /** Keeps sweeps one at a time across the instances of a team server. */
  cluster: Pick<Cluster, 'exclusive'>;
  /** Told at the end of a run of the rows it found newly in mismatch (services/notices: told once per run that found some). */
  foundMismatches?: (found: { sweepId: string; startedAt: string; profileId: string | null; payins: number; payouts: number }) => Promise<void>;
}

/** Why a read gave no usable answer, in words. */
function failureReason(result: Exclude<StatusReadResult, 'ok' | 'not_found'>, detail: string | null): string {
  // A rate-limited read's detail is the last 429 and when to retry (now past): said once, in the sweep's words.
  if (result === 'rate_limited') return 'the gateway still answered HTTP 429 (rate limited) after every wait the read allows: run the sweep again later';
  const what: Record<typeof result, string> = {
    rejected: 'the gateway refused the read',
    error: 'the gateway answered with an error',
    unreachable: 'the gateway could not be reached',
  };
  return detail ? `${what[result]}: ${detail}` : what[result];
}

const ALREADY_RUNNING = 'A sweep is already running: cancel it or wait for it to end.';

export class Sweeper {
  private state: SweepState | null = null;
  private controller: AbortController | null = null;
  private running: Promise<void> | null = null;
  /** A start is reading the ledger (orphans, open rows): a second start is refused as if it ran. */
  private starting = false;
  private lastPublished = 0;

  constructor(private readonly deps: SweepDeps) {}

  current(): SweepState | null {
    return this.state && { ...this.state };
  }

  async start(options: { profileId?: string | undefined; subjects?: TransactionKind[] | undefined }): Promise<SweepState> {
    if (this.starting || this.state?.state === 'running') throw new ServiceError('conflict', ALREADY_RUNNING);
    this.starting = true;
    let orphansMatched: number;
    let items: { subject: TransactionKind; id: number }[];
    // Held until the sweep ends: taken (or found taken by another instance) before anything is read.
    let release = () => {};
    const held = new Promise<boolean>((resolve) => {
      const ended = new Promise<void>((end) => (release = end));
      void this.deps.cluster
        .exclusive('sweep', () => {
          resolve(true);
          return ended;
        })
        .then((run) => resolve(run.ran), (error: unknown) => {
          this.deps.log.error('sweep: the lock of the sweep could not be taken', error);
          resolve(false);
        });
    });
    try {
      if (!(await held)) throw new ServiceError('conflict', `${ALREADY_RUNNING} (It runs on another instance of the team server.)`);
      orphansMatched = (await this.deps.applier.retryOrphans()).filter((r) => r.outcome !== 'orphan').length;
      items = await this.items(options.profileId, options.subjects ?? ['payin', 'payout']);
    } catch (error) {
      release();
      throw error;
    } finally {
      this.starting = false;
    }
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
      failures: [],
      skipped: 0,
      rateLimited: 0,
      orphansMatched,
      unknownSettled: 0,
      unknownLeft: 0,
      startedAt: isoTime(this.deps.now()),
      finishedAt: null,
      error: null,
    };
    this.publish(true);
    this.running = this.run(this.state, items, controller.signal, options.profileId).finally(release);
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
  private async items(profileId: string | undefined, subjects: TransactionKind[]): Promise<{ subject: TransactionKind; id: number }[]> {
    const items: { subject: TransactionKind; id: number }[] = [];
    for (const subject of subjects) {
      for (const id of await TRANSACTION_KINDS[subject].store(this.deps.repos).openIds(profileId)) items.push({ subject, id });
    }
    return items;
  }

  private async run(state: SweepState, items: { subject: TransactionKind; id: number }[], signal: AbortSignal, profileId: string | undefined): Promise<void> {
    if (this.deps.settleUnknown) {
      try {
        const settled = await this.deps.settleUnknown({ profileId, signal });
        state.unknownSettled = settled.settled;
        state.unknownLeft = settled.left;
      } catch (error) {
        this.deps.log.error('sweep: settling unknown outcomes failed', error);
      }
      this.publish(true);
    }
    let next = 0;
    // Rows that were not in mismatch before their read and are after it, by kind.
    const newMismatches: Record<TransactionKind, number> = { payin: 0, payout: 0 };
    const worker = async () => {
      while (!signal.aborted && next < items.length) {
        const item = items[next++] as { subject: TransactionKind; id: number };
        try {
          const wasMismatch = this.deps.foundMismatches ? (await TRANSACTION_KINDS[item.subject].store(this.deps.repos).byId(item.id))?.mismatch : undefined;
          const { verdict, read } = await this.deps.verifier.verifyNow(item.subject, item.id, signal);
          if (verdict === 'mismatch' && wasMismatch === false) newMismatches[item.subject]++;
          if (signal.aborted && (read === null || read.result === 'skipped')) break; // not read: not counted
          state.done++;
          if (read) {
            state.rateLimited += read.rateLimited;
            if (read.changed) state.changed++;
            if (read.claim === 'verified') state.verified++;
            if (read.result === 'skipped') state.skipped++;
            else if (read.result !== 'ok' && read.result !== 'not_found') await this.failed(state, item, failureReason(read.result, read.detail));
          }
          if (verdict === 'mismatch') state.mismatches++;
        } catch (error) {
          if (signal.aborted) break;
          state.done++;
          await this.failed(state, item, `the read failed in Paydesk: ${(error as Error).message}`);
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
    // Its end is pushed as soon as it is read as ended (sweep-status), and only then told.
    this.publish(true);
    await this.tellMismatches(state, newMismatches);
  }

  private async tellMismatches(state: SweepState, found: Record<TransactionKind, number>): Promise<void> {
    if (!this.deps.foundMismatches || found.payin + found.payout === 0) return;
    try {
      await this.deps.foundMismatches({ sweepId: state.id, startedAt: state.startedAt, profileId: state.profileId, payins: found.payin, payouts: found.payout });
    } catch (error) {
      this.deps.log.error('sweep: telling its mismatches failed', error);
    }
  }

  /** Counts a failed read, and names it (its transaction, its reference, why) while the list has room. */
  private async failed(state: SweepState, item: { subject: TransactionKind; id: number }, reason: string): Promise<void> {
    state.failed++;
    if (state.failures.length >= SWEEP_FAILURES_LISTED) return;
    const record = await TRANSACTION_KINDS[item.subject].store(this.deps.repos).byId(item.id).catch(() => undefined);
    const reference = record === undefined ? null : 'requestId' in record ? record.requestId : record.merchantReference;
    state.failures.push({ subject: item.subject, rowId: item.id, reference, reason });
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
