// The one interface every repository talks to, whichever engine holds the ledger. Statements are
// written once, in the SQL both engines accept, with `?` (positional) or `@name` (named)
// placeholders; where the dialects differ, a repository asks `sql.engine` and writes each.
//
// Units of work: `transaction(fn)` runs fn in one transaction, and every statement issued while
// fn runs (in its async context, whichever repository issues it) is part of it: repositories and
// services keep calling the same objects inside and outside a transaction. A transaction inside
// another is a savepoint: its failure undoes its own writes and leaves the outer one usable
// (PostgreSQL aborts a whole transaction on an error otherwise); the outer one commits once.
// `atomic(fn)` is for statements that only belong together (a repository's read and write of one
// row): inside a transaction it joins it without a savepoint (two round trips fewer on
// PostgreSQL), so its failure fails the caller's transaction; a caller that catches a failure and
// goes on opens a transaction() around what it catches.
export type SqlValue = string | number | bigint | null | Buffer;
export type SqlParams = readonly SqlValue[] | Readonly<Record<string, SqlValue>>;

export type EngineKind = 'sqlite' | 'postgres';

/**
 * Names of the locks a transaction can take on PostgreSQL (pg_advisory_xact_lock), released at its
 * end. On SQLite a write transaction already holds the one database lock, so they cost nothing.
 */
export type LedgerLock = 'audit' | 'applier' | 'migrations' | 'batch' | 'watches';

export interface Sql {
  readonly engine: EngineKind;
  all<T>(sql: string, params?: SqlParams): Promise<T[]>;
  get<T>(sql: string, params?: SqlParams): Promise<T | undefined>;
  /** Runs a write; resolves with the number of rows it changed. */
  run(sql: string, params?: SqlParams): Promise<number>;
  /** Runs `fn` as one transaction (a savepoint inside another): committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  /** Runs `fn` as one transaction, or as part of the open one (no savepoint: its failure is the caller's). */
  atomic<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Runs `write` last in the open transaction, just before its commit, after what was queued
   * before it (a savepoint that rolls back drops what it queued); outside one, now, as a
   * transaction of its own. For a write under a lock held until the commit (the audit log's), so
   * the lock is held for that write and the commit only.
   */
  atCommit(write: () => Promise<void>): Promise<void>;
  /** Takes a named lock until the end of the current transaction (PostgreSQL; nothing to take on SQLite). */
  lock(name: LedgerLock): Promise<void>;
  /**
   * lock(name), then `sql` (a read without parameters) once the lock is held, in one round trip to
   * PostgreSQL: what the lock's previous holder committed is read without a round trip of its own
   * while others wait for the lock.
   */
  lockAndRead<T>(name: LedgerLock, sql: string): Promise<T[]>;
}

export interface LedgerEngine extends Sql {
  /** Where the ledger lives, for people: the SQLite file, or the PostgreSQL URL without its password. */
  readonly location: string;
  close(): Promise<void>;
}
