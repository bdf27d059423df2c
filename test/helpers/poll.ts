/** Polls until `read` returns a value `done` accepts; bounded in time, then fails naming `what` and the last value. */
export async function waitFor<T>(read: () => Promise<T> | T, done: (value: T) => boolean, what: string, timeoutMs = 8_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await read();
  while (!done(last)) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last value: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
    last = await read();
  }
  return last;
}
