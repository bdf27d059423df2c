// Payout limits: configure them (audited, pushed), describe them for the review step, and enforce
// them. guard() runs inside the transaction that records a payout, before its attempt is
// prepared, so two payouts sent at once (a batch runs several) cannot both squeeze under a limit.
import type { LimitCheck, LimitCheckResult, LimitsList, LimitView, RuleEnvironment } from '../../../shared/contract';
import { amountText, compareAmounts, parseDecimal, sumAmounts } from '../../../shared/money';
import type { Repositories } from '../../ledger/repositories/index';
import type { LimitFields, LimitRule } from '../../ledger/repositories/limits';
import type { Profile } from '../../ledger/repositories/profiles';
import { AmountRuleBook, ruleAmount, type RuleAudit } from '../amount-rules';
import { ServiceError } from '../errors';
import type { ProfileService } from '../profile-service';
import type { DuplicateGuard } from '../payments/duplicate-guard';

export interface LimitServiceDeps {
  repos: Pick<Repositories, 'limits' | 'audit' | 'transaction'>;
  profiles: Pick<ProfileService, 'resolve'>;
  /** The duplicate window is set with the limits (the payout guards finance configures). */
  duplicates: Pick<DuplicateGuard, 'windowDays' | 'setWindowDays'>;
  now: () => Date;
  publish: (list: LimitsList) => void;
}

const ENVIRONMENT_WORDS: Record<RuleEnvironment, string> = { any: 'every environment', local: 'local emulator', live: 'live' };

/** Midnight UTC of the day `now` falls in: daily limits count the payouts since. */
function utcDayStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

const usageEnvironments = (environment: RuleEnvironment): ('local' | 'live')[] => (environment === 'any' ? ['local', 'live'] : [environment]);

/** What a limit's audit entry records of it. */
const limitAmounts = (rule: LimitRule) => ({ perPayoutMax: rule.perPayoutMax, dailyMax: rule.dailyMax });

const LIMIT_AUDIT: RuleAudit<LimitFields> = {
  set: 'limits.set',
  remove: 'limits.remove',
  setDetails: (rule, before) => ({ ...rule, before: before ? limitAmounts(before) : null }),
  removeDetails: (before) => ({ environment: before.environment, currency: before.currency, before: limitAmounts(before) }),
};

export class LimitService {
  private readonly rules: AmountRuleBook<LimitFields>;

  constructor(private readonly deps: LimitServiceDeps) {
    this.rules = new AmountRuleBook(deps.repos.limits, deps.repos, LIMIT_AUDIT, () => this.publish());
  }

  async list(): Promise<LimitsList> {
    const now = this.deps.now();
    const limits: LimitView[] = [];
    for (const rule of await this.deps.repos.limits.all()) limits.push(await this.view(rule, now));
    return { day: utcDayStart(now).toISOString().slice(0, 10), limits, duplicateWindowDays: await this.deps.duplicates.windowDays() };
  }

  /** How far back a payout is compared with earlier ones to the same account (audited, pushed). */
  async setDuplicateWindow(days: number): Promise<LimitsList> {
    await this.deps.repos.transaction(async () => {
      const before = await this.deps.duplicates.windowDays();
      await this.deps.duplicates.setWindowDays(days);
      await this.deps.repos.audit.append({ actor: 'user', action: 'limits.duplicate_window', subject: 'duplicate window', details: { days, before } });
    });
    return this.publish();
  }

  async set(input: { environment: RuleEnvironment; currency: string; perPayoutMax: string | null; dailyMax: string | null }): Promise<LimitView> {
    const saved = await this.rules.set({ environment: input.environment, currency: input.currency, perPayoutMax: ruleAmount(input.perPayoutMax), dailyMax: ruleAmount(input.dailyMax) });
    return this.view(saved, this.deps.now());
  }

  remove(environment: RuleEnvironment, currency: string): Promise<{ removed: boolean }> {
    return this.rules.remove(environment, currency);
  }

