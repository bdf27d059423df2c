// The emulator's state: one SQLite database, a file with --data or in memory otherwise. Both
// run the same code, so what the tests prove in memory holds for the file too.
import Database from 'better-sqlite3';

/** Applied in order; user_version records how many ran. Never edit a shipped step, add one. */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
   CREATE TABLE jwt_keys (kid TEXT PRIMARY KEY, merchant_id TEXT NOT NULL, public_jwk TEXT NOT NULL, created_at TEXT NOT NULL);
   CREATE TABLE used_jti (merchant_id TEXT NOT NULL, jti TEXT NOT NULL, used_at TEXT NOT NULL, PRIMARY KEY (merchant_id, jti));
   CREATE TABLE card_tokens (
     token TEXT PRIMARY KEY, merchant_id TEXT NOT NULL, payin_id TEXT NOT NULL, brand TEXT NOT NULL,
     bin TEXT NOT NULL, last4 TEXT NOT NULL, exp_month TEXT NOT NULL, exp_year TEXT NOT NULL,
     revoked INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL);
   CREATE TABLE payins (
     payin_id TEXT PRIMARY KEY, merchant_id TEXT NOT NULL, request_id TEXT NOT NULL, kind TEXT NOT NULL,
     payment_method TEXT NOT NULL, amount TEXT NOT NULL, currency TEXT NOT NULL, email TEXT NOT NULL,
     country TEXT NOT NULL, status_code INTEGER NOT NULL, reason_code TEXT, scenario TEXT,
     urls TEXT NOT NULL, card TEXT, token TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
   CREATE UNIQUE INDEX payins_request ON payins (merchant_id, request_id);
   CREATE TABLE payouts (
     payout_id TEXT PRIMARY KEY, merchant_id TEXT NOT NULL, merchant_reference TEXT NOT NULL, method TEXT NOT NULL,
     amount TEXT NOT NULL, currency TEXT NOT NULL, email TEXT NOT NULL, status_code TEXT NOT NULL,
     reason_code TEXT, scenario TEXT, notification_url TEXT NOT NULL, destination TEXT NOT NULL,
     created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
   CREATE TABLE idempotency (
     merchant_id TEXT NOT NULL, idem_key TEXT NOT NULL, request_hash TEXT NOT NULL, http_status INTEGER NOT NULL,
     response TEXT NOT NULL, created_at TEXT NOT NULL, PRIMARY KEY (merchant_id, idem_key));
   CREATE TABLE deliveries (
     id INTEGER PRIMARY KEY AUTOINCREMENT, event TEXT NOT NULL, url TEXT NOT NULL, body TEXT NOT NULL,
     subject_id TEXT NOT NULL, state TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
     next_attempt_at TEXT, last_status INTEGER, last_error TEXT, created_at TEXT NOT NULL, delivered_at TEXT);
   CREATE INDEX deliveries_subject ON deliveries (subject_id);
   CREATE TABLE delivery_attempts (
     delivery_id INTEGER NOT NULL, attempt INTEGER NOT NULL, duplicate INTEGER NOT NULL, started_at TEXT NOT NULL,
     http_status INTEGER, error TEXT);
   CREATE INDEX delivery_attempts_delivery ON delivery_attempts (delivery_id);`,
  // A payout status read by merchantReference (our extension) finds the newest payout of that reference.
  `CREATE INDEX payouts_reference ON payouts (merchant_id, merchant_reference, created_at);`,
  // Settlement (docs/emulator.md, "Settlement"): what was settled and how the report and the bank
  // statement read, written once when a settlement is made, so both read the same after a restart.
  `CREATE INDEX payins_settleable ON payins (status_code, updated_at);
   CREATE TABLE settlements (
     seq INTEGER PRIMARY KEY AUTOINCREMENT, settlement_id TEXT NOT NULL UNIQUE, currency TEXT NOT NULL,
     period_start TEXT NOT NULL, period_end TEXT NOT NULL, settled_at TEXT NOT NULL, value_date TEXT NOT NULL,
     line_count INTEGER NOT NULL, gross TEXT NOT NULL, fees TEXT NOT NULL, net TEXT NOT NULL);
   CREATE INDEX settlements_value_date ON settlements (value_date);
   CREATE TABLE settlement_lines (
     settlement_id TEXT NOT NULL, line_no INTEGER NOT NULL, payin_id TEXT NOT NULL, request_id TEXT NOT NULL,
     method TEXT NOT NULL, amount TEXT NOT NULL, fee TEXT NOT NULL, net TEXT NOT NULL, time TEXT NOT NULL,
     PRIMARY KEY (settlement_id, line_no));
   CREATE TABLE settled_payins (payin_id TEXT PRIMARY KEY, settlement_id TEXT, outcome TEXT NOT NULL);
   CREATE TABLE settlement_fault_log (
     seq INTEGER PRIMARY KEY AUTOINCREMENT, fault TEXT NOT NULL, settlement_id TEXT, payin_id TEXT,
     detail TEXT NOT NULL, at TEXT NOT NULL);
   CREATE INDEX settlement_fault_log_settlement ON settlement_fault_log (settlement_id);
   CREATE TABLE bank_accounts (currency TEXT PRIMARY KEY, iban TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL);
   CREATE TABLE bank_entries (
     seq INTEGER PRIMARY KEY AUTOINCREMENT, entry_ref TEXT NOT NULL UNIQUE, currency TEXT NOT NULL,
     amount TEXT NOT NULL, booking_date TEXT NOT NULL, booked_at TEXT NOT NULL, settlement_id TEXT,
     end_to_end_id TEXT NOT NULL, remittance TEXT NOT NULL, counterparty TEXT NOT NULL);
   CREATE INDEX bank_entries_date ON bank_entries (currency, booking_date);
   CREATE TABLE wallets (currency TEXT PRIMARY KEY, wallet_id TEXT NOT NULL UNIQUE, balance TEXT NOT NULL, created_at TEXT NOT NULL);
   CREATE TABLE wallet_movements (
     seq INTEGER PRIMARY KEY AUTOINCREMENT, wallet_id TEXT NOT NULL, currency TEXT NOT NULL, type TEXT NOT NULL,
     payout_id TEXT, merchant_reference TEXT, topup_id TEXT, method TEXT, amount TEXT NOT NULL, at TEXT NOT NULL);
   CREATE UNIQUE INDEX wallet_movements_payout ON wallet_movements (payout_id, type) WHERE payout_id IS NOT NULL;
   CREATE INDEX wallet_movements_at ON wallet_movements (at);`,
];

/**
 * Runs a side effect once the writes made so far are committed (EmulatorDb#afterCommit). Work that
 * runs inside a transaction registers through this whatever must not happen for writes that may
 * still be undone: arming a scenario timer, scheduling a notification delivery.
 */
export type AfterCommit = (effect: () => void) => void;

/**
 * The emulator's connection. Stores ask it for statements by SQL text; each is compiled once and
 * reused (compiling cost more than running: a profile of creates showed `prepare` as their top
 * cost). The stores' SQL is fixed text, so the cache stays small.
 */
export class EmulatorDb {
  private readonly statements = new Map<string, Database.Statement>();
  private readonly runTransaction: Database.Transaction<(work: () => unknown) => unknown>;
  /** Effects of the transaction (or savepoint) being run, waiting for it to commit; undefined outside one. */
  private effects: (() => void)[] | undefined;

  constructor(private readonly db: Database.Database) {
    this.runTransaction = db.transaction((work: () => unknown) => work());
  }

  /** The compiled statement for `sql`, prepared on first use. */
  statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /**
   * Whether SQLite has a transaction open. Inside `transaction` it is true unless SQLite rolled
   * the whole transaction back on its own (disk full, I/O error), which it may do in any statement.
   */
  get inTransaction(): boolean {
    return this.db.inTransaction;
  }

  /**
   * Runs `work` as one transaction: committed when it returns, rolled back when it throws. A call
   * inside another transaction becomes a savepoint of it. `work` must be synchronous.
   *
   * A call inside a transaction that SQLite has already rolled back throws instead of running
   * `work`: it would otherwise begin a transaction of its own and commit alone what the caller
   * meant to commit together.
   */
  transaction<T>(work: () => T): T {
    const enclosing = this.effects;
    if (enclosing !== undefined && !this.db.inTransaction) throw new TransactionLostError();
    const effects: (() => void)[] = [];
    this.effects = effects;
    let result: T;
    try {
      result = this.runTransaction(work) as T;
    } finally {
      this.effects = enclosing;
    }
    // Released as a savepoint: its effects now wait for the enclosing transaction's commit.
    if (enclosing !== undefined) enclosing.push(...effects);
    else runEffects(effects);
    return result;
  }

  /**
   * Runs `effect` once the writes made so far are committed: at once outside a transaction,
   * otherwise after the outermost transaction commits, and never if the transaction, or the
   * savepoint it was registered in, rolls back.
   */
  afterCommit(effect: () => void): void {
    if (this.effects === undefined) effect();
    else this.effects.push(effect);
  }

  close(): void {
    this.db.close();
  }
}

/** SQLite rolled back the enclosing transaction on its own; nothing of it is stored. */
export class TransactionLostError extends Error {
  constructor() {
    super('the transaction was rolled back by SQLite (disk full or I/O error?); nothing of it is stored');
    this.name = 'TransactionLostError';
  }
}

/**
 * The writes are committed by now: an effect that throws (a bug) must not pass for a failed
 * commit, nor stop the others. Its error is raised on its own, as an uncaught exception.
 */
function runEffects(effects: readonly (() => void)[]): void {
  for (const effect of effects) {
    try {
      effect();
    } catch (error) {
      queueMicrotask(() => {
        throw error;
      });
    }
  }
}

export function openDatabase(file: string | undefined): EmulatorDb {
  const db = new Database(file ?? ':memory:');
  if (file) db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  const applied = db.pragma('user_version', { simple: true }) as number;
  if (applied > MIGRATIONS.length) {
    db.close();
    throw new Error(`${file}: state written by a newer emulator (schema ${applied} > ${MIGRATIONS.length})`);
  }
  for (let i = applied; i < MIGRATIONS.length; i++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[i] as string);
      db.pragma(`user_version = ${i + 1}`);
    })();
  }
  return new EmulatorDb(db);
}
