// Totals per UTC day, currency, method and status, for pay-ins and payouts (the ledger's
// TotalsRepository sums each group exactly), and per currency and status category.
import type { StatusCategoryView, TotalsInput, TotalsRow } from '../../../shared/contract';
import { amountText, sumAmounts } from '../../../shared/money';
import type { TotalsRepository } from '../../ledger/repositories/totals';
import { statusFacts, type TransactionKind } from '../../ledger/status';

export interface CurrencyTotal {
  subject: TransactionKind;
  currency: string;
  statusCategory: StatusCategoryView | null;
  count: number;
  amount: string;
}

export async function computeTotals(totals: TotalsRepository, input: TotalsInput): Promise<{ rows: TotalsRow[]; byCurrency: CurrencyTotal[] }> {
  const subjects = input.subjects ?? ['payin', 'payout'];
  const rows: TotalsRow[] = [];
  const byCurrency = new Map<string, { total: CurrencyTotal; sums: string[] }>();
  for (const subject of subjects) {
    for (const group of await totals.groups(subject, input)) {
      const facts = group.statusCode === null ? null : statusFacts(subject, group.statusCode);
      // A sum as its currency writes it: every decimal it has, at least the currency's minor units.
      rows.push({
        subject,
        day: group.day,
        currency: group.currency,
        method: group.method,
        statusCode: group.statusCode,
        statusCategory: facts?.category ?? null,
        final: facts?.final ?? false,
        count: group.count,
        amount: amountText(group.sum, group.currency),
      });
      const id = JSON.stringify([subject, group.currency, facts?.category ?? null]);
      const entry = byCurrency.get(id) ?? { total: { subject, currency: group.currency, statusCategory: facts?.category ?? null, count: 0, amount: '0' }, sums: [] };
      entry.total.count += group.count;
      entry.sums.push(group.sum);
      byCurrency.set(id, entry);
    }
  }
  const currencyTotals = [...byCurrency.values()]
    .map((e) => ({ ...e.total, amount: amountText(sumAmounts(e.sums), e.total.currency) }))
    .sort((a, b) => a.subject.localeCompare(b.subject) || a.currency.localeCompare(b.currency) || String(a.statusCategory).localeCompare(String(b.statusCategory)));
  return { rows, byCurrency: currencyTotals };
}
