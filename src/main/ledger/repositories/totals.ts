// Totals per UTC day, currency, method and status of pay-ins or payouts, summed exactly. SQLite
// cannot add decimal TEXT exactly (sum() would go through binary floats), so each amount is split
// in SQL into its integer part and its fraction scaled to 10 digits (the largest scale, crypto),
// both summed as 64-bit integers and read as BigInt; the group total is int + frac / 10^10. One
// covering-index pass (payins_day_totals / payouts_day_totals, led by the day: the rows arrive
// grouped, nothing is sorted) however many rows. A sum too large for 64 bits (SQLite raises
// "integer overflow") falls back to adding every amount of the range exactly (sumAmounts): slower,
// still exact. PostgreSQL sums them as NUMERIC, exactly.
import { sumAmounts } from '../../../shared/money';
import { decimalOf, fractionPartSql, integerPartSql } from './exact-sums';
import type { Sql, SqlValue } from '../engine/types';
import { TRANSACTION_KINDS, type TransactionKind } from '../../transaction-kinds';
import { dayBounds } from '../support';

const INT_PART = integerPartSql('amount');
const FRAC_PART = fractionPartSql('amount');

export interface TotalsRange {
  /** First UTC day (YYYY-MM-DD), included. */
  from?: string | undefined;
  /** Last UTC day (YYYY-MM-DD), included. */
  to?: string | undefined;
  profileId?: string | undefined;
}

export interface TotalsGroup {
  day: string;
  currency: string;
  method: string;
  statusCode: string | null;
  count: number;
  /** The exact sum, as plain decimal text. */
  sum: string;
}

interface GroupRow {
  day: string;
  currency: string;
  method: string;
  status_code: string | null;
  n: number;
  int_sum: string | null;
  frac_sum: string | null;
}

/** The UTC day of a row: SQLite's totals index (${table}_day_totals) leads with this expression. */
const DAY = 'substr(created_at, 1, 10)';

/**
 * The WHERE of a range. SQLite bounds the day its totals index leads with; PostgreSQL bounds
 * created_at, its totals index's first column. The two are the same rows: created_at is ISO UTC.
 */
function range(input: TotalsRange, engine: Sql['engine']): { where: string; params: SqlValue[] } {
  const terms: string[] = [];
  const params: SqlValue[] = [];
  const bound = (term: string, value: string | undefined) => {
    if (value === undefined) return;
    terms.push(term);
    params.push(value);
  };
  if (engine === 'sqlite') {
    bound(`${DAY} >= ?`, input.from || undefined);
    bound(`${DAY} <= ?`, input.to || undefined);
  } else {
    const { since, until } = dayBounds(input);
    bound('created_at >= ?', since);
    bound('created_at < ?', until);
  }
  bound('profile_id = ?', input.profileId || undefined);
  return { where: terms.length > 0 ? `WHERE ${terms.join(' AND ')}` : '', params };
}

const tableOf = (subject: TransactionKind) => TRANSACTION_KINDS[subject].ledger.table;

export class TotalsRepository {
  constructor(private readonly db: Sql) {}

  /** The groups of one table in the range, ordered by day, currency, method and status. */
  async groups(subject: TransactionKind, input: TotalsRange): Promise<TotalsGroup[]> {
    return this.db.engine === 'postgres' ? this.groupsInNumeric(subject, input) : this.groupsInIntegers(subject, input);
  }

  /** PostgreSQL adds decimals exactly itself (NUMERIC), and hands the sum back as text. */
  private async groupsInNumeric(subject: TransactionKind, input: TotalsRange): Promise<TotalsGroup[]> {
    const table = tableOf(subject);
    const { where, params } = range(input, this.db.engine);
    const rows = await this.db.all<{ day: string; currency: string; method: string; status_code: string | null; n: number; total: string }>(
      `SELECT substr(created_at, 1, 10) AS day, currency, method, status_code, count(*) AS n, CAST(sum(CAST(amount AS NUMERIC)) AS TEXT) AS total
       FROM ${table} ${where}
       GROUP BY day, currency, method, status_code
       ORDER BY day, currency, method, status_code NULLS FIRST`,
      params,
    );
    return rows.map((r) => ({ day: r.day, currency: r.currency, method: r.method, statusCode: r.status_code, count: r.n, sum: sumAmounts([r.total]) }));
  }

  /** SQLite: the integer and fraction parts summed as 64-bit integers, read back as text into BigInt. */
  private async groupsInIntegers(subject: TransactionKind, input: TotalsRange): Promise<TotalsGroup[]> {
    const table = tableOf(subject);
    const { where, params } = range(input, this.db.engine);
    try {
      const rows = await this.db.all<GroupRow>(
        `SELECT ${DAY} AS day, currency, method, status_code, count(*) AS n,
           CAST(sum(${INT_PART}) AS TEXT) AS int_sum, CAST(sum(${FRAC_PART}) AS TEXT) AS frac_sum
         FROM ${table} INDEXED BY ${table}_day_totals ${where}
         GROUP BY ${DAY}, currency, method, status_code
         ORDER BY ${DAY}, currency, method, status_code NULLS FIRST`,
        params,
      );
      return rows.map((r) => ({ day: r.day, currency: r.currency, method: r.method, statusCode: r.status_code, count: r.n, sum: decimalOf(BigInt(r.int_sum ?? 0), BigInt(r.frac_sum ?? 0)) }));
    } catch (error) {
      if (!/integer overflow/i.test((error as Error).message)) throw error;
      return this.groupsAddedOneByOne(subject, input);
    }
  }

  /** The slow exact path (SQLite): every amount of the range read and added. */
  private async groupsAddedOneByOne(subject: TransactionKind, input: TotalsRange): Promise<TotalsGroup[]> {
    const table = tableOf(subject);
    const { where, params } = range(input, this.db.engine);
    const groups = new Map<string, TotalsGroup>();
    const rows = await this.db.all<{ day: string; currency: string; method: string; status_code: string | null; amount: string }>(
      `SELECT ${DAY} AS day, currency, method, status_code, amount FROM ${table} INDEXED BY ${table}_day_totals ${where}`,
      params,
    );
    for (const r of rows) {
      const id = JSON.stringify([r.day, r.currency, r.method, r.status_code]);
      const group = groups.get(id) ?? { day: r.day, currency: r.currency, method: r.method, statusCode: r.status_code, count: 0, sum: '0' };
      group.count++;
      group.sum = sumAmounts([group.sum, r.amount]);
      groups.set(id, group);
    }
    const order = (g: TotalsGroup) => [g.day, g.currency, g.method, g.statusCode ?? ''].join('\u0000');
    return [...groups.values()].sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
  }
}
