// SQL of the payout limits: the rules, and what the payouts of one UTC day add up to.
import type { LimitEnvironment } from '../../../shared/contract';
import { sumAmounts } from '../../../shared/money';
import type { Ledger } from '../../ledger/connection';
import { isoTime } from '../../ledger/support';

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

/** Midnight UTC of the day `now` falls in. */
export function utcDayStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

export class LimitsStore {
  constructor(private readonly db: Ledger) {}

  all(): LimitRule[] {
    return (this.db.prepare('SELECT * FROM payout_limits ORDER BY currency, environment').all() as LimitRow[]).map(toRule);
  }

  find(environment: LimitEnvironment, currency: string): LimitRule | undefined {
    const row = this.db.prepare('SELECT * FROM payout_limits WHERE environment = ? AND currency = ?').get(environment, currency) as LimitRow | undefined;
    return row && toRule(row);
  }

  /** The rules a payout in this currency and environment must satisfy. */
  applicable(environment: string, currency: string): LimitRule[] {
    return (this.db.prepare("SELECT * FROM payout_limits WHERE currency = ? AND environment IN ('any', ?) ORDER BY environment").all(currency, environment) as LimitRow[]).map(toRule);
  }

  upsert(rule: Omit<LimitRule, 'updatedAt'>, at: Date): LimitRule {
    this.db
      .prepare(
        `INSERT INTO payout_limits (environment, currency, per_payout_max, daily_max, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (environment, currency) DO UPDATE SET per_payout_max = excluded.per_payout_max, daily_max = excluded.daily_max, updated_at = excluded.updated_at`,
      )
      .run(rule.environment, rule.currency, rule.perPayoutMax, rule.dailyMax, isoTime(at));
    return this.find(rule.environment, rule.currency) as LimitRule;
  }

  remove(environment: LimitEnvironment, currency: string): boolean {
    return this.db.prepare('DELETE FROM payout_limits WHERE environment = ? AND currency = ?').run(environment, currency).changes === 1;
  }

  /**
   * Exact sum of today's payouts in this currency through profiles of this environment, except
   * those that ended in failure (a refusal or a C-code): they moved no money. A payout whose
   * outcome is not known yet counts. Summed exactly in minor units (sumAmounts), never as REAL in SQL.
   */
  usedToday(environment: string, currency: string, now: Date): string {
    const rows = this.db
      .prepare(
        `SELECT p.amount FROM payouts p JOIN profiles pr ON pr.id = p.profile_id
         WHERE p.currency = ? AND p.created_at >= ? AND pr.environment = ? AND (p.final = 0 OR p.status_code = 'P200')`,
      )
      .pluck()
      .all(currency, isoTime(utcDayStart(now)), environment) as string[];
    return sumAmounts(rows);
  }
}
