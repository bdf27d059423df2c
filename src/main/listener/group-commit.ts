// Group commit: everything submitted while the event loop is busy (or within `windowMs`), or while
// the previous batch is being committed, is written by one call to `commit` — one transaction, one
// fsync — and every submitter is answered once that commit has resolved. Durability per item at
// the cost of one fsync per batch, not per request. One batch is committed at a time, so what
// arrives during a commit gathers into the next one.
export interface GroupCommitOptions {
  /** Largest batch per transaction; the rest goes into the next one right after. */
  maxBatch: number;
  /** 0: flush on the next event-loop turn (setImmediate); >0: wait up to this many ms to gather more. */
  windowMs: number;
}

interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

export class GroupCommitter<T, R> {
  private queue: Waiting<T, R>[] = [];
  private scheduled = false;
  /** Items of the batch whose commit has not resolved yet (0 when none is running). */
  private committing = 0;
  private batches = 0;
  private committed = 0;

  constructor(
    /** Writes the batch as one transaction; resolves with one result per item, in order, once committed. */
    private readonly commit: (items: T[]) => Promise<R[]>,
    private readonly options: GroupCommitOptions,
  ) {}

  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  /** `inFlight`: items whose commit is running; they are answered when it resolves. */
  stats(): { batches: number; committed: number; queued: number; inFlight: number } {
    return { batches: this.batches, committed: this.committed, queued: this.queue.length, inFlight: this.committing };
  }

  private schedule(): void {
    if (this.scheduled || this.committing > 0) return; // a running commit schedules the next when it ends
    this.scheduled = true;
    const run = () => {
      this.scheduled = false;
      void this.flush();
    };
    if (this.options.windowMs > 0) setTimeout(run, this.options.windowMs);
    else setImmediate(run);
  }

  /** Never rejects: a failed commit rejects its submitters instead. */
  private async flush(): Promise<void> {
    const batch = this.queue.splice(0, this.options.maxBatch);
    if (batch.length === 0) return;
    this.committing = batch.length;
    let results: R[] | undefined;
    let failure: unknown;
    try {
      results = await this.commit(batch.map((w) => w.item));
    } catch (error) {
      failure = error;
    }
    this.committing = 0;
    if (this.queue.length > 0) this.schedule();
    if (results === undefined) {
      for (const waiting of batch) waiting.reject(failure);
      return;
    }
    this.batches++;
    this.committed += batch.length;
    batch.forEach((waiting, i) => waiting.resolve(results[i] as R));
  }
}
