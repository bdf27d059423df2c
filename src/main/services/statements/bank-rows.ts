// A bank statement's entry as a line, whichever format it came in: from a CSV row read through the
// layout, or from the fields camt.053 and MT940 name. Its key is the bank's own reference for the
// entry (AcctSvcrRef, MT940's bank reference, a CSV's bank reference column) on its account, else
// the hash of everything the entry says.
import { createHash } from 'node:crypto';
import type { StagedBankLine } from '../../ledger/repositories/bank-lines';
import type { Direction } from '../../ledger/repositories/settlement-lines';
import { currencyAmount, magnitude, type RowReader } from './cells';

/** Words a bank writes where no reference was given. */
const NO_REFERENCE = new Set(['NOTPROVIDED', 'NONREF', 'NONE', '']);

export type BankEntry = Omit<StagedBankLine, 'baseKey'>;

/** The entry with its key. */
export function keyed(entry: BankEntry): StagedBankLine {
  const endToEndId = entry.endToEndId !== null && NO_REFERENCE.has(entry.endToEndId.toUpperCase()) ? null : entry.endToEndId;
  const line = { ...entry, endToEndId };
  const baseKey =
    line.entryRef !== null
      ? `ref|${line.account ?? ''}|${line.entryRef}`
      : `hash|${createHash('sha256')
          .update(JSON.stringify([line.account, line.currency, line.amount, line.direction, line.bookingDate, line.valueDate, line.endToEndId, line.remittance, line.counterparty]))
          .digest('hex')}`;
  return { ...line, baseKey };
}

/** A CSV row of a bank statement. The amount's sign says its direction unless a column does. */
export function bankLineFrom(row: RowReader, fixedCurrency: string | undefined): StagedBankLine {
  const currency = row.currency('currency', fixedCurrency);
  const signed = row.amount('amount') ?? row.fail('amount', 'is empty; an amount is needed');
  const { amount, negative } = magnitude(signed);
  const stated = row.direction('direction');
  const direction: Direction = stated === null ? (negative ? 'debit' : 'credit') : negative ? (stated === 'credit' ? 'debit' : 'credit') : stated;
  return keyed({
    line: row.line,
    account: row.id('account'),
    currency,
    amount: currencyAmount(amount, currency),
    direction,
    bookingDate: row.date('booking_date') ?? row.fail('booking_date', 'is empty; a booking date is needed'),
    valueDate: row.date('value_date'),
    entryRef: row.id('entry_ref'),
    endToEndId: row.id('end_to_end_id'),
    remittance: row.text('remittance'),
    counterparty: row.text('counterparty', 200),
  });
}
