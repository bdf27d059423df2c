// The tests' waiting, in one place: every wait polls, is bounded in time, and fails naming what
// it waited for (and the last value read). expect.poll does the same inside a test; these also
// run in hooks and harnesses, where expect.poll does not.

/** Polls until `read` returns a value `done` accepts; bounded in time, then fails naming `what` and the last value. */
export async function waitFor<T>(read: () => Promise<T> | T, done: (value: T) => boolean, what: string, timeoutMs = 8_000, intervalMs = 20): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await read();
  while (!done(last)) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last value: ${JSON.stringify(last)}`);
    await sleep(intervalMs);
    last = await read();
  }
  return last;
}

/** Polls until `check` holds; bounded in time, then fails naming `what`. */
export async function until(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 8_000, intervalMs = 20): Promise<void> {
  await waitFor(check, (holds) => holds, what, timeoutMs, intervalMs);
}

/** Polls until `probe` finds something (not undefined) and returns it; bounded in time, then fails naming `what`. */
export async function found<T>(probe: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 8_000, intervalMs = 20): Promise<T> {
  return (await waitFor(probe, (value) => value !== undefined, what, timeoutMs, intervalMs)) as T;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
