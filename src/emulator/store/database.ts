// The emulator's state: one SQLite database, a file with --data or in memory otherwise. Both
// run the same code, so what the tests prove in memory holds for the file too.
import Database from 'better-sqlite3';

export type Db = Database.Database;

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
];

/**
 * Every statement is compiled once per SQL text and reused: compiling cost more than running
 * (a pay-in create runs about ten statements; `npm run bench` showed prepare as its top cost).
 * The stores' SQL is fixed text, so the cache stays small.
 */
function reuseStatements(db: Db): void {
  const compile = db.prepare.bind(db);
  const statements = new Map<string, Database.Statement>();
  const prepare = (source: string): Database.Statement => {
    let statement = statements.get(source);
    if (statement === undefined) {
      statement = compile(source);
      statements.set(source, statement);
    }
    return statement;
  };
  db.prepare = prepare as unknown as Db['prepare'];
}

export function openDatabase(file: string | undefined): Db {
  const db = new Database(file ?? ':memory:');
  reuseStatements(db);
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
  return db;
}
