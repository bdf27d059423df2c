// The payout wallet, one per currency. As at most payout providers, a payout is debited when it is
// created (the funds are reserved at once) and a payout that fails is credited back (a reversal);
// a top-up credits the wallet. By default a payout is never refused for want of funds (the
// emulator's payouts succeed, as before): the balance may go negative. With `enforce_balance` a
// payout larger than the balance is not debited and ends C405 INSUFFICIENT_FUNDS.
import { amountText, compareAmounts, sumAmounts } from '../../shared/money';
import { iso, referenceToken, type Clock, type Ids } from '../runtime';
import type { MetaRepo } from '../store/meta';
import type { PayoutRecord } from '../store/payouts';
import type { Wallet, WalletMovement, WalletRepo } from '../store/wallet';

export interface WalletSettings {
  enforce_balance: boolean;
}

export interface TopUp {
  topup_id: string;
  wallet_id: string;
  currency: string;
  amount: string;
  balance: string;
  created_at: string;
}

const KEY = 'wallet_settings';

export interface PayoutWalletDeps {
  repo: WalletRepo;
  meta: MetaRepo;
  clock: Clock;
  ids: Ids;
  /** Runs `work` as one transaction (a savepoint inside one): a movement and the balance it leaves are written together. */
  atomic: <T>(work: () => T) => T;
  /** Fixed at start (an option); otherwise the stored setting, off by default. */
  enforceBalance?: boolean | undefined;
}

export class PayoutWallet {
  private current: WalletSettings;

  constructor(private readonly d: PayoutWalletDeps) {
    this.current = { enforce_balance: false, ...d.meta.get<WalletSettings>(KEY) };
    if (d.enforceBalance !== undefined) this.update({ enforce_balance: d.enforceBalance });
  }

  get settings(): Readonly<WalletSettings> {
    return this.current;
  }

  update(next: WalletSettings): WalletSettings {
    this.d.meta.set(KEY, next);
    this.current = { ...next };
    return this.current;
  }

  wallets(): Wallet[] {
    return this.d.repo.all();
  }

  /** False only when balances are enforced and this payout is more than its wallet holds. */
  canPay(currency: string, amount: string): boolean {
    if (!this.current.enforce_balance) return true;
    return compareAmounts(this.d.repo.byCurrency(currency)?.balance ?? '0', amount) >= 0;
  }

  /** At creation: the payout's amount leaves the wallet. */
  debit(p: PayoutRecord): void {
    this.move(p.currency, p.amount, -1, { type: 'payout', payout_id: p.payout_id, merchant_reference: p.merchant_reference, method: p.method });
  }

  /** A payout that failed gives back what its creation debited (nothing if it was never debited). */
  reverse(p: PayoutRecord): void {
    if (this.d.repo.movementOf(p.payout_id, 'payout') === undefined) return;
    this.move(p.currency, p.amount, 1, { type: 'payout_reversal', payout_id: p.payout_id, merchant_reference: p.merchant_reference, method: p.method });
  }

  topUp(currency: string, amount: string): TopUp {
    const topupId = this.d.ids.uuid();
    const { wallet, at } = this.move(currency, amount, 1, { type: 'topup', topup_id: topupId });
    return { topup_id: topupId, wallet_id: wallet.wallet_id, currency, amount: amountText(amount, currency), balance: wallet.balance, created_at: at };
  }

  private walletOf(currency: string, at: string): Wallet {
    const existing = this.d.repo.byCurrency(currency);
    if (existing) return existing;
    const wallet = { currency, wallet_id: `WAL-${currency}-${referenceToken(this.d.ids)}`, balance: amountText('0', currency), created_at: at };
    this.d.repo.open(wallet);
    return wallet;
  }

  private move(currency: string, amount: string, sign: 1 | -1, what: Partial<WalletMovement> & Pick<WalletMovement, 'type'>): { wallet: Wallet; at: string } {
    return this.d.atomic(() => {
      const at = iso(this.d.clock.now());
      const wallet = this.walletOf(currency, at);
      const balance = amountText(sumAmounts([wallet.balance, sign === 1 ? amount : `-${amount}`]), currency);
      const movement: WalletMovement = { payout_id: null, merchant_reference: null, topup_id: null, method: null, ...what, wallet_id: wallet.wallet_id, currency, amount: amountText(amount, currency), at };
      const moved = this.d.repo.move(movement, balance);
      return { wallet: moved ? { ...wallet, balance } : wallet, at };
    });
  }
}
