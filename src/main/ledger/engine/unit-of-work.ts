// The transaction a statement belongs to: the one whose `fn` is running in the caller's async
// context (AsyncLocalStorage), if it is still open and belongs to the same engine.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface OpenTransaction {
  readonly owner: object;
  open: boolean;
  depth: number;
}

const current = new AsyncLocalStorage<OpenTransaction>();

export function currentTransaction<T extends OpenTransaction>(owner: object): T | undefined {
  const tx = current.getStore();
  return tx && tx.open && tx.owner === owner ? (tx as T) : undefined;
}

export function runInTransaction<T>(tx: OpenTransaction, fn: () => Promise<T>): Promise<T> {
  return current.run(tx, fn);
}

/** A savepoint inside `tx`: its failure undoes its own writes only. */
export async function savepoint<T>(tx: OpenTransaction, run: (sql: string) => Promise<unknown>, fn: () => Promise<T>): Promise<T> {
  tx.depth += 1;
  const name = `nested_${tx.depth}`;
  await run(`SAVEPOINT ${name}`);
  try {
    const result = await fn();
    await run(`RELEASE SAVEPOINT ${name}`);
    return result;
  } catch (error) {
    await run(`ROLLBACK TO SAVEPOINT ${name}`);
    await run(`RELEASE SAVEPOINT ${name}`);
    throw error;
  } finally {
    tx.depth -= 1;
  }
}
