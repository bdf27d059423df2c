// Payout lifecycle: P100 (initiated) -> P101 (processing) -> P200 or a C-code, then
// v2_payout_notification. Without a tag a payout succeeds; "+s<code>" on customer.email picks
// the end (P100 / P101 stop there and wait for the admin API).
import { LosslessNumber } from '../../shared/json';
import { describePayoutStatus } from '../../shared/spec/codes';
import type { ScenarioTiming } from '../options';
import { iso, type Clock, type Ids, type Logger } from '../runtime';
import type { Notifier } from '../notify/notifier';
import type { AfterCommit } from '../store/database';
import type { PayoutRecord, PayoutRepo } from '../store/payouts';
import { payoutScenario } from './scenario';
import type { TimerSet } from './timers';
import type { PlainAnswer } from '../api/replies';

export type NewPayout = Omit<PayoutRecord, 'payout_id' | 'status_code' | 'reason_code' | 'scenario' | 'created_at' | 'updated_at'>;

export type PayoutCompleteResult = { ok: true; record: PayoutRecord } | { ok: false; why: 'unknown' | 'final' | 'invalid_code' };

export const isPendingPayout = (code: string): boolean => code === 'P100' || code === 'P101';
export const payoutStatusWord = (code: string): string => (code.startsWith('P') ? 'success' : 'failed');

export interface PayoutServiceDeps {
  payouts: PayoutRepo;
  notifier: Notifier;
  clock: Clock;
  ids: Ids;
  timing: ScenarioTiming;
  timers: TimerSet;
  log: Logger;
  /** Creation runs inside the create's transaction: its steps are armed only once that commits. */
  afterCommit: AfterCommit;
}

export class PayoutService {
  constructor(private readonly d: PayoutServiceDeps) {}

  create(input: NewPayout): PayoutRecord {
    const now = iso(this.d.clock.now());
    const record: PayoutRecord = {
      ...input,
      payout_id: this.d.ids.uuid(),
      status_code: 'P100',
      reason_code: null,
      scenario: payoutScenario(input.email),
      created_at: now,
      updated_at: now,
    };
    this.d.payouts.insert(record);
    this.d.afterCommit(() => this.arm(record));
    return record;
  }

  resume(): void {
    for (const p of this.d.payouts.nonFinal()) this.arm(p);
  }

  complete(payoutId: string, code: string, reasonCode?: string | null): PayoutCompleteResult {
    if (!/^[PC]\d{3}$/.test(code) || code === 'P100') return { ok: false, why: 'invalid_code' };
    const current = this.d.payouts.byId(payoutId);
    if (!current) return { ok: false, why: 'unknown' };
    if (!isPendingPayout(current.status_code) || (code === 'P101' && current.status_code === 'P101')) return { ok: false, why: 'final' };
    const info = describePayoutStatus(code);
    const reason = reasonCode !== undefined ? reasonCode : info.known ? info.defaultReason : null;
    if (!this.d.payouts.transition(payoutId, current.status_code, code, reason, iso(this.d.clock.now()))) return { ok: false, why: 'final' };
    const record = this.d.payouts.byId(payoutId) as PayoutRecord;
    if (!isPendingPayout(code)) {
      this.d.notifier.enqueue('v2_payout_notification', record.notification_url, { event: 'v2_payout_notification', ...this.view(record) }, payoutId);
    }
    this.d.log.info('payout status', { payout_id: payoutId, status_code: code });
    return { ok: true, record };
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
