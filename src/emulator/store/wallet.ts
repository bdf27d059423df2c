// The merchant's payout wallets (one per currency) and their movements: payouts debit them,
// reversals of failed payouts and top-ups credit them.
import type { EmulatorDb } from './database';

export type MovementType = 'payout' | 'payout_reversal' | 'topup';

export interface Wallet {
  currency: string;
  wallet_id: string;
  /** Exact decimal text; may be negative when balances are not enforced. */
  balance: string;
  created_at: string;
}

export interface WalletMovement {
  wallet_id: string;
  currency: string;
  type: MovementType;
  payout_id: string | null;
  merchant_reference: string | null;
  topup_id: string | null;
  method: string | null;
  /** Exact decimal text, always positive: `type` says which way it moved. */
  amount: string;
  at: string;
}

const MOVEMENT = 'wallet_id, currency, type, payout_id, merchant_reference, topup_id, method, amount, at';

export class WalletRepo {
  constructor(private readonly db: EmulatorDb) {}

  byCurrency(currency: string): Wallet | undefined {
    return this.db.statement('SELECT * FROM wallets WHERE currency = ?').get(currency) as Wallet | undefined;
  }

  all(): Wallet[] {
    return this.db.statement('SELECT * FROM wallets ORDER BY currency').all() as Wallet[];
  }

  open(wallet: Wallet): void {
    this.db.statement('INSERT INTO wallets (currency, wallet_id, balance, created_at) VALUES (@currency, @wallet_id, @balance, @created_at)').run(wallet);
  }

  /** Records a movement and the balance it leaves; false when the payout already has a movement of this type. */
  move(movement: WalletMovement, balance: string): boolean {
    const r = this.db
      .statement(
        `INSERT OR IGNORE INTO wallet_movements (wallet_id, currency, type, payout_id, merchant_reference, topup_id, method, amount, at)
         VALUES (@wallet_id, @currency, @type, @payout_id, @merchant_reference, @topup_id, @method, @amount, @at)`,
      )
      .run(movement);
    if (r.changes === 0) return false;
    this.db.statement('UPDATE wallets SET balance = ? WHERE wallet_id = ?').run(balance, movement.wallet_id);
    return true;
  }

  movementOf(payoutId: string, type: MovementType): WalletMovement | undefined {
    return this.db.statement(`SELECT ${MOVEMENT} FROM wallet_movements WHERE payout_id = ? AND type = ?`).get(payoutId, type) as WalletMovement | undefined;
  }

  /** Movements dated from `from` to `to` (inclusive YYYY-MM-DD; either may be left open), in order. */
  movements(filter: { from?: string | undefined; to?: string | undefined; currency?: string | undefined }): WalletMovement[] {
    return this.db
      .statement(
        `SELECT ${MOVEMENT} FROM wallet_movements WHERE (@from IS NULL OR substr(at, 1, 10) >= @from) AND (@to IS NULL OR substr(at, 1, 10) <= @to)
           AND (@currency IS NULL OR currency = @currency) ORDER BY seq`,
      )
      .all({ from: filter.from ?? null, to: filter.to ?? null, currency: filter.currency ?? null }) as WalletMovement[];
  }
}
