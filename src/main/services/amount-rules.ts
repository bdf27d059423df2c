// Setting and removing a rule about payout amounts (the payout limits, the approval policies:
// ledger/repositories/amount-rules.ts): in one transaction with its audit entry, which records
// what the rule was before; the list is pushed again after. Each use says how its audit entry
// reads; what a rule means (a limit refuses, a policy asks for approval) is its service's.
import type { RuleEnvironment } from '../../shared/contract';
import { parseDecimal } from '../../shared/money';
import type { SqlValue } from '../ledger/engine/types';
import type { AmountRule, AmountRulesRepository } from '../ledger/repositories/amount-rules';
import type { Repositories } from '../ledger/repositories/index';

/** An amount as a rule keeps it: its canonical decimal text (1000 for "1000.00"). */
export const ruleAmount = (value: string | null): string | null => (value === null ? null : (parseDecimal(value)?.toFixed() ?? null));

/** How the audit log records a change of a rule: its actions, and the details of each. */
export interface RuleAudit<Fields extends Record<string, SqlValue>> {
  set: string;
  remove: string;
  setDetails: (rule: Omit<AmountRule<Fields>, 'updatedAt'>, before: AmountRule<Fields> | undefined) => Record<string, unknown>;
  removeDetails: (before: AmountRule<Fields>) => Record<string, unknown>;
}

export class AmountRuleBook<Fields extends Record<string, SqlValue>> {
  /** `changed`: pushes the list again, after a change. */
  constructor(
    private readonly rules: AmountRulesRepository<Fields>,
    private readonly repos: Pick<Repositories, 'audit' | 'transaction'>,
    private readonly audit: RuleAudit<Fields>,
    private readonly changed: () => Promise<unknown>,
  ) {}

  async set(rule: Omit<AmountRule<Fields>, 'updatedAt'>): Promise<AmountRule<Fields>> {
    const { rules, repos, audit } = this;
    const saved = await repos.transaction(async () => {
      const before = await rules.find(rule.environment, rule.currency);
      const saved = await rules.upsert(rule);
      await repos.audit.append({ actor: 'user', action: audit.set, subject: `${rule.currency}/${rule.environment}`, details: audit.setDetails(rule, before) });
      return saved;
    });
    await this.changed();
    return saved;
  }

  async remove(environment: RuleEnvironment, currency: string): Promise<{ removed: boolean }> {
    const { rules, repos, audit } = this;
    const removed = await repos.transaction(async () => {
      const before = await rules.find(environment, currency);
      if (!before) return false;
      await rules.remove(environment, currency);
      await repos.audit.append({ actor: 'user', action: audit.remove, subject: `${currency}/${environment}`, details: audit.removeDetails(before) });
      return true;
    });
    if (removed) await this.changed();
    return { removed };
  }
}
