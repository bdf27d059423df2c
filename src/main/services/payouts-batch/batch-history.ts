// A batch's history (migration 0010): starts, pauses, resumes, cancels, the end, and every
// interruption (the app stopped while the batch was running). Each event is appended in the
// transaction of the change it records, with the batch's item counts at that moment, so a batch
// that survived crashes says when it stopped, what was in flight then, and who resumed it; on a
// ledger several instances share, which instance found the stop and resumed it, and which had run it.
import type { BatchItemState } from '../../../shared/contract';
import type { BatchActor, BatchEventKind, BatchEventsRepository } from '../../ledger/repositories/batch-events';
import { isoTime } from '../../ledger/support';

/** What an event says beyond its kind and actor. */
export interface BatchEventDetails {
  cause?: 'closed' | 'unexpected';
  stoppedAt?: string;
  note?: string | null;
  /** The instance that ran the batch before (an interruption found, a resume by Paydesk). */
  runnerBefore?: BatchInstance | null;
}

/** An instance of a ledger several share: its id and host (services/scale-out/instance.ts). */
export interface BatchInstance {
  id: string;
  host: string | null;
}

export class BatchHistory {
  constructor(
    private readonly events: BatchEventsRepository,
    private readonly now: () => Date,
    /** The batch's item counts now (BatchesRepository.counts). */
    private readonly counts: (batchId: number) => Promise<Record<BatchItemState, number>>,
    /** This instance, on a ledger several share; null on a desk, whose history names no instance. */
    private readonly instance: BatchInstance | null = null,
    /** Told of a batch's end with its item counts, in the transaction that records it (services/notices). */
    private readonly finished?: (batchId: number, counts: Record<BatchItemState, number>) => Promise<void>,
  ) {}

  /** Appends an event, with the batch's items not sent yet, in flight and unknown as they are now. */
  async record(batchId: number, kind: BatchEventKind, actor: BatchActor, details: BatchEventDetails = {}, at: string = isoTime(this.now())): Promise<void> {
    const counts = await this.counts(batchId);
    await this.events.append({
      batchId,
      kind,
      at,
      actor,
      cause: details.cause ?? null,
      stoppedAt: details.stoppedAt ?? null,
      items: { pending: counts.pending, inFlight: counts.sending, unknown: counts.unknown },
      note: details.note ?? null,
      instance: this.instance,
      runnerBefore: this.instance === null ? null : (details.runnerBefore ?? null),
    });
    if (kind === 'finished') await this.finished?.(batchId, counts);
  }

  /**
   * The app stopped while the batch was running: recorded once per stop. At close, `closed` at
   * that time; at the next start, when close did not record it, `unexpected`, dated by the batch's
   * last recorded activity (the process may have lived a little longer: nothing is known of it).
   */
  async recordInterruption(batchId: number, cause: 'closed' | 'unexpected', runnerBefore: BatchInstance | null = null): Promise<void> {
    if ((await this.events.latestKind(batchId)) === 'interrupted') return;
    const at = isoTime(this.now());
    await this.record(batchId, 'interrupted', 'system', { cause, stoppedAt: cause === 'closed' ? at : await this.events.lastActivity(batchId), runnerBefore }, at);
  }
}
