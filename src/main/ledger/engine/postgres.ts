// The PostgreSQL engine: node-postgres (`pg`), pooled. Why pg: the most used and longest kept
// PostgreSQL driver for Node, plain JavaScript (no native build), a pool and transactions on one
// checked-out client, and it takes statement text plus values, which lets the ledger keep one text
// per statement for both engines (placeholders.ts). Integers come back as numbers (ids and counts
// stay far below 2^53); NUMERIC stays text, so no amount ever passes through a float.
// Type-only: the driver itself is loaded by create(), so a desk on SQLite never loads it (~100 ms of CPU at start-up).
import type pg from 'pg';
import { numbered } from './placeholders';
import type { LedgerEngine, LedgerLock, SqlParams } from './types';
import { atomically, currentTransaction, queueAtCommit, runInTransaction, savepoint, type OpenTransaction } from './unit-of-work';

const INT8 = 20;

/** Stable keys for pg_advisory_xact_lock, one per named lock (arbitrary, fixed forever). */
const LOCK_KEYS: Record<LedgerLock, number> = { migrations: 0x5061_7901, audit: 0x5061_7902, applier: 0x5061_7903, batch: 0x5061_7904, watches: 0x5061_7905 };

/** 64-bit integers (counts, ids) as numbers; every other type as the driver parses it. */
const typesOf = (driver: typeof pg): pg.CustomTypesConfig =>
  ({
    getTypeParser(oid: number, format?: 'text' | 'binary') {
      if (oid === INT8) return (value: string) => toSafeNumber(value);
      return driver.types.getTypeParser(oid, format);
    },
  }) as pg.CustomTypesConfig;

function toSafeNumber(value: string): number {
  const number = Number(value);
  if (!Number.isSafeInteger(number)) throw new Error(`A ledger integer does not fit in a JavaScript number: ${value}`);
  return number;
}

type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

/** Statement texts given a name at most (each connection prepares each name once: a bounded number). */
const PREPARED = 300;
/** Texts remembered as run once, waiting for a second run to be named. */
const SEEN_ONCE = 2_000;
/** A result of every column of a table (not count(*), nor a product). */
const STAR_COLUMNS = /\b(?:SELECT|RETURNING)\s+(?:\w+\.)?\*|\b\w+\.\*/i;
/** A read (a text whose columns are a `*` is one when it starts so; `RETURNING *` is a write's). */
const STAR_READ = /^\s*SELECT\b/i;
/** PostgreSQL's "cached plan must not change result type": a prepared statement whose table's shape changed. */
const RESHAPED = '0A000';

/**
 * Statements prepared once per connection rather than parsed and planned at every run: a text run
 * a second time gets a name, and each pooled connection prepares a named statement the first time
 * it runs it (PostgreSQL then plans it for its values, or once for all when that plan is no worse:
 * plan_cache_mode auto). Planning is most of the server's work for a statement on the pay-ins and
 * payouts tables, whose 16 indexes it weighs each time (a look-up by id: ~80 µs of CPU unprepared,
 * ~30 prepared). Texts run once stay unnamed, and so do those first repeated after PREPARED names
 * are given (names are never freed; an IN list of each length is a text of its own); texts without
 * parameters (migrations, several statements in one) run as they are.
 *
 * A text whose columns are a `*` (`SELECT *`, `RETURNING *`, `i.*`) may change shape: during a
 * rolling upgrade a newer instance may add a column to its table (docs/team.md, "Upgrade"), and
 * PostgreSQL then refuses to run a statement prepared before ("cached plan must not change result
 * type", 0A000). Such a text is named only as a read outside a transaction (the screens' look-ups
 * and pages, whose planning is most of their cost): when one is refused so, it runs again unnamed
 * and is never named again, which nothing can notice (a read changed nothing, and no transaction was
 * spoiled by the error). In a transaction, or as a write (`RETURNING *`), it is planned anew at each
 * run and just returns the new column too.
 */
class StatementNames {
  /** Each named text's name, and whether its columns are a `*` (then `reshaped` once refused for a changed shape). */
  private readonly names = new Map<string, NamedText>();
  private readonly seenOnce = new Set<string>();

  /**
   * The name to run `text` under, if any. A `*` text is named only as a read outside a transaction
   * (see above), and not at all once refused for a changed shape; whether a text is one is looked at
   * once, before it is named, so a named text costs one look-up per run.
   */
  nameFor(text: string, values: readonly unknown[], inTransaction: boolean): NamedText | undefined {
    const named = this.names.get(text);
    if (named !== undefined) return named.star && (inTransaction || named.reshaped) ? undefined : named;
    if (values.length === 0 || this.names.size >= PREPARED) return undefined;
    const star = STAR_COLUMNS.test(text);
    if (star && (inTransaction || !STAR_READ.test(text))) return undefined;
    if (this.seenOnce.delete(text)) {
      const name: NamedText = { name: `paydesk_${this.names.size + 1}`, star, reshaped: false };
      this.names.set(text, name);
      return name;
    }
    if (this.seenOnce.size >= SEEN_ONCE) this.seenOnce.clear();
    this.seenOnce.add(text);
    return undefined;
  }
}

