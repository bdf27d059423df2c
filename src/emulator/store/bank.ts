// The merchant's demo bank accounts (one per currency) and the entries booked on them.
import type { BankEntry } from '../domain/settlement/draft';
import type { EmulatorDb } from './database';

export interface BankAccount {
  currency: string;
  iban: string;
  created_at: string;
}

const ENTRY = 'entry_ref, currency, amount, booking_date, booked_at, settlement_id, end_to_end_id, remittance, counterparty';

export class BankRepo {
  constructor(private readonly db: EmulatorDb) {}

  account(currency: string): BankAccount | undefined {
    return this.db.statement('SELECT * FROM bank_accounts WHERE currency = ?').get(currency) as BankAccount | undefined;
  }

  accounts(): BankAccount[] {
    return this.db.statement('SELECT * FROM bank_accounts ORDER BY currency').all() as BankAccount[];
  }

  openAccount(account: BankAccount): void {
    this.db.statement('INSERT INTO bank_accounts (currency, iban, created_at) VALUES (@currency, @iban, @created_at)').run(account);
  }

  book(entry: BankEntry): void {
    this.db
      .statement(
        `INSERT INTO bank_entries (entry_ref, currency, amount, booking_date, booked_at, settlement_id, end_to_end_id, remittance, counterparty)
         VALUES (@entry_ref, @currency, @amount, @booking_date, @booked_at, @settlement_id, @end_to_end_id, @remittance, @counterparty)`,
      )
      .run(entry);
  }

  /** The credit that paid a settlement (an orphan line belongs to none). */
  creditOf(settlementId: string): BankEntry | undefined {
    return this.db.statement(`SELECT ${ENTRY} FROM bank_entries WHERE settlement_id = ?`).get(settlementId) as BankEntry | undefined;
  }

  /** Entries of one account booked from `from` to `to` (inclusive dates), in booking order. */
  entries(currency: string, from: string, to: string): BankEntry[] {
    return this.db
      .statement(`SELECT ${ENTRY} FROM bank_entries WHERE currency = ? AND booking_date >= ? AND booking_date <= ? ORDER BY seq`)
      .all(currency, from, to) as BankEntry[];
  }

  /** Amounts booked on an account before `date` (its opening balance that day is their sum). */
  amountsBefore(currency: string, date: string): string[] {
    return (this.db.statement('SELECT amount FROM bank_entries WHERE currency = ? AND booking_date < ?').all(currency, date) as { amount: string }[]).map((r) => r.amount);
  }

  /** First and last booking dates of all entries; undefined when nothing was booked. */
  bookedDates(): { first: string; last: string } | undefined {
    const row = this.db.statement('SELECT min(booking_date) AS first, max(booking_date) AS last FROM bank_entries').get() as { first: string | null; last: string | null };
    return row.first === null || row.last === null ? undefined : { first: row.first, last: row.last };
  }

  /** When the last entry booked up to `date` (inclusive) was booked, on every account or one. */
  lastBookedAt(date: string, currency: string | undefined): string | undefined {
    const row = this.db
      .statement('SELECT max(booked_at) AS at FROM bank_entries WHERE booking_date <= @date AND (@currency IS NULL OR currency = @currency)')
      .get({ date, currency: currency ?? null }) as { at: string | null };
    return row.at ?? undefined;
  }
}
