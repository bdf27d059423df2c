// The payout limits (migration 0006): the rules (amount-rules.ts), and what the payouts since a moment add up to.
import { sumAmounts } from '../../../shared/money';
import type { Sql } from '../engine/types';
import { isoTime, systemClock, type Clock } from '../support';
import { AmountRulesRepository, type AmountRule } from './amount-rules';

export type LimitFields = { perPayoutMax: string | null; dailyMax: string | null };
export type LimitRule = AmountRule<LimitFields>;

export class LimitsRepository extends AmountRulesRepository<LimitFields> {
  constructor(db: Sql, now: Clock = systemClock) {
    super(db, { table: 'payout_limits', columns: { perPayoutMax: 'per_payout_max', dailyMax: 'daily_max' } }, now);
  }

  /**
   * Exact sum of the payouts created since `since` in this currency through profiles of this
   * environment, except those that ended in failure (a refusal or a C-code): they moved no money. A
   * payout whose outcome is not known yet counts. Summed exactly in minor units (sumAmounts), never
   * as REAL in SQL.
   */
  async usedSince(environment: string, currency: string, since: Date): Promise<string> {
    const rows = (await this.db.all(`SELECT p.amount FROM payouts p JOIN profiles pr ON pr.id = p.profile_id
         WHERE p.currency = ? AND p.created_at >= ? AND pr.environment = ? AND (p.final = 0 OR p.status_code = 'P200')`, [currency, isoTime(since), environment])) as { amount: string }[];
    return sumAmounts(rows.map((r) => r.amount));
  }
}
