// Totals per UTC day, currency, method and status, for pay-ins and payouts, summed exactly.
// SQLite cannot add decimal TEXT exactly (sum() would go through binary floats), so each amount is
// split in SQL into its integer part and its fraction scaled to 10 digits (the largest scale, crypto),
// both summed as 64-bit integers and read as BigInt; the group total is int + frac / 10^10, in
// decimal.js. One covering-index pass (payins_totals / payouts_totals) and a GROUP BY, however many
// rows. A sum too large for 64 bits (SQLite raises "integer overflow") falls back to adding every
// amount of the range with decimal.js: slower, still exact.
import DecimalJs from 'decimal.js';
import type { StatusCategoryView, TotalsInput, TotalsRow } from '../../../shared/contract';
import { isCryptoMethod } from '../../../shared/spec/methods';
import type { Ledger } from '../../ledger/connection';
import { statusFacts, type TransactionKind } from '../../ledger/status';

// Enough significant digits for any sum of amounts of at most 15 integer and 10 decimal digits
// (decimal.js rounds to 20 by default, which would not be exact).
const Decimal = DecimalJs.clone({ precision: 80 });
type Decimal = InstanceType<typeof Decimal>;

const FRACTION_DIGITS = 10;
const FRACTION_UNIT = new Decimal(10).pow(FRACTION_DIGITS);

const INT_PART = "CAST(CASE WHEN instr(amount, '.') > 0 THEN substr(amount, 1, instr(amount, '.') - 1) ELSE amount END AS INTEGER)";
const FRAC_PART = `CASE WHEN instr(amount, '.') > 0 THEN CAST(substr(substr(amount, instr(amount, '.') + 1) || '${'0'.repeat(FRACTION_DIGITS)}', 1, ${FRACTION_DIGITS}) AS INTEGER) ELSE 0 END`;

export interface CurrencyTotal {
  subject: TransactionKind;
  currency: string;
  statusCategory: StatusCategoryView | null;
  count: number;
  amount: string;
}

/** Fiat amounts with 2 decimals; a total that includes crypto keeps every decimal it has (at least 2). */
export function formatTotal(value: Decimal, crypto: boolean): string {
  return crypto ? value.toFixed(Math.max(2, value.decimalPlaces())) : value.toFixed(2);
}

interface GroupRow {
  day: string;
  currency: string;
  method: string;
  status_code: string | null;
  n: bigint;
  int_sum: bigint | null;
  frac_sum: bigint | null;
}

function range(input: TotalsInput): { where: string; params: unknown[] } {
  const terms: string[] = [];
  const params: unknown[] = [];
  if (input.from) {
    terms.push('created_at >= ?');
    params.push(`${input.from}T00:00:00.000Z`);
  }
  if (input.to) {
    terms.push('created_at < ?');
    params.push(new Date(Date.parse(`${input.to}T00:00:00.000Z`) + 86_400_000).toISOString());
  }
  if (input.profileId) {
    terms.push('profile_id = ?');
    params.push(input.profileId);
  }
  return { where: terms.length > 0 ? `WHERE ${terms.join(' AND ')}` : '', params };
}

/** The grouped query; public so its plan can be checked. */
export function totalsQuery(table: 'payins' | 'payouts', input: TotalsInput): { sql: string; params: unknown[] } {
  const { where, params } = range(input);
  return {
    sql: `SELECT substr(created_at, 1, 10) AS day, currency, method, status_code, count(*) AS n,
            sum(${INT_PART}) AS int_sum, sum(${FRAC_PART}) AS frac_sum
          FROM ${table} INDEXED BY ${table}_totals ${where}
          GROUP BY day, currency, method, status_code
          ORDER BY day, currency, method, status_code`,
    params,
  };
}

