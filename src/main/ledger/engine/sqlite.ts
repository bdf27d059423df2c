// The SQLite engine: better-sqlite3, synchronous inside, one connection. A statement outside a
// transaction runs at once, in the caller's turn of the event loop. A transaction (BEGIN
// IMMEDIATE … COMMIT) holds the connection until it ends: its own statements (issued in its async
// context) run at once, and everyone else's wait their turn, so two units of work never interleave
// on the one connection.
import type Database from 'better-sqlite3';
import { StatementCache } from '../support';
import type { LedgerEngine, LedgerLock, SqlParams } from './types';
import { atomically, currentTransaction, queueAtCommit, runInTransaction, savepoint, type OpenTransaction } from './unit-of-work';

/** Compiled statements kept per connection (SQL built per call, filters and column sets, cycles through). */
const STATEMENTS = 500;

export class SqliteEngine implements LedgerEngine {
  readonly engine = 'sqlite' as const;
  readonly statements: StatementCache;
  /** Resolves when the transaction holding the connection (and every one queued before) ends. */
  private tail: Promise<void> | null = null;

  constructor(
    readonly db: Database.Database,
    readonly location: string,
  ) {
    this.statements = new StatementCache(db, STATEMENTS);
  }

  all<T>(sql: string, params?: SqlParams): Promise<T[]> {
    return this.when(() => {
      const statement = this.statements.sql(sql);
      return (params === undefined ? statement.all() : Array.isArray(params) ? statement.all(...params) : statement.all(params)) as T[];
    });
  }

  get<T>(sql: string, params?: SqlParams): Promise<T | undefined> {
    return this.when(() => {
      const statement = this.statements.sql(sql);
      return (params === undefined ? statement.get() : Array.isArray(params) ? statement.get(...params) : statement.get(params)) as T | undefined;
    });
  }

  run(sql: string, params?: SqlParams): Promise<number> {
    return this.when(() => {
      const statement = this.statements.sql(sql);
      return (params === undefined ? statement.run() : Array.isArray(params) ? statement.run(...params) : statement.run(params)).changes;
    });
  }

  lock(_name: LedgerLock): Promise<void> {
    return Promise.resolve();
  }

  lockAndRead<T>(_name: LedgerLock, sql: string): Promise<T[]> {
    return this.all<T>(sql);
  }

  atomic<T>(fn: () => Promise<T>): Promise<T> {
    return atomically(this, fn);
  }

  atCommit(write: () => Promise<void>): Promise<void> {
    return queueAtCommit(this, write);
  }

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    const open = currentTransaction(this);
    if (open) return savepoint(open, (sql) => this.run(sql), fn);
    const previous = this.tail;
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    this.tail = done;
    const work = async (): Promise<T> => {
      if (previous) await previous;
      const tx: OpenTransaction = { owner: this, open: true, depth: 0, atCommit: [] };
      this.db.exec('BEGIN IMMEDIATE');
      try {
        const result = await runInTransaction(tx, fn);
        tx.open = false;
        this.db.exec('COMMIT');
        return result;
      } catch (error) {
        tx.open = false;
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw error;
      }
    };
    return work().finally(() => {
      if (this.tail === done) this.tail = null;
      release();
    });
  }

  close(): Promise<void> {
    if (this.db.open) this.db.close();
    return Promise.resolve();
  }

  /** Runs now when no one else's transaction holds the connection, else once the queued ones have ended. */
  private when<T>(statement: () => T): Promise<T> {
    if (this.tail === null || currentTransaction(this)) {
      try {
        return Promise.resolve(statement());
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return this.tail.then(() => this.when(statement));
  }
}
