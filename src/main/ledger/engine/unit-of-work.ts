// The transaction a statement belongs to: the one whose `fn` is running in the caller's async
// context (AsyncLocalStorage), if it is still open and belongs to the same engine.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface OpenTransaction {
  readonly owner: object;
  open: boolean;
  depth: number;
  /** Writes queued for the end of the transaction (Sql.atCommit), in order. */
  readonly atCommit: (() => Promise<void>)[];
}

const current = new AsyncLocalStorage<OpenTransaction>();

export function currentTransaction<T extends OpenTransaction>(owner: object): T | undefined {
  const tx = current.getStore();
  return tx && tx.open && tx.owner === owner ? (tx as T) : undefined;
}

/** Runs a transaction's `fn`, then the writes it queued for its commit (atCommit), in its context. */
export function runInTransaction<T>(tx: OpenTransaction, fn: () => Promise<T>): Promise<T> {
  return current.run(tx, async () => {
    const result = await fn();
    for (const write of tx.atCommit) await write();
    return result;
  });
}

type TransactionOwner = { transaction<T>(fn: () => Promise<T>): Promise<T> };

/** Sql.atomic of an engine: part of the open transaction, else a transaction of its own. */
export function atomically<T>(engine: TransactionOwner, fn: () => Promise<T>): Promise<T> {
  return currentTransaction(engine) ? fn() : engine.transaction(fn);
}

/** Sql.atCommit of an engine: queued in the open transaction, else run now as a transaction of its own. */
export function queueAtCommit(engine: TransactionOwner, write: () => Promise<void>): Promise<void> {
  const open = currentTransaction(engine);
  if (!open) return engine.transaction(write);
  open.atCommit.push(write);
  return Promise.resolve();
}

/** A savepoint inside `tx`: its failure undoes its own writes only. */
export async function savepoint<T>(tx: OpenTransaction, run: (sql: string) => Promise<unknown>, fn: () => Promise<T>): Promise<T> {
  tx.depth += 1;
  const name = `nested_${tx.depth}`;
  const queued = tx.atCommit.length;
  await run(`SAVEPOINT ${name}`);
  try {
    const result = await fn();
    await run(`RELEASE SAVEPOINT ${name}`);
    return result;
  } catch (error) {
    // What it queued for the commit is undone with its writes.
    tx.atCommit.length = queued;
    await run(`ROLLBACK TO SAVEPOINT ${name}`);
    await run(`RELEASE SAVEPOINT ${name}`);
    throw error;
  } finally {
    tx.depth -= 1;
  }
}
