// Copies a whole ledger from one engine to the other (a desk's SQLite file into the team's
// PostgreSQL, or back), table by table in key order, in chunks of one transaction each:
// - into an empty ledger only, or one holding a copy of the same source (ledger_copies), so a
//   re-run continues an interrupted copy, or re-checks a finished one, and never mixes two ledgers;
// - ids are kept (the rows' references to each other stay true); a chunk already there is skipped
//   (ON CONFLICT DO NOTHING), so nothing is ever written twice;
// - at the end it verifies: the same row count per table, the same exact sum per currency of
//   every amount column, and the target's audit hash chain, whole and ending at the source's head.
import DecimalJs from 'decimal.js';
import { AuditLog } from '../repositories/audit-log';
import type { LedgerEngine, Sql, SqlValue } from '../engine/types';

const Decimal = DecimalJs.clone({ precision: 60 });

/** Every table of the ledger, parents before children, with its key (copied in key order). */
export const LEDGER_TABLES = [
  { table: 'settings', key: 'key' },
  { table: 'profiles', key: 'id' },
  { table: 'attempts', key: 'id' },
  { table: 'payins', key: 'id' },
  { table: 'payouts', key: 'id' },
  { table: 'card_tokens', key: 'id' },
  { table: 'notifications', key: 'id' },
  { table: 'status_reads', key: 'id' },
  { table: 'audit_log', key: 'seq' },
  { table: 'payout_limits', key: 'id' },
  { table: 'batches', key: 'id' },
  { table: 'batch_items', key: 'id' },
  { table: 'batch_events', key: 'id' },
  { table: 'batch_left_out_rows', key: 'id' },
  { table: 'payin_cards', key: 'payin_row_id' },
  { table: 'payout_cards', key: 'payout_row_id' },
  { table: 'notification_retention', key: 'profile_id' },
  // Statements (uploads and staged lines are on their way in, never copied).
  { table: 'statement_imports', key: 'id' },
  { table: 'statement_layouts', key: 'id' },
  { table: 'settlement_lines', key: 'id' },
  { table: 'settlements', key: 'id' },
  { table: 'bank_lines', key: 'id' },
  { table: 'statement_proposals', key: 'id' },
  { table: 'profile_renames', key: 'id' },
  { table: 'approvals', key: 'id' },
  // What people were told (the inbox): kept with the events it tells of.
  { table: 'notices', key: 'id' },
] as const;

/**
 * The ledger's tables a copy leaves behind, each with why: a test holds every table of the schema
 * to one list or the other, so a table added later is copied or said not to be.
 */
export const TABLES_NOT_COPIED: Record<string, string> = {
  schema_migrations: 'the target has its own migrations, run when it was opened',
  ledger_copies: "the copy's own record of where it stands",
  ledger_instances: 'the processes that ran on the source, not on the target',
  statement_uploads: 'an upload on its way in, never imported',
  statement_upload_chunks: 'an upload on its way in, never imported',
  settlement_staging: 'lines of an import in progress, dropped when it ends',
  bank_staging: 'lines of an import in progress, dropped when it ends',
  team_users: "a team server's people: a desk has none, and a team server makes its own",
  team_sessions: "a team server's sign-ins",
  team_login_failures: "a team server's sign-in throttle",
  server_secrets: "a team server's sealed secrets, bound to its own envelope key",
  approval_policies: "a team server's four-eyes policy, set by its admins",
  notice_deliveries: 'the outbox of e-mail and chat: sent (or not) from where it was written, never sent again from a copy',
  notice_choices: "a team server's people's choices (by their ids there)",
  notice_contacts: "a team server's people's addresses (by their ids there)",
  notice_channels: "a team server's channel status",
  push_relay: "PostgreSQL's pushes between a team server's instances, kept for seconds",
  team_sign_in_addresses: "a team server's people's sign-in addresses (its security notices)",
  send_reviews: 'proofs of minutes that a person reviewed a send, keyed by the process or server that made them',
  decline_rate_alerts: 'whether a decline rate was told high: counted again from the copied statuses',
};

