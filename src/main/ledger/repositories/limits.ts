// The payout limits (migration 0006): the rules, and what the payouts since a moment add up to.
import type { LimitEnvironment } from '../../../shared/contract';
import { sumAmounts } from '../../../shared/money';
import type { Sql } from '../engine/types';
import { isoTime, systemClock, type Clock } from '../support';

export interface LimitRule {
  environment: LimitEnvironment;
  currency: string;
  perPayoutMax: string | null;
  dailyMax: string | null;
  updatedAt: string;
}

interface LimitRow {
  environment: LimitEnvironment;
  currency: string;
  per_payout_max: string | null;
  daily_max: string | null;
  updated_at: string;
}

const toRule = (r: LimitRow): LimitRule => ({ environment: r.environment, currency: r.currency, perPayoutMax: r.per_payout_max, dailyMax: r.daily_max, updatedAt: r.updated_at });

export class LimitsRepository {
  constructor(
    private readonly db: Sql,
    private readonly now: Clock = systemClock,
  ) {}

  async all(): Promise<LimitRule[]> {
    return ((await this.db.all('SELECT * FROM payout_limits ORDER BY currency, environment')) as LimitRow[]).map(toRule);
  }

  async find(environment: LimitEnvironment, currency: string): Promise<LimitRule | undefined> {
    const row = (await this.db.get('SELECT * FROM payout_limits WHERE environment = ? AND currency = ?', [environment, currency])) as LimitRow | undefined;
    return row && toRule(row);
  }

  /** The rules a payout in this currency and environment must satisfy. */
  async applicable(environment: string, currency: string): Promise<LimitRule[]> {
    return ((await this.db.all("SELECT * FROM payout_limits WHERE currency = ? AND environment IN ('any', ?) ORDER BY environment", [currency, environment])) as LimitRow[]).map(toRule);
  }

  async upsert(rule: Omit<LimitRule, 'updatedAt'>): Promise<LimitRule> {
    const row = (await this.db.get(`INSERT INTO payout_limits (environment, currency, per_payout_max, daily_max, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (environment, currency) DO UPDATE SET per_payout_max = excluded.per_payout_max, daily_max = excluded.daily_max, updated_at = excluded.updated_at
         RETURNING *`, [rule.environment, rule.currency, rule.perPayoutMax, rule.dailyMax, isoTime(this.now())])) as LimitRow;
    return toRule(row);
  }

  async remove(environment: LimitEnvironment, currency: string): Promise<boolean> {
    return (await this.db.run('DELETE FROM payout_limits WHERE environment = ? AND currency = ?', [environment, currency])) === 1;
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
