// The reconciliation screen regroups main's exact totals without losing a cent, never adds pay-ins
// to payouts or one currency to another, and checks its filter before asking main.
import { describe, expect, it } from 'vitest';
import type { TotalsRow } from '../../../src/shared/contract';
import { amountsByDay, countsByCategory, exactTotal, groupTotals } from '../../../src/renderer/features/reconciliation/totals-groups';
import { defaultFilter, filterProblems, totalsInput } from '../../../src/renderer/features/reconciliation/filter';
import { codeListTarget } from '../../../src/renderer/features/codes/code-links';

const row = (over: Partial<TotalsRow>): TotalsRow => ({
  subject: 'payin',
  day: '2026-03-01',
  currency: 'EUR',
  method: 'open_banking',
  statusCode: '200',
  statusCategory: 'success',
  final: true,
  count: 1,
  amount: '10.10',
  ...over,
});

const rows: TotalsRow[] = [
  row({ amount: '10.10' }),
  row({ method: 'credit_card', amount: '20.20' }),
  row({ statusCode: '302', statusCategory: 'decline', count: 2, amount: '0.20' }),
  row({ day: '2026-03-02', currency: 'USD', amount: '0.1' }),
  row({ subject: 'payout', method: 'fps', currency: 'EUR', statusCode: 'P200', amount: '99.99' }),
  row({ day: '2026-03-02', method: 'crypto', amount: '0.0000000001' }),
];

describe('groupTotals', () => {
  it('sums each day per subject and currency exactly, succeeded apart, newest day first', () => {
    const byDay = groupTotals(rows, 'day').map((g) => [g.subject, g.value, g.currency, g.count, g.amount, g.succeededCount, g.succeededAmount]);
    expect(byDay).toEqual([
      ['payin', '2026-03-02', 'EUR', 1, '0.0000000001', 1, '0.0000000001'],
      ['payin', '2026-03-02', 'USD', 1, '0.10', 1, '0.10'],
      ['payin', '2026-03-01', 'EUR', 4, '30.50', 2, '30.30'],
      ['payout', '2026-03-01', 'EUR', 1, '99.99', 1, '99.99'],
    ]);
  });

  it('groups by currency, method and status without mixing currencies or subjects', () => {
    expect(groupTotals(rows, 'currency').map((g) => [g.subject, g.currency, g.amount])).toEqual([
      ['payin', 'EUR', '30.5000000001'],
      ['payin', 'USD', '0.10'],
      ['payout', 'EUR', '99.99'],
    ]);
    expect(groupTotals(rows, 'method').map((g) => [g.value, g.currency, g.amount])).toEqual([
      ['credit_card', 'EUR', '20.20'],
      ['crypto', 'EUR', '0.0000000001'],
      ['open_banking', 'EUR', '10.30'],
      ['open_banking', 'USD', '0.10'],
      ['fps', 'EUR', '99.99'],
    ]);
    expect(groupTotals(rows, 'status').map((g) => [g.value, g.statusCategory, g.count])).toEqual([
      ['200', 'success', 3],
      ['200', 'success', 1],
      ['302', 'decline', 2],
      ['P200', 'success', 1],
    ]);
  });
});

describe('exact amounts', () => {
  it('writes a sum as its currency does: every decimal it has, at least the minor units', () => {
    expect(exactTotal(['10.10', '20.20'], 'EUR')).toBe('30.30');
    expect(exactTotal([], 'EUR')).toBe('0.00');
    expect(exactTotal(['0.1000000000', '0.2'], 'EUR')).toBe('0.30');
    expect(exactTotal(['0.0000000001', '1.00'], 'EUR')).toBe('1.0000000001');
    expect(exactTotal(['999999999999999.99', '0.01'], 'EUR')).toBe('1000000000000000.00');
    expect(exactTotal(['1000', '500'], 'JPY')).toBe('1500');
    expect(exactTotal(['1.5', '0.25'], 'KWD')).toBe('1.750');
  });
});

describe('charts', () => {
  it('plots one bar per subject and currency per day, and counts per category', () => {
    const { data, series } = amountsByDay(rows);
    expect(series.map((s) => s.label)).toEqual(['Pay-ins EUR', 'Pay-ins USD', 'Payouts EUR']);
    expect(data[0]).toEqual({ day: '2026-03-01', payin_EUR: 30.5, payout_EUR: 99.99 });
    const categories = countsByCategory(rows, { success: 'Success', decline: 'Decline' });
    expect(categories.data).toEqual([
      { category: 'Success', payin: 4, payout: 1 },
      { category: 'Decline', payin: 2, payout: 0 },
    ]);
  });
});

describe('filter', () => {
  it('defaults to the last 30 UTC days and names the field of a reversed range or a bad threshold', () => {
    const filter = defaultFilter(new Date('2026-03-31T23:00:00Z'));
    expect([filter.from, filter.to]).toEqual(['2026-03-02', '2026-03-31']);
    expect(filterProblems({ ...filter, from: '2026-04-01' })).toEqual({ to: 'Must be on or after the first day: swap the dates.' });
    expect(filterProblems({ ...filter, pendingMinutes: Number.NaN })).toHaveProperty('pendingMinutes');
    expect(totalsInput({ ...filter, from: '', subject: 'payout', profileId: 'p1' })).toEqual({ profileId: 'p1', to: '2026-03-31', subjects: ['payout'] });
  });
});

describe('code explorer links', () => {
  it('opens pay-in codes and reasons on the pay-ins list, payout codes on the payouts list', () => {
    expect(codeListTarget('payin_status', 302)).toEqual({ screen: 'payins', params: { status: '302' } });
    expect(codeListTarget('payout_status', 'C405')).toEqual({ screen: 'payouts', params: { status: 'C405' } });
    expect(codeListTarget('reason', 'RISK_BLOCKED')).toEqual({ screen: 'payins', params: { reason: 'RISK_BLOCKED' } });
  });
});