/** Tables whose amounts are summed per currency to verify a copy. */
const AMOUNT_TABLES = ['payins', 'payouts', 'batch_items', 'settlement_lines', 'bank_lines'] as const;

/** Tables whose integer id is an identity on PostgreSQL: its sequence moves past the copied ids. */
const IDENTITY_TABLES = LEDGER_TABLES.filter((t) => t.key === 'id' && t.table !== 'profiles').map((t) => t.table);

export class LedgerCopyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LedgerCopyError';
  }
}

export interface CopyReport {
  /** The copy continued one that had started before (an interrupted run, or a finished one re-checked). */
  resumed: boolean;
  rows: Record<string, number>;
  /** Per amount table, per currency: the exact sum, the same on both sides. */
  sums: Record<string, Record<string, string>>;
  auditHead: { seq: number; hash: string } | null;
}

export interface CopyOptions {
  /** Rows per transaction (bounded so no statement passes the engines' parameter limits). */
  chunkRows?: number;
  now?: () => Date;
  onProgress?: (table: string, copied: number, total: number) => void;
}

async function columnsOf(sql: Sql, table: string): Promise<string[]> {
  const rows =
    sql.engine === 'sqlite'
      ? await sql.all<{ name: string }>(`SELECT name FROM pragma_table_info('${table}') ORDER BY cid`)
      : await sql.all<{ name: string }>('SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position', [table]);
  return rows.map((r) => r.name).sort();
}

async function countOf(sql: Sql, table: string): Promise<number> {
  return (await sql.get<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))!.n;
}

/** The source's identity: its first audit row's hash (unique to it), else where it lives. */
async function identityOf(from: LedgerEngine): Promise<string> {
  const first = await from.get<{ hash: string }>('SELECT hash FROM audit_log WHERE seq = 1');
  return first ? `audit:${first.hash}` : `location:${from.location}`;
}

async function holdsRows(sql: Sql): Promise<boolean> {
  for (const { table } of LEDGER_TABLES) {
    if (await sql.get(`SELECT 1 AS one FROM ${table} LIMIT 1`)) return true;
  }
  return false;
}

async function claimTarget(from: LedgerEngine, to: LedgerEngine, now: () => Date): Promise<boolean> {
  const source = await identityOf(from);
  return to.transaction(async () => {
    const copies = await to.all<{ source: string }>('SELECT source FROM ledger_copies');
    if (copies.some((c) => c.source === source)) return true;
    if (copies.length > 0 || (await holdsRows(to))) {
      throw new LedgerCopyError(
        `The target ledger (${to.location}) already holds data that is not a copy of ${from.location}: a copy goes only into an empty ledger. Nothing was written.`,
      );
    }
    await to.run('INSERT INTO ledger_copies (source, source_location, started_at) VALUES (?, ?, ?)', [source, from.location, now().toISOString()]);
    return false;
  });
}

async function copyTable(from: LedgerEngine, to: LedgerEngine, table: string, key: string, chunkRows: number, onProgress?: CopyOptions['onProgress']): Promise<void> {
  const columns = await columnsOf(from, table);
  const targetColumns = await columnsOf(to, table);
  if (columns.join(',') !== targetColumns.join(',')) {
    throw new LedgerCopyError(`Table ${table} differs between the two ledgers (${columns.join(', ')} / ${targetColumns.join(', ')}): open both with this Paydesk first.`);
  }
  const total = await countOf(from, table);
  const perChunk = Math.max(1, Math.min(chunkRows, Math.floor(30_000 / columns.length)));
  const list = columns.join(', ');
  // Resume after the last key the target holds: chunks commit in key order.
  const last = await to.get<{ k: SqlValue }>(`SELECT max(${key}) AS k FROM ${table}`);
  let after: SqlValue = last?.k ?? null;
  let copied = after === null ? 0 : await to.get<{ n: number }>(`SELECT count(*) AS n FROM ${table}`).then((r) => r!.n);
  for (;;) {
    const rows =
      after === null
        ? await from.all<Record<string, SqlValue>>(`SELECT ${list} FROM ${table} ORDER BY ${key} LIMIT ?`, [perChunk])
        : await from.all<Record<string, SqlValue>>(`SELECT ${list} FROM ${table} WHERE ${key} > ? ORDER BY ${key} LIMIT ?`, [after, perChunk]);
    if (rows.length === 0) break;
    const placeholders = rows.map(() => `(${columns.map(() => '?').join(', ')})`).join(', ');
    const values = rows.flatMap((row) => columns.map((c) => row[c] ?? null));
    // The ids are kept: PostgreSQL's identity columns take them as given (some are GENERATED ALWAYS).
    const overriding = to.engine === 'postgres' ? ' OVERRIDING SYSTEM VALUE' : '';
    await to.transaction(() => to.run(`INSERT INTO ${table} (${list})${overriding} VALUES ${placeholders} ON CONFLICT DO NOTHING`, values));
    after = rows.at(-1)![key] ?? null;
    copied += rows.length;
    onProgress?.(table, copied, total);
  }
}

