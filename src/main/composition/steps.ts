// Start-up as an ordered list of named steps, each with what undoes it: walked forward to start,
// backward to stop. A step whose start fails closes the steps before it, the last one first, and
// its failure is thrown; its own close is not called (a start that fails leaves nothing behind).

export interface StartupStep {
  /** What it starts, in a few words (the start-up test names the steps by it). */
  name: string;
  /** Runs after the step before it has started. Omitted: the step only holds its close (of a part wired earlier). */
  start?: () => Promise<unknown> | void;
  /** Undoes the step; called once, after the close of every step that came after it. Omitted: nothing to undo. */
  close?: () => Promise<unknown> | void;
  /** Marked once the step has started (web mode prints the marks with PAYDESK_TRACE=1). */
  trace?: string;
}

/**
 * Starts the steps in order and resolves with the stop: the closes of the started steps, last
 * first. Stopping twice closes nothing twice: a second call finds nothing left to close.
 */
export async function startSteps(steps: readonly StartupStep[], trace: (phase: string) => void = () => {}): Promise<() => Promise<void>> {
  const closes: NonNullable<StartupStep['close']>[] = [];
  const stop = async () => {
    for (const close of closes.splice(0).reverse()) await close();
  };
  try {
    for (const step of steps) {
      await step.start?.();
      if (step.close) closes.push(step.close);
      if (step.trace) trace(step.trace);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return stop;
}
