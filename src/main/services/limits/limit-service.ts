// Payout limits: configure them (audited, pushed), describe them for the review step, and enforce
// them. guard() runs inside the transaction that records a payout, before its attempt is
// prepared, so two payouts sent at once (a batch runs several) cannot both squeeze under a limit.
import Decimal from 'decimal.js';
import type { LimitCheck, LimitCheckResult, LimitEnvironment, LimitsList, LimitView } from '../../../shared/contract';
import { compareAmounts, parseDecimal, sumAmounts } from '../../../shared/money';
import type { Ledger } from '../../ledger/connection';
import type { AuditLog } from '../../ledger/repositories/audit-log';
import type { Profile } from '../../ledger/repositories/profiles';
import { ServiceError } from '../errors';
import { LimitsStore, utcDayStart, type LimitRule } from './limits-store';

export interface LimitServiceDeps {
  db: Ledger;
  audit: AuditLog;
  now: () => Date;
  publish: (list: LimitsList) => void;
}

const ENVIRONMENT_WORDS: Record<LimitEnvironment, string> = { any: 'every environment', local: 'local emulator', live: 'live' };

/** At least two decimals, never rounded: "1000" → "1000.00", "0.000001" stays. */
function show(amount: string): string {
  const d = new Decimal(amount);
  return d.toFixed(Math.max(2, d.decimalPlaces()));
}

const usageEnvironments = (environment: LimitEnvironment): ('local' | 'live')[] => (environment === 'any' ? ['local', 'live'] : [environment]);

export class LimitService {
  private readonly store: LimitsStore;

  constructor(private readonly deps: LimitServiceDeps) {
    this.store = new LimitsStore(deps.db);
  }

  list(): LimitsList {
    const now = this.deps.now();
    return {
      day: utcDayStart(now).toISOString().slice(0, 10),
      limits: this.store.all().map((rule) => this.view(rule, now)),
    };
  }

  set(input: { environment: LimitEnvironment; currency: string; perPayoutMax: string | null; dailyMax: string | null }): LimitView {
    const canonical = (value: string | null) => (value === null ? null : (parseDecimal(value)?.toFixed() ?? null));
    const rule = { environment: input.environment, currency: input.currency, perPayoutMax: canonical(input.perPayoutMax), dailyMax: canonical(input.dailyMax) };
    const saved = this.deps.db.transaction(() => {
      const before = this.store.find(rule.environment, rule.currency);
      const saved = this.store.upsert(rule, this.deps.now());
      this.deps.audit.append({
        actor: 'user',
        action: 'limits.set',
        subject: `${rule.currency}/${rule.environment}`,
        details: { ...rule, before: before ? { perPayoutMax: before.perPayoutMax, dailyMax: before.dailyMax } : null },
      });
      return saved;
    })();
    this.publish();
    return this.view(saved, this.deps.now());
  }

  remove(environment: LimitEnvironment, currency: string): { removed: boolean } {
    const removed = this.deps.db.transaction(() => {
      const before = this.store.find(environment, currency);
      if (!before) return false;
      this.store.remove(environment, currency);
      this.deps.audit.append({ actor: 'user', action: 'limits.remove', subject: `${currency}/${environment}`, details: { environment, currency, before: { perPayoutMax: before.perPayoutMax, dailyMax: before.dailyMax } } });
      return true;
    })();
    if (removed) this.publish();
    return { removed };
  }

  /** Every rule that applies to a payout of `amount` `currency` through `profile`, judged now. */
  check(profile: Pick<Profile, 'environment'>, currency: string, amount: string): LimitCheckResult {
    const value = parseDecimal(amount);
    const checks: LimitCheck[] = [];
    if (profile.environment !== 'sandbox') {
      const now = this.deps.now();
      for (const rule of this.store.applicable(profile.environment, currency)) checks.push(...this.judge(rule, profile.environment, value?.toFixed() ?? null, now));
    }
    return { ok: checks.every((c) => c.ok), environment: profile.environment, checks };
  }

  /** Refuses a payout over a limit; runs inside the transaction that would record it. */
  guard(profile: Profile, body: { amount: string | { value: string }; currency: string }): void {
    const amount = typeof body.amount === 'string' ? body.amount : body.amount.value;
    const failed = this.check(profile, body.currency, amount).checks.filter((c) => !c.ok);
    if (failed.length === 0) return;
    throw new ServiceError('conflict', `Refused by a payout limit; nothing was recorded or sent. ${failed.map((c) => c.message).join(' ')}`, { amount: failed.map((c) => c.message).join(' ') });
  }

  private judge(rule: LimitRule, environment: 'local' | 'live', amount: string | null, now: Date): LimitCheck[] {
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
          ? `Per-payout limit for ${scope}: ${show(rule.perPayoutMax)} ${rule.currency}; this payout is within it.`
          : `Over the per-payout limit for ${scope}: ${amount === null ? 'the amount' : `${show(amount)} ${rule.currency}`} is more than the maximum of ${show(rule.perPayoutMax)} ${rule.currency}.`,
      });
    }
    if (rule.dailyMax !== null) {
      const used = this.store.usedToday(environment, rule.currency, now);
      const after = amount === null ? null : sumAmounts([used, amount]);
      const ok = after !== null && compareAmounts(after, rule.dailyMax) <= 0;
      const usedText = `${show(used)} of ${show(rule.dailyMax)} ${rule.currency} used today (UTC)`;
      checks.push({
        ...base,
        kind: 'daily',
        limit: rule.dailyMax,
        usedToday: used,
        ok,
        message: ok
          ? `Daily limit for ${scope}: ${usedText}; with this payout ${show(after ?? used)}.`
          : `Over the daily limit for ${scope}: ${usedText}; this payout would make ${after === null ? 'more' : show(after)} ${rule.currency}.`,
      });
    }
    return checks;
  }

  private view(rule: LimitRule, now: Date): LimitView {
    return { ...rule, usage: usageEnvironments(rule.environment).map((environment) => ({ environment, usedToday: this.store.usedToday(environment, rule.currency, now) })) };
  }

  private publish(): void {
    this.deps.publish(this.list());
  }
}