async function sumsOf(sql: Sql, table: string): Promise<Record<string, string>> {
  const sums: Record<string, DecimalJs> = {};
  let after = 0;
  for (;;) {
    const rows = await sql.all<{ id: number; currency: string; amount: string }>(`SELECT id, currency, amount FROM ${table} WHERE id > ? ORDER BY id LIMIT 10000`, [after]);
    if (rows.length === 0) break;
    for (const row of rows) sums[row.currency] = (sums[row.currency] ?? new Decimal(0)).plus(row.amount);
    after = rows.at(-1)!.id;
  }
  return Object.fromEntries(Object.entries(sums).map(([currency, sum]) => [currency, sum.toFixed()]));
}

async function verify(from: LedgerEngine, to: LedgerEngine): Promise<Omit<CopyReport, 'resumed'>> {
  const rows: Record<string, number> = {};
  for (const { table } of LEDGER_TABLES) {
    const [source, target] = [await countOf(from, table), await countOf(to, table)];
    if (source !== target) throw new LedgerCopyError(`Table ${table}: ${source} rows in the source, ${target} in the copy.`);
    rows[table] = target;
  }
  const sums: Record<string, Record<string, string>> = {};
  for (const table of AMOUNT_TABLES) {
    const [source, target] = [await sumsOf(from, table), await sumsOf(to, table)];
    if (JSON.stringify(source) !== JSON.stringify(target)) {
      throw new LedgerCopyError(`Table ${table}: the sums per currency differ (source ${JSON.stringify(source)}, copy ${JSON.stringify(target)}).`);
    }
    sums[table] = target;
  }
  const chain = await new AuditLog(to).verify();
  if (!chain.ok) throw new LedgerCopyError(`The copied audit log does not hold at row ${chain.brokenAt} (${chain.reason}): the copy is not exact.`);
  const auditHead = chain.head;
  const sourceHead = await from.get<{ seq: number; hash: string }>('SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1');
  if ((sourceHead?.hash ?? null) !== (auditHead?.hash ?? null)) throw new LedgerCopyError('The copied audit log does not end at the source\'s head.');
  return { rows, sums, auditHead };
}

export async function copyLedger(from: LedgerEngine, to: LedgerEngine, options: CopyOptions = {}): Promise<CopyReport> {
  const { chunkRows = 2_000, now = () => new Date(), onProgress } = options;
  if (from.engine === to.engine && from.location === to.location) throw new LedgerCopyError('The source and the target are the same ledger.');
  const resumed = await claimTarget(from, to, now);
  for (const { table, key } of LEDGER_TABLES) await copyTable(from, to, table, key, chunkRows, onProgress);
  if (to.engine === 'postgres') {
    for (const table of IDENTITY_TABLES) {
      await to.run(`SELECT setval(pg_get_serial_sequence('${table}', 'id'), max(id)) FROM ${table} HAVING max(id) IS NOT NULL`);
    }
  }
  const report = await verify(from, to);
  const source = await identityOf(from);
  await to.run('UPDATE ledger_copies SET verified_at = ? WHERE source = ?', [now().toISOString(), source]);
  return { resumed, ...report };
}
