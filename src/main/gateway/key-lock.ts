// Runs tasks for the same key one after another, so two sends of one attempt never overlap in
// this process (the store's compare-and-set guards against anything outside it).
export class KeyLock {
  private readonly tails = new Map<string, Promise<unknown>>();
  /** Tasks queued or running per key, updated synchronously as each one ends. */
  private readonly pending = new Map<string, number>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    this.pending.set(key, (this.pending.get(key) ?? 0) + 1);
    const previous = this.tails.get(key) ?? Promise.resolve();
    const current = previous.then(task).finally(() => {
      const left = (this.pending.get(key) ?? 1) - 1;
      if (left > 0) this.pending.set(key, left);
      else {
        this.pending.delete(key);
        this.tails.delete(key);
      }
    });
    this.tails.set(
      key,
      current.catch(() => undefined),
    );
    return current;
  }

  /** True while a task for this key runs or waits. */
  isBusy(key: string): boolean {
    return this.pending.has(key);
  }
}
