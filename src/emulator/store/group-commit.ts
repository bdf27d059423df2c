// Group commit for creations. Those that arrive in the same turn of the event loop are written in
// one transaction, so with --data one commit (one sync of the WAL) serves them all instead of one
// each; in memory it saves a BEGIN and COMMIT per creation. Each creation runs in a savepoint of
// its own, so one that throws is undone alone and only its promise rejects. Every promise settles
// after the commit: an answer is never sent before its writes are stored. When the transaction
// fails as a whole (the COMMIT fails, or SQLite rolls it back inside one creation), nothing of the
// batch is stored and every promise of the batch rejects.
import type { EmulatorDb } from './database';

interface Queued {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

export class GroupCommit {
  private queue: Queued[] = [];
  private pending: NodeJS.Immediate | undefined;

  constructor(private readonly db: EmulatorDb) {}

  /**
   * Runs `work` (synchronous) in the next group transaction; resolves with its result once
   * committed. Side effects of `work` go through `db.afterCommit`, so they happen only if it is.
   */
  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      this.pending ??= setImmediate(() => this.flush());
    });
  }

  /** Commits what is queued now (also called on close, so nothing waits on a closed database). */
  flush(): void {
    if (this.pending !== undefined) clearImmediate(this.pending);
    this.pending = undefined;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    let outcomes: Outcome[];
    try {
      outcomes = this.db.transaction(() => {
        const done: Outcome[] = [];
        for (const item of batch) {
          try {
            done.push({ ok: true, value: this.db.transaction(item.work) });
          } catch (error) {
            // SQLite may have rolled back the whole transaction rather than the savepoint (disk
            // full, I/O error): what ran before is gone, and what follows would run outside any
            // transaction. Stop here and fail the batch as a whole.
            if (!this.db.inTransaction) throw error;
            done.push({ ok: false, error });
          }
        }
        return done;
      });
    } catch (error) {
      // The transaction failed as a whole: nothing of the batch is stored.
      for (const item of batch) item.reject(error);
      return;
    }
    batch.forEach((item, i) => {
      const outcome = outcomes[i] as Outcome;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
  }
}
