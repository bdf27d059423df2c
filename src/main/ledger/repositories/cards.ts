// The card of a pay-in or payout (migration 0011): brand, first 6, last 4 and expiry, recorded with
// the row at create time. Kept beside the rows rather than in them: adding columns to the
// million-row STRICT tables would have the upgrade check every row. The CHECKs refuse more digits.
import type { Sql } from '../engine/types';
import { placeholders } from './page';
import { TRANSACTION_KINDS, type TransactionKind } from '../../transaction-kinds';

/** What the ledger keeps of the card that paid (or was paid): never more than first 6 / last 4. */
export interface CardFacts {
  brand: string | null;
  bin: string | null;
  last4: string | null;
  expMonth: string | null;
  expYear: string | null;
}

/** The columns of a card row its facts are read from. */
export interface CardColumns {
  brand: string | null;
  bin: string | null;
  last4: string | null;
  exp_month: string | null;
  exp_year: string | null;
}

interface CardRow extends CardColumns {
  row_id: number;
}

export const toCardFacts = (r: CardColumns): CardFacts => ({ brand: r.brand, bin: r.bin, last4: r.last4, expMonth: r.exp_month, expYear: r.exp_year });

export class CardsRepository {

  constructor(private readonly db: Sql) {
  }

  /** Records the card of a row (the first one recorded stays: a redo of the same request changes nothing). */
  async put(subject: TransactionKind, rowId: number, card: CardFacts): Promise<void> {
    const { table, column } = TRANSACTION_KINDS[subject].ledger.cards;
    await this.db.run(`INSERT INTO ${table} (${column}, brand, bin, last4, exp_month, exp_year) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (${column}) DO NOTHING`, [rowId, card.brand, card.bin, card.last4, card.expMonth, card.expYear]);
  }

  /** The cards of these rows, one query for a whole page (rows without a card are absent). */
  async of(subject: TransactionKind, rowIds: readonly number[]): Promise<Map<number, CardFacts>> {
    const found = new Map<number, CardFacts>();
    if (rowIds.length === 0) return found;
    const { table, column } = TRANSACTION_KINDS[subject].ledger.cards;
    const rows = (await this.db.all(`SELECT ${column} AS row_id, brand, bin, last4, exp_month, exp_year FROM ${table} WHERE ${column} IN (${placeholders(rowIds)})`, rowIds)) as CardRow[];
    for (const r of rows) found.set(r.row_id, toCardFacts(r));
    return found;
  }
}
