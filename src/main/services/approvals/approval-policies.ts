// Approval policies: configure them (admins; audited, pushed), and say what a payout or a batch
// needs before it is sent (ApprovalNeed): nothing, a second person's approval (a team server), or
// the amount typed again (a desk, where there is nobody else). A payout's own amount, and a
// batch's total in each of its currencies, are compared exactly with the rule of the profile's
// environment and that currency (the environment's own rule before the one for every environment).
import { RULE_ENVIRONMENT_LABELS, type ApprovalNeed, type ApprovalPolicies, type PolicyMode, type PolicyView, type RuleEnvironment } from '../../../shared/contract';
import { amountText, compareAmounts, parseDecimal } from '../../../shared/money';
import type { PolicyFields, PolicyRule } from '../../ledger/repositories/approvals';
import type { Repositories } from '../../ledger/repositories/index';
import type { Profile } from '../../ledger/repositories/profiles';
import { AmountRuleBook, ruleAmount, type RuleAudit } from '../amount-rules';
import { ServiceError } from '../errors';

const EXPIRY_KEY = 'approvals.expiryHours';
export const DEFAULT_EXPIRY_HOURS = 24;


export interface ApprovalPoliciesDeps {
  repos: Pick<Repositories, 'approvalPolicies' | 'settings' | 'audit' | 'transaction'>;
  /** A team server: a second person approves. A desk: the amount is typed again. */
  team: boolean;
  publish: (policies: ApprovalPolicies) => void;
}

/** A policy in words, for the settings, the review and the audit log. */
export function describePolicy(rule: Pick<PolicyRule, 'environment' | 'currency' | 'mode' | 'payoutAbove' | 'batchAbove'>): string {
  const where = `${RULE_ENVIRONMENT_LABELS[rule.environment]} ${rule.currency}`;
  if (rule.mode === 'never') return `${where}: nothing needs approval.`;
  if (rule.mode === 'always') return `${where}: every payout and every batch needs approval.`;
  const parts = [rule.payoutAbove !== null ? `payouts above ${amountText(rule.payoutAbove, rule.currency)}` : null, rule.batchAbove !== null ? `batches above ${amountText(rule.batchAbove, rule.currency)} in all` : null].filter((p) => p !== null);
  return `${where}: ${parts.join(' and ')} need approval.`;
}

const POLICY_AUDIT: RuleAudit<PolicyFields> = {
  set: 'approvals.policy-set',
  remove: 'approvals.policy-remove',
  setDetails: (rule, before) => ({ ...rule, text: describePolicy(rule), before: before ? describePolicy(before) : null }),
  removeDetails: (before) => ({ before: describePolicy(before) }),
};

export class ApprovalPoliciesService {
  private readonly rules: AmountRuleBook<PolicyFields>;

  constructor(private readonly deps: ApprovalPoliciesDeps) {
    this.rules = new AmountRuleBook(deps.repos.approvalPolicies, deps.repos, POLICY_AUDIT, () => this.publish());
  }

  get team(): boolean {
    return this.deps.team;
  }

  async list(): Promise<ApprovalPolicies> {
    return { policies: (await this.deps.repos.approvalPolicies.all()).map(view), expiryHours: await this.expiryHours(), team: this.deps.team };
  }

  async expiryHours(): Promise<number> {
    const stored = Number(await this.deps.repos.settings.get(EXPIRY_KEY));
    return Number.isInteger(stored) && stored > 0 ? stored : DEFAULT_EXPIRY_HOURS;
  }

  async set(input: { environment: RuleEnvironment; currency: string; mode: PolicyMode; payoutAbove: string | null; batchAbove: string | null }): Promise<PolicyView> {
    const threshold = input.mode === 'threshold';
    const saved = await this.rules.set({
      environment: input.environment,
      currency: input.currency,
      mode: input.mode,
      payoutAbove: threshold ? ruleAmount(input.payoutAbove) : null,
      batchAbove: threshold ? ruleAmount(input.batchAbove) : null,
    });
    return view(saved);
  }

  remove(environment: RuleEnvironment, currency: string): Promise<{ removed: boolean }> {
    return this.rules.remove(environment, currency);
  }

  async setExpiry(hours: number): Promise<ApprovalPolicies> {
    const { settings, audit, transaction } = this.deps.repos;
    await transaction(async () => {
      const before = await this.expiryHours();
      await settings.put(new Map([[EXPIRY_KEY, String(hours)]]));
      await audit.append({ actor: 'user', action: 'approvals.expiry-set', details: { hours, before } });
    });
    return this.publish();
  }

  /** What one payout of this amount needs. */
  async forPayout(profile: Profile, currency: string, amount: string): Promise<ApprovalNeed> {
    const rule = await this.deps.repos.approvalPolicies.ruleFor(profile.environment, currency);
    const needed = rule !== undefined && (rule.mode === 'always' || (rule.mode === 'threshold' && rule.payoutAbove !== null && compareAmounts(amount, rule.payoutAbove) > 0));
    return this.need(rule, needed, amountText(amount, currency), currency);
  }

  /** What a batch with these totals per currency needs: approval when any currency's total is above its rule. */
  async forBatch(profile: Profile, totals: readonly { currency: string; amount: string }[]): Promise<ApprovalNeed> {
    for (const total of totals) {
      const rule = await this.deps.repos.approvalPolicies.ruleFor(profile.environment, total.currency);
      const needed = rule !== undefined && (rule.mode === 'always' || (rule.mode === 'threshold' && rule.batchAbove !== null && compareAmounts(total.amount, rule.batchAbove) > 0));
      if (needed) return this.need(rule, true, amountText(total.amount, total.currency), total.currency);
    }
    return { step: 'none', policy: null, amount: null, currency: null };
  }

  /**
   * On a desk, refuses a send the policy asks a typed amount for unless it was typed exactly (an
   * equal amount: 1000 for 1000.00 is right). Nothing is spent or recorded when refused.
   */
  requireTypedAmount(need: ApprovalNeed, typed: string | undefined): void {
    if (need.step !== 'typed_amount' || need.amount === null) return;
    const exact = typed !== undefined && parseDecimal(typed) !== undefined && compareAmounts(typed, need.amount) === 0;
    if (!exact) {
      throw new ServiceError('invalid_input', `Nothing was sent: ${need.policy ?? 'the approval policy'} Type the amount, ${need.amount} ${need.currency ?? ''}, to confirm.`.replace(/\s+\./, '.'), {
        typedAmount: typed === undefined || typed === '' ? `type ${need.amount} to confirm` : `does not match ${need.amount}`,
      });
    }
  }

  private need(rule: PolicyRule | undefined, needed: boolean, amount: string, currency: string): ApprovalNeed {
    if (!rule || !needed) return { step: 'none', policy: rule ? describePolicy(rule) : null, amount: null, currency: null };
    return { step: this.deps.team ? 'approval' : 'typed_amount', policy: describePolicy(rule), amount, currency };
  }

  private async publish(): Promise<ApprovalPolicies> {
    const list = await this.list();
    this.deps.publish(list);
    return list;
  }
}

function view(rule: PolicyRule): PolicyView {
  return { ...rule, text: describePolicy(rule) };
}
