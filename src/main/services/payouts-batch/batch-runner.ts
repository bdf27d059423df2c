// Sends a batch's items with bounded concurrency through the manual payout path (validation,
// limits, audit, exactly-once attempt), and settles items whose outcome is open.
//
// Exactly once: an item's attempt key is written in the transaction that prepares the attempt
// (PayoutHooks.afterPrepare), and that transaction first checks the item is still pending and
// its batch still running (beforePrepare). So after any crash an item either has no attempt (it
// is still pending, and sending it is safe) or has one, and is then only ever settled under that
// key through attempts:resume — the gateway answers a repeated key with its first answer.
import type { SubmitResult } from '../../../shared/contract';
import type { Ledger } from '../../ledger/connection';
import type { Logger } from '../../logger';
import { ServiceError } from '../errors';
import type { AttemptService } from '../payments/attempt-service';
import type { PayoutService } from '../payments/payout-service';
import type { BatchItemRecord, BatchRecord, BatchStore } from './batch-store';

export interface BatchRunnerDeps {
  db: Ledger;
  store: BatchStore;
  payouts: Pick<PayoutService, 'create'>;
  attempts: Pick<AttemptService, 'resume'>;
  log: Logger;
  /** Something about the batch changed (throttled by the caller). */
  changed: (batchId: number) => void;
  /** The batch ran out of work; force: publish now. */
  ended: (batchId: number) => void;
  /** Items in flight at once per batch. Default 4. */
  concurrency?: number;
}

/** Thrown inside the prepare transaction when the item must not be sent after all (rolls it back). */
class NotSendable extends Error {}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

export class BatchRunner {
  private readonly active = new Map<number, Promise<void>>();
  private readonly again = new Set<number>();
  private closing = false;

  constructor(private readonly deps: BatchRunnerDeps) {}

  isActive(batchId: number): boolean {
    return this.active.has(batchId);
  }

  /** Starts working on a batch; if it is being worked on already, runs again once that ends. */
  run(batchId: number): void {
    if (this.closing) return;
    if (this.active.has(batchId)) {
      this.again.add(batchId);
      return;
    }
    const drive = this.drive(batchId)
      .catch((error) => this.deps.log.error(`batch ${batchId}: the runner failed`, error))
      .finally(() => {
        this.active.delete(batchId);
        if (this.again.delete(batchId)) this.run(batchId);
      });
    this.active.set(batchId, drive);
  }

  /** Resolves when every batch being worked on has stopped. */
  async settled(): Promise<void> {
    while (this.active.size > 0) await Promise.all([...this.active.values()]);
  }

  /**
   * Stops taking new items and waits (at most `waitMs`) for the ones in flight. A running batch
   * stays "running" in the ledger, so the next start resumes it; an item cut off mid-send keeps
   * its key and is settled under it then.
   */
  async close(waitMs = 5_000): Promise<void> {
    this.closing = true;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.settled(), new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
    clearTimeout(timer);
  }

  private async drive(batchId: number): Promise<void> {
    const { store } = this.deps;
    const inFlight = new Set<number>();
    /** Open items are settled once per run: an attempt still unknown waits for the next resume. */
    const settledThisRun = new Set<number>();
    const total = store.itemCount(batchId);
    const worker = async () => {
      // Each turn takes one item out of "pending" or into settledThisRun, so this ends; the bound is a safety net.
      for (let turn = 0; turn <= 2 * total + 10; turn++) {
        if (this.closing) return;
        const batch = store.batch(batchId);
        if (!batch) return;
        const item = this.claim(batch, inFlight, settledThisRun);
        if (!item) return;
        inFlight.add(item.id);
        try {
          await (item.idempotencyKey ? this.settleOpen(item) : this.send(batch, item));
        } finally {
          inFlight.delete(item.id);
          this.deps.changed(batchId);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, this.deps.concurrency ?? 4) }, worker));
    if (this.closing) return;
    const batch = store.batch(batchId);
    if (batch?.state === 'running' && store.counts(batchId).pending === 0) store.setState(batchId, 'done', { finished: true });
    this.deps.ended(batchId);
  }

  /** Open items first (their attempts may have left), then pending ones while the batch runs. */
  private claim(batch: BatchRecord, inFlight: ReadonlySet<number>, settledThisRun: Set<number>): BatchItemRecord | undefined {
    const { store } = this.deps;
    const busy = new Set([...inFlight, ...settledThisRun]);
    const open = store.next(batch.id, ['sending', 'unknown'], busy, 1)[0];
    if (open) {
      settledThisRun.add(open.id);
      return open;
    }
    if (batch.state !== 'running') return undefined;
    return store.next(batch.id, ['pending'], inFlight, 1)[0];
  }

  private async settleOpen(item: BatchItemRecord): Promise<void> {
    try {
      this.record(item.id, await this.deps.attempts.resume({ key: item.idempotencyKey as string }));
    } catch (error) {
      this.deps.store.settle(item.id, 'unknown', `could not settle it yet: ${errorText(error)}`);
    }
  }

  private async send(batch: BatchRecord, item: BatchItemRecord): Promise<void> {
    const { store } = this.deps;
    try {
      const form = JSON.parse(item.form) as Record<string, unknown>;
      const result = await this.deps.payouts.create(
        { ...form, profileId: batch.profileId },
        {
          auditDetails: { batchId: batch.id, line: item.line },
          hooks: {
            beforePrepare: () => {
              const current = store.item(item.id);
              if (this.closing || current?.state !== 'pending' || store.batch(batch.id)?.state !== 'running') throw new NotSendable();
            },
            afterPrepare: (key, payoutRowId) => store.markPrepared(item.id, key, payoutRowId),
          },
        },
      );
      this.record(item.id, result);
    } catch (error) {
      if (store.item(item.id)?.idempotencyKey) {
        // Prepared, then something failed: the request may have left, so only its own key settles it.
        store.settle(item.id, 'unknown', errorText(error));
      } else if (error instanceof NotSendable) {
        // Paused, cancelled or closing meanwhile: the item stays as it is.
      } else if (error instanceof ServiceError && (error.code === 'conflict' || error.code === 'invalid_input')) {
        store.settle(item.id, 'refused', error.message);
      } else {
        // Not about this row (credentials, profile, environment): stop and say why; resume when fixed.
        this.deps.db.transaction(() => {
          if (store.batch(batch.id)?.state === 'running') store.setState(batch.id, 'paused', { lastError: `Paused: ${errorText(error)}` });
        })();
        if (!(error instanceof ServiceError)) this.deps.log.error(`batch ${batch.id}: line ${item.line} failed`, error);
      }
    }
  }

  private record(itemId: number, result: SubmitResult): void {
    if (result.outcome === 'succeeded') this.deps.store.settle(itemId, 'sent', null);
    else if (result.outcome === 'rejected') this.deps.store.settle(itemId, 'refused', result.message);
    else this.deps.store.settle(itemId, 'unknown', result.message);
  }
}
