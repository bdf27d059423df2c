// Paying the same people twice: a payout to the same beneficiary account (IBAN, wallet, sort code
// and account number, a card's first 6 / last 4: shared/payout-destination.ts beneficiaryKey),
// of the same amount and currency, through the same profile, within the last N days (the window,
// 30 by default, set with the payout limits) is a possible duplicate of the earlier one. Finding
// one refuses nothing by itself: the person confirms each such payout (a batch row, a manual
// payout), and main refuses one that was not confirmed. The earlier payouts are read through an
// index on (profile, beneficiary, created_at), a chunk of rows in one query, so the check stays
// fast however large the ledger grows. Payouts that failed for good (nothing was paid) do not count.
import type { PayoutMatch } from '../../../shared/contract';
import { amountText, compareAmounts, typedAmount } from '../../../shared/money';
import { beneficiaryKey } from '../../../shared/payout-destination';
import type { Repositories } from '../../ledger/repositories/index';
import type { BeneficiaryPayout } from '../../ledger/repositories/payouts';

export const DEFAULT_DUPLICATE_WINDOW_DAYS = 30;
const WINDOW_KEY = 'payouts.duplicateWindowDays';
const DAY_MS = 86_400_000;
/** Earlier payouts named per row at most (the newest first). */
const MATCHES_SHOWN = 5;

/** What a payout is compared on. */
export interface DuplicateCandidate {
  method: string;
  amount: string | undefined;
  currency: string | undefined;
  paymentDetails?: Readonly<Record<string, unknown>> | undefined;
  /** A card payout's first 6 / last 4 (never its number). */
  card?: { bin: string | null; last4: string | null } | null;
}

export interface DuplicateGuardDeps {
  repos: Pick<Repositories, 'payouts' | 'settings'>;
  now: () => Date;
}

export class DuplicateGuard {
  constructor(private readonly deps: DuplicateGuardDeps) {}

  /** The window in days: payouts older than this are not compared. */
  async windowDays(): Promise<number> {
    const stored = await this.deps.repos.settings.get(WINDOW_KEY);
    const days: unknown = stored === undefined ? undefined : JSON.parse(stored);
    return typeof days === 'number' && Number.isInteger(days) && days > 0 ? days : DEFAULT_DUPLICATE_WINDOW_DAYS;
  }

  /** Stores the window (the caller audits it). */
  async setWindowDays(days: number): Promise<void> {
    await this.deps.repos.settings.put(new Map([[WINDOW_KEY, JSON.stringify(days)]]));
  }

  /** For each candidate, in order, the profile's earlier payouts it may repeat (newest first; [] when none). */
  async matches(profileId: string, candidates: readonly DuplicateCandidate[]): Promise<PayoutMatch[][]> {
    const keyed = candidates.map((c) => ({ key: beneficiaryKey(c.method, c.paymentDetails ?? {}, c.card), amount: c.amount === undefined ? undefined : canonical(c.amount), currency: c.currency }));
    const keys = [...new Set(keyed.flatMap((c) => (c.key !== null && c.amount !== undefined ? [c.key] : [])))];
    if (keys.length === 0) return candidates.map(() => []);
    const since = new Date(this.deps.now().getTime() - (await this.windowDays()) * DAY_MS).toISOString();
    const byKey = new Map<string, BeneficiaryPayout[]>();
    for (const payout of await this.deps.repos.payouts.toBeneficiaries(profileId, keys, since)) {
      const list = byKey.get(payout.beneficiaryKey) ?? [];
      list.push(payout);
      byKey.set(payout.beneficiaryKey, list);
    }
    return keyed.map(({ key, amount, currency }) => {
      if (key === null || amount === undefined) return [];
      return (byKey.get(key) ?? [])
        .filter((p) => p.currency === currency && compareAmounts(p.amount, amount) === 0)
        .slice(0, MATCHES_SHOWN)
        .map((p) => ({ id: p.id, merchantReference: p.merchantReference, amount: amountText(p.amount, p.currency), currency: p.currency, statusCode: p.statusCode, createdAt: p.createdAt }));
    });
  }
}

/** The amount as a plain decimal, or undefined when it is none (its own problem is named elsewhere). */
function canonical(text: string): string | undefined {
  const typed = typedAmount(text);
  return typed.ok ? typed.value.value : undefined;
}

/**
 * Whether every earlier payout a candidate matched is among those the person confirmed (by row id).
 * A match the person did not see (made after the check) is not confirmed.
 */
export function unconfirmed(matches: readonly PayoutMatch[], confirmed: readonly number[] | undefined): PayoutMatch[] {
  const ok = new Set(confirmed ?? []);
  return matches.filter((m) => !ok.has(m.id));
}

/** One sentence naming the earlier payouts, for an error or the audit log. */
export function describeMatches(matches: readonly PayoutMatch[]): string {
  return matches.map((m) => `${m.merchantReference} (${m.amount} ${m.currency}, ${m.createdAt.slice(0, 10)})`).join(', ');
}
