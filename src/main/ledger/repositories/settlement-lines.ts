// Settlement report lines: staged while an import reads its file, committed once (each line once
// per profile, by its natural key and its occurrence in its file), matched to the ledger's pay-ins
// and payouts by id in set-based statements, and summed per settlement exactly.
import { amountText, compareAmounts, sumAmounts } from '../../../shared/money';
import type { Sql, SqlValue } from '../engine/types';
import { conditions, whereOf } from './conditions';
import { exactSum, exactSumSql } from './exact-sums';

export type LineType = 'payin' | 'payout' | 'payout_reversal' | 'topup';
export type Direction = 'credit' | 'debit';

/** One line as an import read it, before it is committed. */
export interface StagedSettlementLine {
  line: number;
  /** The line's natural key (its type and ids); its occurrence in the file is added when committed. */
  baseKey: string;
  /**
   * Its occurrence among the file's lines of its natural key, when the import knows it: 1 for a key
   * not seen before in the file. Null (or left out) when the key may have been: the commit counts it.
   */
  occurrence?: number | null;
  type: LineType;
  settlementId: string | null;
  walletId: string | null;
  payinId: string | null;
  requestId: string | null;
  payoutId: string | null;
  merchantReference: string | null;
  topupId: string | null;
  method: string | null;
  currency: string;
  amount: string;
  fee: string;
  net: string;
  direction: Direction;
  occurredAt: string | null;
  bookingDate: string | null;
}

export interface SettlementLineRecord extends Omit<StagedSettlementLine, 'baseKey'> {
  id: number;
  profileId: string;
  importId: number;
  day: string | null;
  subject: 'payin' | 'payout' | null;
  rowId: number | null;
  matchedBy: string | null;
  held: boolean;
  decidedBy: string | null;
  decidedAt: string | null;
  note: string | null;
}

/** A line's columns: those named as the record's fields hold them as they are. */
interface LineRow extends Pick<SettlementLineRecord, 'id' | 'line' | 'method' | 'currency' | 'amount' | 'fee' | 'net' | 'direction' | 'day' | 'subject' | 'note'> {
  profile_id: string;
  import_id: number;
  line_type: LineType;
  settlement_id: string | null;
  wallet_id: string | null;
  payin_id: string | null;
  request_id: string | null;
  payout_id: string | null;
  merchant_reference: string | null;
  topup_id: string | null;
  occurred_at: string | null;
  booking_date: string | null;
  row_id: number | null;
  matched_by: string | null;
  held: number;
  decided_by: string | null;
  decided_at: string | null;
}

const toLine = (r: LineRow): SettlementLineRecord => ({
  id: r.id,
  profileId: r.profile_id,
  importId: r.import_id,
  line: r.line,
  type: r.line_type,
  settlementId: r.settlement_id,
  walletId: r.wallet_id,
  payinId: r.payin_id,
  requestId: r.request_id,
  payoutId: r.payout_id,
  merchantReference: r.merchant_reference,
  topupId: r.topup_id,
  method: r.method,
  currency: r.currency,
  amount: r.amount,
  fee: r.fee,
  net: r.net,
  direction: r.direction,
  occurredAt: r.occurred_at,
  bookingDate: r.booking_date,
  day: r.day,
  subject: r.subject,
  rowId: r.row_id,
  matchedBy: r.matched_by,
  held: r.held === 1,
  decidedBy: r.decided_by,
  decidedAt: r.decided_at,
  note: r.note,
});

export interface SettlementRecord {
  id: number;
  profileId: string;
  settlementId: string;
  currency: string;
  valueDate: string | null;
  lines: number;
  gross: string;
  fees: string;
  net: string;
  credited: string | null;
  credits: number;
}

/** A settlement's columns: those named as the record's fields hold them as they are. */
interface SettlementRow extends Pick<SettlementRecord, 'id' | 'currency' | 'lines' | 'gross' | 'fees' | 'net' | 'credited' | 'credits'> {
  profile_id: string;
  settlement_id: string;
  value_date: string | null;
}

export const toSettlement = (r: SettlementRow): SettlementRecord => ({
  id: r.id,
  profileId: r.profile_id,
  settlementId: r.settlement_id,
  currency: r.currency,
  valueDate: r.value_date,
  lines: r.lines,
  gross: r.gross,
  fees: r.fees,
  net: r.net,
  credited: r.credited,
  credits: r.credits,
});

