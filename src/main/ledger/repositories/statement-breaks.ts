// The break queues of statements: what the ledger, the settlement reports and the bank statements
// do not agree on. Each queue is one query with the same columns, paged by one number (its
// position: a line's, a settlement's, a bank line's id, or a transaction's row id twice, plus one
// for a payout), counted by the same query.
import type { Sql, SqlValue } from '../engine/types';
import { dayBounds } from '../support';
import { conditions } from './conditions';

export type BreakQueue =
  | 'unsettled'
  | 'not_successful'
  | 'amount_differs'
  | 'unknown_to_ledger'
  | 'settled_twice'
  | 'no_bank_credit'
  | 'credit_without_settlement'
  | 'credit_differs';

export interface BreakFilter {
  profileId?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  /** Unsettled: succeeded before this instant. */
  succeededBefore: string;
}

export interface BreakRecord {
  pos: number;
  profileId: string;
  subject: 'payin' | 'payout' | null;
  rowId: number | null;
  settlementId: string | null;
  lineId: number | null;
  bankLineId: number | null;
  reference: string | null;
  gatewayId: string | null;
  method: string | null;
  amount: string | null;
  currency: string | null;
  otherAmount: string | null;
  otherCurrency: string | null;
  status: string | null;
  times: number | null;
  date: string | null;
}

interface BreakRow {
  pos: number;
  profile_id: string;
  subject: 'payin' | 'payout' | null;
  row_id: number | null;
  settlement_id: string | null;
  line_id: number | null;
  bank_line_id: number | null;
  reference: string | null;
  gateway_id: string | null;
  method: string | null;
  amount: string | null;
  currency: string | null;
  other_amount: string | null;
  other_currency: string | null;
  status: string | null;
  times: number | null;
  date: string | null;
}

const toBreak = (r: BreakRow): BreakRecord => ({
  pos: Number(r.pos),
  profileId: r.profile_id,
  subject: r.subject,
  rowId: r.row_id,
  settlementId: r.settlement_id,
  lineId: r.line_id,
  bankLineId: r.bank_line_id,
  reference: r.reference,
  gatewayId: r.gateway_id,
  method: r.method,
  amount: r.amount,
  currency: r.currency,
  otherAmount: r.other_amount,
  otherCurrency: r.other_currency,
  status: r.status,
  times: r.times === null ? null : Number(r.times),
  date: r.date,
});

const NO_TEXT = 'CAST(NULL AS TEXT)';
const NO_ID = 'CAST(NULL AS BIGINT)';

/** A query and its parameters. */
interface Part {
  sql: string;
  params: SqlValue[];
}

/** The terms a filter adds on a column of days (YYYY-MM-DD) and on the profile. */
function scoped(filter: BreakFilter, profileColumn: string, dayColumn: string): Part {
  const c = conditions([
    [`${profileColumn} = ?`, filter.profileId],
    [`${dayColumn} >= ?`, filter.from],
    [`${dayColumn} <= ?`, filter.to],
  ]);
  return { sql: c.terms.map((t) => ` AND ${t}`).join(''), params: c.params };
}

/** As scoped, for a transaction table: its creation instant within the days. */
function scopedByCreation(filter: BreakFilter, alias: string): Part {
  const { since, until } = dayBounds(filter);
  const c = conditions([
    [`${alias}.profile_id = ?`, filter.profileId],
    [`${alias}.created_at >= ?`, since],
    [`${alias}.created_at < ?`, until],
  ]);
  return { sql: c.terms.map((t) => ` AND ${t}`).join(''), params: c.params };
}

const SUCCEEDED = (alias: string) => `${alias}.status_category = 'success' AND ${alias}.final = 1`;

/** The columns of a line's row joined to its pay-in (p) or payout (o). */
const lineColumns = (ledger: 'p' | 'o') => {
  const reference = ledger === 'p' ? 'p.request_id' : 'o.merchant_reference';
  const gatewayId = ledger === 'p' ? 'p.payin_id' : 'o.payout_id';
  return `l.id AS pos, l.profile_id, l.subject, l.row_id, l.settlement_id, l.id AS line_id, ${NO_ID} AS bank_line_id, ${reference} AS reference, ${gatewayId} AS gateway_id,
    l.method, l.amount, l.currency, ${ledger}.amount AS other_amount, ${ledger}.currency AS other_currency, ${ledger}.status_code AS status, ${NO_ID} AS times, l.day AS date`;
};

