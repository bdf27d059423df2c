// Main sends totals per (subject, day, currency, method, status), each summed exactly. The screen
// regroups them by one dimension; the sums stay exact (decimal strings through the shared money
// helpers). Pay-ins and payouts are never added together (money in vs money out), nor are
// currencies. Charts get Number() values, for plotting only: no figure shown as text comes from them.
import type { StatusCategoryView, TotalsRow, TransactionSubject } from '../../../shared/contract';
import { amountText, sumAmounts } from '../../../shared/money';

export type Grouping = 'day' | 'currency' | 'method' | 'status';

export interface TotalsGroup {
  key: string;
  subject: TransactionSubject;
  /** The grouped value: a UTC day, a currency, a method or a status code (null: no answer yet). */
  value: string | null;
  currency: string;
  statusCategory: StatusCategoryView | null;
  count: number;
  amount: string;
  succeededCount: number;
  succeededAmount: string;
}

/** The exact sum of one currency's amounts, as that currency writes it (the way main writes its totals). */
export function exactTotal(amounts: readonly string[], currency: string): string {
  return amountText(sumAmounts(amounts), currency);
}

function valueOf(row: TotalsRow, by: Grouping): string | null {
  switch (by) {
    case 'day':
      return row.day;
    case 'currency':
      return row.currency;
    case 'method':
      return row.method;
    case 'status':
      return row.statusCode;
  }
}

const collator = new Intl.Collator('en', { numeric: true });

export function groupTotals(rows: readonly TotalsRow[], by: Grouping): TotalsGroup[] {
  const groups = new Map<string, { head: TotalsRow; value: string | null; count: number; amounts: string[]; succeededCount: number; succeeded: string[] }>();
  for (const row of rows) {
    const value = valueOf(row, by);
    const key = by === 'currency' ? `${row.subject}|${row.currency}` : `${row.subject}|${value ?? ''}|${row.currency}`;
    let group = groups.get(key);
    if (!group) {
      group = { head: row, value, count: 0, amounts: [], succeededCount: 0, succeeded: [] };
      groups.set(key, group);
    }
    group.count += row.count;
    group.amounts.push(row.amount);
    if (row.statusCategory === 'success') {
      group.succeededCount += row.count;
      group.succeeded.push(row.amount);
    }
  }
  const result = [...groups.entries()].map(([key, g]) => ({
    key,
    subject: g.head.subject,
    value: g.value,
    currency: g.head.currency,
    statusCategory: by === 'status' ? g.head.statusCategory : null,
    count: g.count,
    amount: exactTotal(g.amounts, g.head.currency),
    succeededCount: g.succeededCount,
    succeededAmount: exactTotal(g.succeeded, g.head.currency),
  }));
  // Newest day first; everything else in natural order (codes numerically), pay-ins before payouts.
  return result.sort(
    (a, b) =>
      a.subject.localeCompare(b.subject) ||
      (by === 'day' ? collator.compare(b.value ?? '', a.value ?? '') : collator.compare(a.value ?? '', b.value ?? '')) ||
      a.currency.localeCompare(b.currency),
  );
}

export const subjectLabels: Record<TransactionSubject, string> = { payin: 'Pay-ins', payout: 'Payouts' };

export interface ChartSeries {
  name: string;
  label: string;
}

/** One bar group per day, one bar per subject and currency (amounts of different currencies are never stacked). */
export function amountsByDay(rows: readonly TotalsRow[]): { data: Record<string, string | number>[]; series: ChartSeries[] } {
  const perDay = new Map<string, Map<string, string[]>>();
  const names = new Map<string, string>();
  for (const row of rows) {
    const name = `${row.subject}_${row.currency}`;
    names.set(name, `${subjectLabels[row.subject]} ${row.currency}`);
    const day = perDay.get(row.day) ?? new Map<string, string[]>();
    perDay.set(row.day, day);
    day.set(name, [...(day.get(name) ?? []), row.amount]);
  }
  const data = [...perDay.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([day, sums]) => ({ day, ...Object.fromEntries([...sums.entries()].map(([name, amounts]) => [name, Number(sumAmounts(amounts))])) }));
  const series = [...names.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([name, label]) => ({ name, label }));
  return { data, series };
}

/** Transactions per status category and subject: counts, so currencies never mix. */
export function countsByCategory(rows: readonly TotalsRow[], labels: Record<string, string>): { data: Record<string, string | number>[]; series: ChartSeries[] } {
  const counts = new Map<string, Record<TransactionSubject, number>>();
  const subjects = new Set<TransactionSubject>();
  for (const row of rows) {
    const category = row.statusCategory ?? 'none';
    const entry = counts.get(category) ?? { payin: 0, payout: 0 };
    entry[row.subject] += row.count;
    counts.set(category, entry);
    subjects.add(row.subject);
  }
  const data = [...counts.entries()].map(([category, n]) => ({ category: labels[category] ?? 'No answer yet', payin: n.payin, payout: n.payout }));
  const series = [...subjects].sort().map((subject) => ({ name: subject, label: subjectLabels[subject] }));
  return { data, series };
}
