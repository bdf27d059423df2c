// Which entries and balances a bank statement for a range shows. Without a range it covers every
// booking day there is; its creation time is when the last entry it shows was booked, so the same
// range downloaded twice is the same file until a later booking changes it.
import { sumAmounts } from '../../shared/money';
import type { BankRepo } from '../store/bank';
import { camt053 } from './camt053';

export interface StatementRange {
  from?: string | undefined;
  to?: string | undefined;
  currency?: string | undefined;
}

/** The camt.053 document; undefined when no account matches (nothing settled yet, or not in that currency). */
export function bankStatement(bank: BankRepo, owner: string, range: StatementRange, today: string): string | undefined {
  const accounts = bank.accounts().filter((a) => range.currency === undefined || a.currency === range.currency);
  if (accounts.length === 0) return undefined;
  const booked = bank.bookedDates();
  const from = range.from ?? booked?.first ?? today;
  const to = range.to ?? booked?.last ?? today;
  return camt053({
    owner,
    from,
    to,
    createdAt: bank.lastBookedAt(to, range.currency) ?? `${from}T00:00:00.000Z`,
    currency: range.currency,
    statements: accounts.map((account) => ({
      account,
      opening: sumAmounts(bank.amountsBefore(account.currency, from)),
      entries: bank.entries(account.currency, from, to),
    })),
  });
}