function queueQuery(queue: BreakQueue, f: BreakFilter): Part {
  switch (queue) {
    case 'unsettled': {
      const payins = scopedByCreation(f, 'p');
      const payouts = scopedByCreation(f, 'o');
      return {
        sql: `SELECT p.id * 2 AS pos, p.profile_id, 'payin' AS subject, p.id AS row_id, ${NO_TEXT} AS settlement_id, ${NO_ID} AS line_id, ${NO_ID} AS bank_line_id,
            p.request_id AS reference, p.payin_id AS gateway_id, p.method, ${NO_TEXT} AS amount, ${NO_TEXT} AS currency, p.amount AS other_amount, p.currency AS other_currency,
            p.status_code AS status, ${NO_ID} AS times, substr(coalesce(p.status_changed_at, p.created_at), 1, 10) AS date
          FROM payins p
          WHERE ${SUCCEEDED('p')} AND coalesce(p.status_changed_at, p.created_at) < ?${payins.sql}
            AND NOT EXISTS (SELECT 1 FROM settlement_lines l WHERE l.subject = 'payin' AND l.row_id = p.id)
          UNION ALL
          SELECT o.id * 2 + 1, o.profile_id, 'payout', o.id, ${NO_TEXT}, ${NO_ID}, ${NO_ID}, o.merchant_reference, o.payout_id, o.method, ${NO_TEXT}, ${NO_TEXT}, o.amount, o.currency,
            o.status_code, ${NO_ID}, substr(coalesce(o.status_changed_at, o.created_at), 1, 10)
          FROM payouts o
          WHERE ${SUCCEEDED('o')} AND coalesce(o.status_changed_at, o.created_at) < ?${payouts.sql}
            AND NOT EXISTS (SELECT 1 FROM settlement_lines l WHERE l.subject = 'payout' AND l.row_id = o.id AND l.line_type = 'payout')`,
        params: [f.succeededBefore, ...payins.params, f.succeededBefore, ...payouts.params],
      };
    }
    case 'not_successful': {
      const lines = scoped(f, 'l.profile_id', 'l.day');
      return {
        sql: `SELECT ${lineColumns('p')} FROM settlement_lines l JOIN payins p ON p.id = l.row_id
          WHERE l.subject = 'payin' AND l.line_type = 'payin' AND NOT (coalesce(p.status_category, '') = 'success' AND p.final = 1)${lines.sql}
          UNION ALL
          SELECT ${lineColumns('o')} FROM settlement_lines l JOIN payouts o ON o.id = l.row_id
          WHERE l.subject = 'payout' AND l.line_type = 'payout' AND o.final = 1 AND coalesce(o.status_category, '') <> 'success'${lines.sql}
            AND NOT EXISTS (SELECT 1 FROM settlement_lines r WHERE r.subject = 'payout' AND r.row_id = l.row_id AND r.line_type = 'payout_reversal')`,
        params: [...lines.params, ...lines.params],
      };
    }
    case 'amount_differs': {
      const lines = scoped(f, 'l.profile_id', 'l.day');
      return {
        sql: `SELECT ${lineColumns('p')} FROM settlement_lines l JOIN payins p ON p.id = l.row_id
          WHERE l.subject = 'payin' AND (l.amount <> p.amount OR l.currency <> p.currency)${lines.sql}
          UNION ALL
          SELECT ${lineColumns('o')} FROM settlement_lines l JOIN payouts o ON o.id = l.row_id
          WHERE l.subject = 'payout' AND (l.amount <> o.amount OR l.currency <> o.currency)${lines.sql}`,
        params: [...lines.params, ...lines.params],
      };
    }
    case 'unknown_to_ledger': {
      const lines = scoped(f, 'l.profile_id', 'l.day');
      return {
        sql: `SELECT l.id AS pos, l.profile_id, ${NO_TEXT} AS subject, ${NO_ID} AS row_id, l.settlement_id, l.id AS line_id, ${NO_ID} AS bank_line_id,
            coalesce(l.request_id, l.merchant_reference) AS reference, coalesce(l.payin_id, l.payout_id) AS gateway_id, l.method, l.amount, l.currency,
            ${NO_TEXT} AS other_amount, ${NO_TEXT} AS other_currency, ${NO_TEXT} AS status, ${NO_ID} AS times, l.day AS date
          FROM settlement_lines l WHERE l.row_id IS NULL AND l.line_type <> 'topup'${lines.sql}`,
        params: lines.params,
      };
    }
    case 'settled_twice': {
      const lines = scoped(f, 'l.profile_id', 'l.day');
      return {
        sql: `SELECT g.pos, g.profile_id, g.subject, g.row_id, g.settlement_id, ${NO_ID} AS line_id, ${NO_ID} AS bank_line_id,
            coalesce(p.request_id, o.merchant_reference) AS reference, coalesce(p.payin_id, o.payout_id) AS gateway_id, coalesce(p.method, o.method) AS method,
            g.amount, g.currency, coalesce(p.amount, o.amount) AS other_amount, coalesce(p.currency, o.currency) AS other_currency,
            coalesce(p.status_code, o.status_code) AS status, g.times, g.date
          FROM (
            SELECT l.row_id * 2 + (CASE WHEN l.subject = 'payout' THEN 1 ELSE 0 END) AS pos, min(l.profile_id) AS profile_id, l.subject, l.row_id,
              min(l.settlement_id) AS settlement_id, min(l.amount) AS amount, min(l.currency) AS currency, count(*) AS times, max(l.day) AS date
            FROM settlement_lines l WHERE l.row_id IS NOT NULL AND l.line_type IN ('payin', 'payout')${lines.sql}
            GROUP BY l.subject, l.row_id HAVING count(*) > 1
          ) g
          LEFT JOIN payins p ON g.subject = 'payin' AND p.id = g.row_id
          LEFT JOIN payouts o ON g.subject = 'payout' AND o.id = g.row_id`,
        params: lines.params,
      };
    }
    case 'no_bank_credit':
    case 'credit_differs': {
      const settlements = scoped(f, 's.profile_id', 's.value_date');
      const which = queue === 'no_bank_credit' ? 's.pays = 1 AND s.credits = 0' : 's.credits > 0 AND s.credit_agrees = 0';
      return {
        sql: `SELECT s.id AS pos, s.profile_id, ${NO_TEXT} AS subject, ${NO_ID} AS row_id, s.settlement_id, ${NO_ID} AS line_id, ${NO_ID} AS bank_line_id,
            ${NO_TEXT} AS reference, ${NO_TEXT} AS gateway_id, ${NO_TEXT} AS method, s.net AS amount, s.currency, s.credited AS other_amount,
            CASE WHEN s.credits > 0 THEN s.currency END AS other_currency, ${NO_TEXT} AS status, s.credits AS times, s.value_date AS date
          FROM settlements s WHERE ${which}${settlements.sql}`,
        params: settlements.params,
      };
    }
    case 'credit_without_settlement': {
      const bank = scoped(f, 'b.profile_id', 'b.booking_date');
      return {
        sql: `SELECT b.id AS pos, b.profile_id, ${NO_TEXT} AS subject, ${NO_ID} AS row_id, ${NO_TEXT} AS settlement_id, ${NO_ID} AS line_id, b.id AS bank_line_id,
            coalesce(b.end_to_end_id, b.entry_ref) AS reference, b.entry_ref AS gateway_id, ${NO_TEXT} AS method, b.amount, b.currency,
            ${NO_TEXT} AS other_amount, ${NO_TEXT} AS other_currency, ${NO_TEXT} AS status, ${NO_ID} AS times, b.booking_date AS date
          FROM bank_lines b WHERE b.settlement_id IS NULL AND b.direction = 'credit'${bank.sql}`,
        params: bank.params,
      };
    }
  }
}

export class StatementBreaksRepository {
  constructor(private readonly db: Sql) {}

  /** `limit` rows of the queue after position `after` (null: from its start), in position order. */
  async page(queue: BreakQueue, filter: BreakFilter, after: number | null, limit: number): Promise<BreakRecord[]> {
    const q = queueQuery(queue, filter);
    const rows = await this.db.all<BreakRow>(`SELECT * FROM (${q.sql}) q ${after === null ? '' : 'WHERE q.pos > ?'} ORDER BY q.pos LIMIT ?`, [
      ...q.params,
      ...(after === null ? [] : [after]),
      limit,
    ]);
    return rows.map(toBreak);
  }

  async count(queue: BreakQueue, filter: BreakFilter): Promise<number> {
    const q = queueQuery(queue, filter);
    return (await this.db.get<{ n: number }>(`SELECT count(*) AS n FROM (${q.sql}) q`, q.params))?.n ?? 0;
  }
}
