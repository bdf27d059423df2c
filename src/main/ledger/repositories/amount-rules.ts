// Rules about payout amounts, one per environment ('any' or one) and currency: the payout limits
// (payout_limits, migration 0006) and the approval policies (approval_policies, 0016). Both tables
// are read and written alike; each names the columns of its own amounts.
import type { RuleEnvironment } from '../../../shared/contract';
import type { Sql, SqlValue } from '../engine/types';
import { isoTime, systemClock, type Clock } from '../support';

/** A rule: where it applies, what it holds (`Fields`), and when it was last set. */
export type AmountRule<Fields> = { environment: RuleEnvironment; currency: string; updatedAt: string } & Fields;

/** Which table holds the rules, and the column of each of their fields. */
export interface AmountRuleTable<Fields> {
  table: 'payout_limits' | 'approval_policies';
  columns: { readonly [K in keyof Fields]: string };
}

type Row = Record<string, unknown> & { environment: RuleEnvironment; currency: string; updated_at: string };

export class AmountRulesRepository<Fields extends Record<string, SqlValue>> {
  private readonly fields: [keyof Fields, string][];

  constructor(
    protected readonly db: Sql,
    private readonly rules: AmountRuleTable<Fields>,
    private readonly now: Clock = systemClock,
  ) {
    this.fields = Object.entries(rules.columns) as [keyof Fields, string][];
  }

  async all(): Promise<AmountRule<Fields>[]> {
    return ((await this.db.all(`SELECT * FROM ${this.rules.table} ORDER BY currency, environment`)) as Row[]).map((row) => this.toRule(row));
  }

  async find(environment: RuleEnvironment, currency: string): Promise<AmountRule<Fields> | undefined> {
    const row = (await this.db.get(`SELECT * FROM ${this.rules.table} WHERE environment = ? AND currency = ?`, [environment, currency])) as Row | undefined;
    return row && this.toRule(row);
  }

  /** Every rule a payout in this currency and environment meets: the one for every environment first. */
  async applicable(environment: string, currency: string): Promise<AmountRule<Fields>[]> {
    return ((await this.db.all(`SELECT * FROM ${this.rules.table} WHERE currency = ? AND environment IN ('any', ?) ORDER BY environment`, [currency, environment])) as Row[]).map((row) => this.toRule(row));
  }

  /** The one rule for this environment and currency: the environment's own before the one for every environment. */
  async ruleFor(environment: string, currency: string): Promise<AmountRule<Fields> | undefined> {
    const row = (await this.db.get(`SELECT * FROM ${this.rules.table} WHERE currency = ? AND environment IN ('any', ?) ORDER BY CASE environment WHEN 'any' THEN 1 ELSE 0 END LIMIT 1`, [currency, environment])) as Row | undefined;
    return row && this.toRule(row);
  }

  async upsert(rule: Omit<AmountRule<Fields>, 'updatedAt'>): Promise<AmountRule<Fields>> {
    const columns = this.fields.map(([, column]) => column);
    const row = (await this.db.get(
      `INSERT INTO ${this.rules.table} (environment, currency, ${columns.join(', ')}, updated_at) VALUES (?, ?, ${columns.map(() => '?').join(', ')}, ?)
         ON CONFLICT (environment, currency) DO UPDATE SET ${columns.map((column) => `${column} = excluded.${column}`).join(', ')}, updated_at = excluded.updated_at
         RETURNING *`,
      [rule.environment, rule.currency, ...this.fields.map(([field]) => (rule as Fields)[field] as SqlValue), isoTime(this.now())],
    )) as Row;
    return this.toRule(row);
  }

  async remove(environment: RuleEnvironment, currency: string): Promise<boolean> {
    return (await this.db.run(`DELETE FROM ${this.rules.table} WHERE environment = ? AND currency = ?`, [environment, currency])) === 1;
  }

  private toRule(row: Row): AmountRule<Fields> {
    const fields = Object.fromEntries(this.fields.map(([field, column]) => [field, row[column]])) as Fields;
    return { environment: row.environment, currency: row.currency, ...fields, updatedAt: row.updated_at };
  }
}
