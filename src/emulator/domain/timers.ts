// Scenario timers of one emulator instance: unref'd so they never keep the process alive, and
// all cleared by close().
export class TimerSet {
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  after(ms: number, fn: () => void): void {
    if (this.closed) return;
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (!this.closed) fn();
    }, ms);
    t.unref();
    this.timers.add(t);
  }

  close(): void {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}