/** A staged line's fields in the staging table's order (after import_id); each column is named as its field, in snake case, but the type's (line_type). */
const STAGED_FIELDS = ['line', 'baseKey', 'type', 'settlementId', 'walletId', 'payinId', 'requestId', 'payoutId', 'merchantReference', 'topupId', 'method', 'currency', 'amount', 'fee', 'net', 'direction', 'occurredAt', 'bookingDate', 'occurrence'] as const satisfies readonly (keyof StagedSettlementLine)[];

const columnOf = (field: (typeof STAGED_FIELDS)[number]): string => (field === 'type' ? 'line_type' : field.replace(/[A-Z]/g, (capital) => `_${capital.toLowerCase()}`));

const STAGED_COLUMNS = ['import_id', ...STAGED_FIELDS.map(columnOf)];

const stagedValues = (importId: number, l: StagedSettlementLine): SqlValue[] => [importId, ...STAGED_FIELDS.map((field) => l[field] ?? null)];

/** SQLite: rows per INSERT (19 values each, far below its 32,766 parameters). */
const SQLITE_ROWS_PER_INSERT = 500;

/** Rows into a staging table: SQLite in multi-row VALUES, PostgreSQL as one JSON array per statement (json_to_recordset). */
export async function insertStaged(db: Sql, table: string, columns: readonly string[], types: readonly string[], rows: readonly SqlValue[][]): Promise<void> {
  if (rows.length === 0) return;
  if (db.engine === 'postgres') {
    const records = rows.map((values) => Object.fromEntries(columns.map((c, i) => [c, values[i]])));
    await db.run(
      `INSERT INTO ${table} (${columns.join(', ')}) SELECT ${columns.join(', ')} FROM json_to_recordset(?::json) AS r(${columns.map((c, i) => `${c} ${types[i]}`).join(', ')})`,
      [JSON.stringify(records)],
    );
    return;
  }
  const one = `(${columns.map(() => '?').join(', ')})`;
  for (let start = 0; start < rows.length; start += SQLITE_ROWS_PER_INSERT) {
    const end = Math.min(rows.length, start + SQLITE_ROWS_PER_INSERT);
    const params: SqlValue[] = [];
    for (let i = start; i < end; i++) for (const value of rows[i]!) params.push(value);
    await db.run(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${Array<string>(end - start).fill(one).join(', ')}`, params);
  }
}

/**
 * An import's staged lines dropped. On SQLite the staging tables are the connection's own
 * (connection.ts): one that holds no other import's lines is emptied whole, which SQLite does
 * without visiting each row (a second for a million lines, one by one).
 */
export async function dropStagedLines(db: Sql, table: string, importId: number): Promise<void> {
  if (db.engine === 'sqlite' && !(await db.get(`SELECT 1 FROM ${table} WHERE import_id <> ? LIMIT 1`, [importId]))) await db.run(`DELETE FROM ${table}`);
  else await db.run(`DELETE FROM ${table} WHERE import_id = ?`, [importId]);
}

/** PostgreSQL's type of each staged column (json_to_recordset): numbers for the import, the line and its occurrence, else text. */
const STAGED_TYPES = STAGED_COLUMNS.map((column) => (column === 'import_id' ? 'bigint' : column === 'line' || column === 'occurrence' ? 'int' : 'text'));

/** What the match statements set: the line's subject and row, how, and its day (the ledger's, once matched). */
interface MatchStep {
  table: 'payins' | 'payouts';
  subject: 'payin' | 'payout';
  lineTypes: string;
  lineColumn: string;
  ledgerColumn: string;
  matchedBy: string;
}

/** Pay-ins by payin_id, else request_id; payouts and their reversals by payout_id, else merchantReference. */
const MATCH_STEPS: readonly MatchStep[] = [
  { table: 'payins', subject: 'payin', lineTypes: "('payin')", lineColumn: 'payin_id', ledgerColumn: 'payin_id', matchedBy: 'payin_id' },
  { table: 'payins', subject: 'payin', lineTypes: "('payin')", lineColumn: 'request_id', ledgerColumn: 'request_id', matchedBy: 'request_id' },
  { table: 'payouts', subject: 'payout', lineTypes: "('payout', 'payout_reversal')", lineColumn: 'payout_id', ledgerColumn: 'payout_id', matchedBy: 'payout_id' },
  { table: 'payouts', subject: 'payout', lineTypes: "('payout', 'payout_reversal')", lineColumn: 'merchant_reference', ledgerColumn: 'merchant_reference', matchedBy: 'merchantReference' },
];

/** What the settlement and line views look at: a profile and a range of days. */
export interface StatementFilter {
  profileId?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

const settlementConditions = (filter: StatementFilter) =>
  conditions([
    ['profile_id = ?', filter.profileId],
    ['value_date >= ?', filter.from],
    ['value_date <= ?', filter.to],
  ]);

export class SettlementLinesRepository {
  constructor(private readonly db: Sql) {}

  async stage(importId: number, lines: readonly StagedSettlementLine[]): Promise<void> {
    await insertStaged(this.db, 'settlement_staging', STAGED_COLUMNS, STAGED_TYPES, lines.map((l) => stagedValues(importId, l)));
  }

  async dropStaged(importId: number): Promise<void> {
    await dropStagedLines(this.db, 'settlement_staging', importId);
  }

  /**
   * The staged lines into the ledger, each once per profile: its key is its natural key and its
   * occurrence among the file's lines of that key, so a line the report repeats stays twice and a
   * file imported again adds none. The import staged the occurrence of each line whose key it had
   * not seen before (1); the lines of the keys that may repeat (those staged without one) are
   * counted here, every line of those keys in file order, so only they are sorted. A pay-in line is matched by its payin_id as it goes in (the
   * first of matchByIds's steps, done in the same pass: most lines are matched here). A line's day
   * is its pay-in's, else its own time or booking date, else the day it was imported: a line with
   * none of them (a report without dates, for a pay-in the ledger does not have) still falls within
   * a screen's days. Returns how many lines were added and how many of them were matched. In the
   * caller's transaction.
   */
  async commitStaged(importId: number, profileId: string): Promise<{ added: number; matched: number }> {
    await this.db.run(
      `UPDATE settlement_staging SET occurrence = r.occurrence
       FROM (SELECT line, row_number() OVER (PARTITION BY base_key ORDER BY line) AS occurrence FROM settlement_staging
             WHERE import_id = ? AND base_key IN (SELECT base_key FROM settlement_staging WHERE import_id = ? AND occurrence IS NULL)) r
       WHERE settlement_staging.import_id = ? AND settlement_staging.line = r.line`,
      [importId, importId, importId],
    );
    const added = await this.db.run(
      `INSERT INTO settlement_lines (profile_id, import_id, line, line_key, line_type, settlement_id, wallet_id, payin_id, request_id, payout_id, merchant_reference, topup_id,
         method, currency, amount, fee, net, direction, occurred_at, booking_date, day, subject, row_id, matched_by)
       SELECT ?, s.import_id, s.line, s.base_key || '#' || CAST(s.occurrence AS TEXT), s.line_type, s.settlement_id, s.wallet_id,
         s.payin_id, s.request_id, s.payout_id, s.merchant_reference, s.topup_id, coalesce(s.method, p.method), s.currency, s.amount, s.fee, s.net, s.direction, s.occurred_at,
         s.booking_date, coalesce(substr(p.created_at, 1, 10), substr(s.occurred_at, 1, 10), s.booking_date, substr(i.started_at, 1, 10)),
         CASE WHEN p.id IS NOT NULL THEN 'payin' END, p.id, CASE WHEN p.id IS NOT NULL THEN 'payin_id' END
       FROM settlement_staging s JOIN statement_imports i ON i.id = s.import_id
         LEFT JOIN payins p ON s.line_type = 'payin' AND p.payin_id = s.payin_id AND p.profile_id = ?
       WHERE s.import_id = ?
       ON CONFLICT (profile_id, line_key) DO NOTHING`,
      [profileId, profileId, importId],
    );
    // The lines left unmatched are few (the partial index holds only those): what was added less them was matched.
    const unmatched = await this.db.get<{ n: number }>('SELECT count(*) AS n FROM settlement_lines WHERE profile_id = ? AND row_id IS NULL AND import_id = ?', [profileId, importId]);
    return { added, matched: added - (unmatched?.n ?? 0) };
  }

  /**
   * The settlements the staged lines name, summed again from every line the ledger holds of them
   * (credits less debits; fees added), and stored. In the caller's transaction, before the staged
   * lines are dropped.
   */
  async refreshSettlementsOf(importId: number, profileId: string): Promise<void> {
    const engine = this.db.engine;
    const rows = await this.db.all<Record<string, unknown> & { settlement_id: string; direction: Direction; currency: string; value_date: string | null; n: number }>(
      `SELECT l.settlement_id, l.direction, min(l.currency) AS currency, min(l.booking_date) AS value_date, count(*) AS n,
         ${exactSumSql(engine, 'l.amount', 'amount')}, ${exactSumSql(engine, 'l.fee', 'fee')}, ${exactSumSql(engine, 'l.net', 'net')}
       FROM settlement_lines l
       WHERE l.profile_id = ? AND l.settlement_id IN (SELECT DISTINCT s.settlement_id FROM settlement_staging s WHERE s.import_id = ? AND s.settlement_id IS NOT NULL)
       GROUP BY l.settlement_id, l.direction`,
      [profileId, importId],
    );
    const sums = new Map<string, { currency: string; valueDate: string | null; lines: number; gross: string[]; fees: string[]; net: string[] }>();
    for (const r of rows) {
      const s = sums.get(r.settlement_id) ?? { currency: r.currency, valueDate: r.value_date, lines: 0, gross: [], fees: [], net: [] };
      const sign = r.direction === 'debit' ? '-' : '';
      s.lines += r.n;
      s.gross.push(`${sign}${exactSum(engine, r, 'amount')}`);
      s.fees.push(exactSum(engine, r, 'fee'));
      s.net.push(`${sign}${exactSum(engine, r, 'net')}`);
      if (r.value_date !== null && (s.valueDate === null || r.value_date < s.valueDate)) s.valueDate = r.value_date;
      sums.set(r.settlement_id, s);
    }
    for (const [settlementId, s] of sums) {
      const net = amountText(sumAmounts(s.net), s.currency);
      await this.db.run(
        `INSERT INTO settlements (profile_id, settlement_id, currency, value_date, lines, gross, fees, net, pays) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (profile_id, settlement_id) DO UPDATE SET currency = excluded.currency, value_date = excluded.value_date, lines = excluded.lines,
           gross = excluded.gross, fees = excluded.fees, net = excluded.net, pays = excluded.pays`,
        [profileId, settlementId, s.currency, s.valueDate, s.lines, amountText(sumAmounts(s.gross), s.currency), amountText(sumAmounts(s.fees), s.currency), net, compareAmounts(net, '0') > 0 ? 1 : 0],
      );
    }
  }

  /**
   * Matches the profile's unmatched lines (those no person decided) by id, one set-based statement
   * per id in order: payin_id, request_id, payout_id, merchantReference. A matched line takes the
   * ledger row's day, and its method when the report gave none. Returns the lines matched.
   */
  async matchByIds(profileId: string): Promise<number> {
    let matched = 0;
    for (const step of MATCH_STEPS) {
      matched += await this.db.run(
        `UPDATE settlement_lines SET subject = '${step.subject}', row_id = t.id, matched_by = '${step.matchedBy}', day = substr(t.created_at, 1, 10),
           method = coalesce(settlement_lines.method, t.method)
         FROM ${step.table} t
         WHERE settlement_lines.profile_id = ? AND settlement_lines.row_id IS NULL AND settlement_lines.held = 0
           AND settlement_lines.line_type IN ${step.lineTypes} AND settlement_lines.${step.lineColumn} IS NOT NULL
           AND t.profile_id = settlement_lines.profile_id AND t.${step.ledgerColumn} = settlement_lines.${step.lineColumn}`,
        [profileId],
      );
    }
    return matched;
  }

  async byId(id: number): Promise<SettlementLineRecord | undefined> {
    const row = await this.db.get<LineRow>('SELECT * FROM settlement_lines WHERE id = ?', [id]);
    return row && toLine(row);
  }

  /** A person's match (row given) or unmatch (null): held from then on, whatever matching runs later. */
  async decide(id: number, d: { subject: 'payin' | 'payout' | null; rowId: number | null; day: string | null; decidedBy: string | null; decidedAt: string; note: string }): Promise<void> {
    await this.db.run(
      `UPDATE settlement_lines SET subject = ?, row_id = ?, matched_by = ?, held = 1, decided_by = ?, decided_at = ?, note = ?,
         day = coalesce(?, substr(occurred_at, 1, 10), booking_date, (SELECT substr(i.started_at, 1, 10) FROM statement_imports i WHERE i.id = settlement_lines.import_id)) WHERE id = ?`,
      [d.subject, d.rowId, d.rowId === null ? null : 'person', d.decidedBy, d.decidedAt, d.note, d.day, id],
    );
  }

  /** The lines that settle this pay-in or payout (its evidence), in the order they were imported. */
  async forRow(subject: 'payin' | 'payout', rowId: number): Promise<SettlementLineRecord[]> {
    return (await this.db.all<LineRow>('SELECT * FROM settlement_lines WHERE subject = ? AND row_id = ? ORDER BY import_id, line', [subject, rowId])).map(toLine);
  }

  /** A settlement's lines in report order (the import that brought them, then their line), at most `limit`. */
  async ofSettlement(profileId: string, settlementId: string, limit: number): Promise<SettlementLineRecord[]> {
    return (await this.db.all<LineRow>('SELECT * FROM settlement_lines WHERE profile_id = ? AND settlement_id = ? ORDER BY import_id, line LIMIT ?', [profileId, settlementId, limit])).map(toLine);
  }

  async settlement(profileId: string, settlementId: string): Promise<SettlementRecord | undefined> {
    const row = await this.db.get<SettlementRow>('SELECT * FROM settlements WHERE profile_id = ? AND settlement_id = ?', [profileId, settlementId]);
    return row && toSettlement(row);
  }

  /** Settlements newest first (by value date, then id), after the cursor's position. */
  async settlements(filter: StatementFilter, after: { valueDate: string; id: number } | null, limit: number): Promise<SettlementRecord[]> {
    const c = settlementConditions(filter);
    const page = after === null ? [] : ["(coalesce(value_date, '') < ? OR (coalesce(value_date, '') = ? AND id < ?))"];
    const rows = await this.db.all<SettlementRow>(`SELECT * FROM settlements ${whereOf(c, page)} ORDER BY coalesce(value_date, '') DESC, id DESC LIMIT ?`, [
      ...(after === null ? [] : [after.valueDate, after.valueDate, after.id]),
      ...c.params,
      limit,
    ]);
    return rows.map(toSettlement);
  }

  async countSettlements(filter: StatementFilter): Promise<number> {
    const c = settlementConditions(filter);
    return (await this.db.get<{ n: number }>(`SELECT count(*) AS n FROM settlements ${whereOf(c)}`, c.params))?.n ?? 0;
  }

  /** Pay-in lines per day, currency and method: counts, and amounts and fees summed exactly. */
  async settledByDay(filter: StatementFilter): Promise<{ day: string; currency: string; method: string; count: number; amount: string; fees: string }[]> {
    const engine = this.db.engine;
    const c = conditions([
      ['profile_id = ?', filter.profileId],
      ['day >= ?', filter.from],
      ['day <= ?', filter.to],
    ]);
    const where = whereOf(c, ["line_type = 'payin'", 'day IS NOT NULL']);
    const params = c.params;
    const rows = await this.db.all<Record<string, unknown> & { day: string; currency: string; method: string; n: number }>(
      `SELECT day, currency, coalesce(method, '') AS method, count(*) AS n, ${exactSumSql(engine, 'amount', 'amount')}, ${exactSumSql(engine, 'fee', 'fee')}
       FROM settlement_lines ${where} GROUP BY day, currency, coalesce(method, '') ORDER BY day, currency, method`,
      params,
    );
    return rows.map((r) => ({ day: r.day, currency: r.currency, method: r.method, count: r.n, amount: exactSum(engine, r, 'amount'), fees: exactSum(engine, r, 'fee') }));
  }
}