interface NamedText {
  name: string;
  /** Its columns are a `*`: a read run outside transactions, which a rolling upgrade may reshape. */
  star: boolean;
  /** A prepared run of it was refused for a changed shape: unnamed from now on. */
  reshaped: boolean;
}

interface PostgresTransaction extends OpenTransaction {
  client: pg.PoolClient;
}

/**
 * Connections each instance keeps to PostgreSQL at most (`--pool-size`). Fifty people at work beside
 * a batch and the listener kept ten busy and others waiting (bench/team.ts): twenty let them through.
 */
export const DEFAULT_POOL_SIZE = 20;

export class PostgresEngine implements LedgerEngine {
  readonly engine = 'postgres' as const;
  private readonly names = new StatementNames();

  constructor(
    readonly pool: pg.Pool,
    readonly location: string,
    /** The pool's settings, for a connection of its own (engine/dedicated.ts). */
    readonly connectionConfig: pg.ClientConfig = {},
  ) {}

  static async create(connectionString: string, location: string, max = DEFAULT_POOL_SIZE): Promise<PostgresEngine> {
    const { default: driver } = await import('pg');
    const connectionConfig: pg.ClientConfig = { connectionString, types: typesOf(driver), connectionTimeoutMillis: 10_000, application_name: 'paydesk' };
    const pool = new driver.Pool({ ...connectionConfig, max });
    // An idle client whose server went away emits here; the pool drops it and the next query reconnects.
    pool.on('error', () => undefined);
    return new PostgresEngine(pool, location, connectionConfig);
  }

  async all<T>(sql: string, params?: SqlParams): Promise<T[]> {
    return (await this.query<T>(sql, params)).rows;
  }

  async get<T>(sql: string, params?: SqlParams): Promise<T | undefined> {
    return (await this.query<T>(sql, params)).rows[0];
  }

  async run(sql: string, params?: SqlParams): Promise<number> {
    return (await this.query(sql, params)).rowCount ?? 0;
  }

  private async query<T>(sql: string, params: SqlParams | undefined): Promise<pg.QueryResult<T & pg.QueryResultRow>> {
    const { text, values } = numbered(sql, params);
    // The client of the transaction the caller runs in, else the pool (each statement its own transaction).
    const tx = currentTransaction<PostgresTransaction>(this);
    const target: Queryable = tx?.client ?? this.pool;
    const named = this.names.nameFor(text, values, tx !== undefined);
    if (named === undefined) return target.query<T & pg.QueryResultRow>({ text, values });
    try {
      return await target.query<T & pg.QueryResultRow>({ name: named.name, text, values });
    } catch (error) {
      // Only a `*` read outside a transaction is named and may be refused so: nothing was done, nothing spoiled.
      if (!named.star || (error as { code?: string }).code !== RESHAPED) throw error;
      named.reshaped = true;
      return target.query<T & pg.QueryResultRow>({ text, values });
    }
  }

  async lock(name: LedgerLock): Promise<void> {
    await this.lockingClient(name).query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEYS[name]]);
  }

  async lockAndRead<T>(name: LedgerLock, sql: string): Promise<T[]> {
    // Two statements in one simple query: the read's snapshot is taken once the lock is held, so it
    // sees what the previous holder committed (READ COMMITTED takes one per statement).
    const results = (await this.lockingClient(name).query(`SELECT pg_advisory_xact_lock(${LOCK_KEYS[name]}); ${sql}`)) as unknown as pg.QueryResult[];
    return (results[1]?.rows ?? []) as T[];
  }

  private lockingClient(name: LedgerLock): pg.PoolClient {
    const tx = currentTransaction<PostgresTransaction>(this);
    if (!tx) throw new Error(`The ${name} lock is held for a transaction: take it inside a transaction`);
    return tx.client;
  }

  atomic<T>(fn: () => Promise<T>): Promise<T> {
    return atomically(this, fn);
  }

  atCommit(write: () => Promise<void>): Promise<void> {
    return queueAtCommit(this, write);
  }

  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    const open = currentTransaction<PostgresTransaction>(this);
    if (open) return savepoint(open, (sql) => open.client.query(sql), fn);
    const client = await this.pool.connect();
    const tx: PostgresTransaction = { owner: this, open: true, depth: 0, atCommit: [], client };
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await runInTransaction(tx, fn);
      tx.open = false;
      await client.query('COMMIT');
      return result;
    } catch (error) {
      tx.open = false;
      try {
        await client.query('ROLLBACK');
      } catch (rollback) {
        broken = rollback as Error;
      }
      throw error;
    } finally {
      client.release(broken);
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
