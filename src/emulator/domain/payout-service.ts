// Payout lifecycle: P100 (initiated) -> P101 (processing) -> P200 or a C-code, then
// v2_payout_notification. Without a tag a payout succeeds; "+s<code>" on customer.email picks
// the end (P100 / P101 stop there and wait for the admin API). The payout wallet is debited at
// creation and credited back when the payout fails (domain/wallet.ts).
import { LosslessNumber } from '../../shared/json';
import { describePayoutStatus } from '../../shared/spec/codes';
import { iso } from '../runtime';
import type { PayoutRecord, PayoutRepo } from '../store/payouts';
import { payoutScenario } from './scenario';
import { moveStatus, type LifecycleDeps, type MoveResult, type StatusMoves } from './lifecycle';
import type { PayoutWallet } from './wallet';
import type { PlainAnswer } from '../api/replies';

export type NewPayout = Omit<PayoutRecord, 'payout_id' | 'status_code' | 'reason_code' | 'scenario' | 'created_at' | 'updated_at'>;

export type PayoutCompleteResult = MoveResult<PayoutRecord>;

export const isPendingPayout = (code: string): boolean => code === 'P100' || code === 'P101';
export const payoutStatusWord = (code: string): string => (code.startsWith('P') ? 'success' : 'failed');

export interface PayoutServiceDeps extends LifecycleDeps {
  payouts: PayoutRepo;
  wallet: PayoutWallet;
  /** Runs `work` as one transaction: a final status and the wallet's reversal are written together. */
  atomic: <T>(work: () => T) => T;
}

export class PayoutService {
  private readonly moves: StatusMoves<PayoutRecord, string>;

  constructor(private readonly d: PayoutServiceDeps) {
    this.moves = {
      subject: 'payout',
      store: d.payouts,
      isPending: isPendingPayout,
      processing: 'P101',
      describe: describePayoutStatus,
      notificationUrl: (p) => p.notification_url,
      view: (p) => this.view(p),
      onFinal: (p) => {
        if (payoutStatusWord(p.status_code) === 'failed') this.d.wallet.reverse(p);
      },
    };
  }

  create(input: NewPayout): PayoutRecord {
    const now = iso(this.d.clock.now());
    // Only with enforced balances can the wallet refuse: the payout is not debited and ends C405.
    const affordable = this.d.wallet.canPay(input.currency, input.amount);
    const record: PayoutRecord = {
      ...input,
      payout_id: this.d.ids.uuid(),
      status_code: 'P100',
      reason_code: null,
      scenario: affordable ? payoutScenario(input.email) : 'C405',
      created_at: now,
      updated_at: now,
    };
    this.d.payouts.insert(record);
    if (affordable) this.d.wallet.debit(record);
    this.d.afterCommit(() => this.arm(record));
    return record;
  }

  resume(): void {
    for (const p of this.d.payouts.nonFinal()) this.arm(p);
  }

  complete(payoutId: string, code: string, reasonCode?: string | null): PayoutCompleteResult {
    if (!/^[PC]\d{3}$/.test(code) || code === 'P100') return { ok: false, why: 'invalid_code' };
    return this.d.atomic(() => moveStatus(this.moves, this.d, payoutId, code, reasonCode));
  }

  view(p: PayoutRecord): Record<string, unknown> {
    return {
      status: payoutStatusWord(p.status_code),
      status_code: p.status_code,
      reason_code: p.reason_code,
      payout_id: p.payout_id,
      merchantReference: p.merchant_reference,
      amount: new LosslessNumber(p.amount),
      currency: p.currency,
      method: p.method,
      created_at: p.created_at,
      updated_at: p.updated_at,
    };
  }

  createResponse(p: PayoutRecord): PlainAnswer {
    return { status: 'success', status_code: p.status_code, payout_id: p.payout_id, merchantReference: p.merchant_reference, created_at: p.created_at };
  }

  /** Schedules the remaining steps from wherever the payout is now. */
  private arm(p: PayoutRecord): void {
    const end = p.scenario ?? 'P200';
    if (end === 'P100') return;
    const { payoutProcessingMs, payoutFinalMs } = this.d.timing;
    if (p.status_code === 'P100') this.d.timers.after(payoutProcessingMs, () => this.step(p.payout_id, 'P101'));
    if (end !== 'P101') this.d.timers.after(Math.max(payoutFinalMs, payoutProcessingMs), () => this.step(p.payout_id, end));
  }

  private step(payoutId: string, code: string): void {
    const p = this.d.payouts.byId(payoutId);
    if (!p || !isPendingPayout(p.status_code) || p.status_code === code) return;
    this.complete(payoutId, code);
  }
}
