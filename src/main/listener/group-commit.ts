// Group commit: everything submitted while the event loop is busy (or within `windowMs`) is
// written by one call to `commit` — one transaction, one fsync — and then every submitter is
// answered. Durability per item at the cost of one fsync per batch, not per request.
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
  private batches = 0;
  private committed = 0;

  constructor(
    private readonly commit: (items: T[]) => R[],
    private readonly options: GroupCommitOptions,
  ) {}

  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  stats(): { batches: number; committed: number; queued: number } {
    return { batches: this.batches, committed: this.committed, queued: this.queue.length };
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    const run = () => {
      this.scheduled = false;
      this.flush();
    };
    if (this.options.windowMs > 0) setTimeout(run, this.options.windowMs);
    else setImmediate(run);
  }

  private flush(): void {
    const batch = this.queue.splice(0, this.options.maxBatch);
    if (this.queue.length > 0) this.schedule();
    if (batch.length === 0) return;
    let results: R[];
    try {
      results = this.commit(batch.map((w) => w.item));
    } catch (error) {
      for (const waiting of batch) waiting.reject(error);
      return;
    }
    this.batches++;
    this.committed += batch.length;
    batch.forEach((waiting, i) => waiting.resolve(results[i] as R));
  }
}
