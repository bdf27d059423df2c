// What a test opened, closed after it: each test pushes its cleanups (a database dropped, a ledger
// closed, a server stopped), and they run after the test, newest first.
import { afterEach } from 'vitest';

export type Cleanups = (() => Promise<void> | void)[];

/** A list of cleanups run after each test of the file, newest first; call once, at the top of the file. */
export function cleanupsAfterEach(): Cleanups {
  const cleanups: Cleanups = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return cleanups;
}