  /** What the limits say about one payout through the given profile (or the active one), for the review step. */
  async checkPayout(input: { profileId?: string | undefined; currency: string; amount: string }): Promise<LimitCheckResult> {
    return this.check(await this.deps.profiles.resolve(input.profileId), input.currency, input.amount);
  }

  /** Every rule that applies to a payout of `amount` `currency` through `profile`, judged now. */
  async check(profile: Pick<Profile, 'environment'>, currency: string, amount: string): Promise<LimitCheckResult> {
    const value = parseDecimal(amount);
    const checks: LimitCheck[] = [];
    if (profile.environment !== 'sandbox') {
      const now = this.deps.now();
      for (const rule of await this.deps.repos.limits.applicable(profile.environment, currency)) checks.push(...(await this.judge(rule, profile.environment, value?.toFixed() ?? null, now)));
    }
    return { ok: checks.every((c) => c.ok), environment: profile.environment, checks };
  }

  /** Refuses a payout over a limit (rejects); runs inside the transaction that would record it. */
  async guard(profile: Profile, body: { amount: string | { value: string }; currency: string }): Promise<void> {
    const amount = typeof body.amount === 'string' ? body.amount : body.amount.value;
    const failed = (await this.check(profile, body.currency, amount)).checks.filter((c) => !c.ok);
    if (failed.length === 0) return;
    throw new ServiceError('conflict', `Refused by a payout limit; nothing was recorded or sent. ${failed.map((c) => c.message).join(' ')}`, { amount: failed.map((c) => c.message).join(' ') });
  }

  private async judge(rule: LimitRule, environment: 'local' | 'live', amount: string | null, now: Date): Promise<LimitCheck[]> {
    const scope = `${rule.currency} payouts (${ENVIRONMENT_WORDS[rule.environment]})`;
    const base = { environment: rule.environment, currency: rule.currency };
    const checks: LimitCheck[] = [];
    if (rule.perPayoutMax !== null) {
      const ok = amount !== null && compareAmounts(amount, rule.perPayoutMax) <= 0;
      checks.push({
        ...base,
        kind: 'per_payout',
        limit: rule.perPayoutMax,
        usedToday: null,
        ok,
        message: ok
          ? `Per-payout limit for ${scope}: ${amountText(rule.perPayoutMax, rule.currency)} ${rule.currency}; this payout is within it.`
          : `Over the per-payout limit for ${scope}: ${amount === null ? 'the amount' : `${amountText(amount, rule.currency)} ${rule.currency}`} is more than the maximum of ${amountText(rule.perPayoutMax, rule.currency)} ${rule.currency}.`,
      });
    }
    if (rule.dailyMax !== null) {
      const used = await this.deps.repos.limits.usedSince(environment, rule.currency, utcDayStart(now));
      const after = amount === null ? null : sumAmounts([used, amount]);
      const ok = after !== null && compareAmounts(after, rule.dailyMax) <= 0;
      const usedText = `${amountText(used, rule.currency)} of ${amountText(rule.dailyMax, rule.currency)} ${rule.currency} used today (UTC)`;
      checks.push({
        ...base,
        kind: 'daily',
        limit: rule.dailyMax,
        usedToday: used,
        ok,
        message: ok
          ? `Daily limit for ${scope}: ${usedText}; with this payout ${amountText(after ?? used, rule.currency)}.`
          : `Over the daily limit for ${scope}: ${usedText}; this payout would make ${after === null ? 'more' : amountText(after, rule.currency)} ${rule.currency}.`,
      });
    }
    return checks;
  }

  private async view(rule: LimitRule, now: Date): Promise<LimitView> {
    const usage: LimitView['usage'] = [];
    for (const environment of usageEnvironments(rule.environment)) usage.push({ environment, usedToday: await this.deps.repos.limits.usedSince(environment, rule.currency, utcDayStart(now)) });
    return { ...rule, usage };
  }

  private async publish(): Promise<LimitsList> {
    const list = await this.list();
    this.deps.publish(list);
    return list;
  }
}