function grouped(db: Ledger, table: 'payins' | 'payouts', input: TotalsInput): { key: Omit<GroupRow, 'n' | 'int_sum' | 'frac_sum'>; count: number; sum: Decimal }[] {
  const { sql, params } = totalsQuery(table, input);
  try {
    const rows = db.prepare(sql).safeIntegers(true).all(...params) as GroupRow[];
    return rows.map((r) => ({
      key: { day: r.day, currency: r.currency, method: r.method, status_code: r.status_code },
      count: Number(r.n),
      sum: new Decimal((r.int_sum ?? 0n).toString()).plus(new Decimal((r.frac_sum ?? 0n).toString()).div(FRACTION_UNIT)),
    }));
  } catch (error) {
    if (!/integer overflow/i.test((error as Error).message)) throw error;
    return groupedInJs(db, table, input);
  }
}

/** The slow exact path: every amount added with decimal.js. */
function groupedInJs(db: Ledger, table: 'payins' | 'payouts', input: TotalsInput) {
  const { where, params } = range(input);
  const groups = new Map<string, { key: Omit<GroupRow, 'n' | 'int_sum' | 'frac_sum'>; count: number; sum: Decimal }>();
  const rows = db
    .prepare(`SELECT substr(created_at, 1, 10) AS day, currency, method, status_code, amount FROM ${table} INDEXED BY ${table}_totals ${where}`)
    .iterate(...params) as IterableIterator<{ day: string; currency: string; method: string; status_code: string | null; amount: string }>;
  for (const r of rows) {
    const id = JSON.stringify([r.day, r.currency, r.method, r.status_code]);
    let group = groups.get(id);
    if (!group) {
      group = { key: { day: r.day, currency: r.currency, method: r.method, status_code: r.status_code }, count: 0, sum: new Decimal(0) };
      groups.set(id, group);
    }
    group.count++;
    group.sum = group.sum.plus(r.amount);
  }
  return [...groups.values()].sort((a, b) => {
    const x = [a.key.day, a.key.currency, a.key.method, a.key.status_code ?? ''].join('\u0000');
    const y = [b.key.day, b.key.currency, b.key.method, b.key.status_code ?? ''].join('\u0000');
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

export function computeTotals(db: Ledger, input: TotalsInput): { rows: TotalsRow[]; byCurrency: CurrencyTotal[] } {
  const subjects = input.subjects ?? ['payin', 'payout'];
  const rows: TotalsRow[] = [];
  const byCurrency = new Map<string, { total: CurrencyTotal; sum: Decimal; crypto: boolean }>();
  for (const subject of subjects) {
    for (const group of grouped(db, subject === 'payin' ? 'payins' : 'payouts', input)) {
      const facts = group.key.status_code === null ? null : statusFacts(subject, group.key.status_code);
      const crypto = isCryptoMethod(group.key.method);
      rows.push({
        subject,
        day: group.key.day,
        currency: group.key.currency,
        method: group.key.method,
        statusCode: group.key.status_code,
        statusCategory: facts?.category ?? null,
        final: facts?.final ?? false,
        count: group.count,
        amount: formatTotal(group.sum, crypto),
      });
      const id = JSON.stringify([subject, group.key.currency, facts?.category ?? null]);
      const entry = byCurrency.get(id) ?? {
        total: { subject, currency: group.key.currency, statusCategory: facts?.category ?? null, count: 0, amount: '0' },
        sum: new Decimal(0),
        crypto: false,
      };
      entry.total.count += group.count;
      entry.sum = entry.sum.plus(group.sum);
      entry.crypto ||= crypto;
      byCurrency.set(id, entry);
    }
  }
  const currencyTotals = [...byCurrency.values()]
    .map((e) => ({ ...e.total, amount: formatTotal(e.sum, e.crypto) }))
    .sort((a, b) => a.subject.localeCompare(b.subject) || a.currency.localeCompare(b.currency) || String(a.statusCategory).localeCompare(String(b.statusCategory)));
  return { rows, byCurrency: currencyTotals };
}
