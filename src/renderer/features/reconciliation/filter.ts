// What the reconciliation screen looks at: a UTC date range, pay-ins / payouts, a profile, and the
// "pending too long" threshold. The same filter feeds the totals, the exception lists, the sweep and
// the CSV exports, so what is exported is what is shown.
import type { ExceptionScope, TransactionSubject } from '../../../shared/contract';

export type SubjectChoice = 'both' | TransactionSubject;

export interface ReconciliationFilter {
  /** First day included, YYYY-MM-DD (UTC); '' = no lower bound. */
  from: string;
  /** Last day included; '' = no upper bound. */
  to: string;
  subject: SubjectChoice;
  profileId: string | null;
  /** Minutes after which a non-final item counts as "pending too long". */
  pendingMinutes: number;
}

export const DEFAULT_PENDING_MINUTES = 60;

/** The last 30 days, UTC, today included. */
export function defaultFilter(now: Date = new Date()): ReconciliationFilter {
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  return { from: day(now.getTime() - 29 * 86_400_000), to: day(now.getTime()), subject: 'both', profileId: null, pendingMinutes: DEFAULT_PENDING_MINUTES };
}

/** Problems the user can fix before anything is asked of main, by field. */
export function filterProblems(filter: ReconciliationFilter): Partial<Record<'from' | 'to' | 'pendingMinutes', string>> {
  const problems: Partial<Record<'from' | 'to' | 'pendingMinutes', string>> = {};
  if (filter.from && filter.to && filter.from > filter.to) problems.to = 'Must be on or after the first day: swap the dates.';
  if (!Number.isFinite(filter.pendingMinutes) || filter.pendingMinutes < 0 || filter.pendingMinutes > 525_600) problems.pendingMinutes = 'From 0 to 525600 minutes (one year).';
  return problems;
}

export function subjectsOf(choice: SubjectChoice): TransactionSubject[] {
  return choice === 'both' ? ['payin', 'payout'] : [choice];
}

/** The totals / totals-CSV input for this filter. */
export function totalsInput(filter: ReconciliationFilter) {
  return {
    ...(filter.profileId ? { profileId: filter.profileId } : {}),
    ...(filter.from ? { from: filter.from } : {}),
    ...(filter.to ? { to: filter.to } : {}),
    subjects: subjectsOf(filter.subject),
  };
}

/**
 * The exception-list / summary / CSV input for this filter: the profile, the threshold and the
 * date range (each list by the time its rows show). The lists hold pay-ins and payouts alike (the
 * Transactions choice narrows the totals and the sweep only), and the section says so.
 */
export function exceptionScope(filter: ReconciliationFilter): ExceptionScope {
  return {
    ...(filter.profileId ? { profileId: filter.profileId } : {}),
    ...(filter.from ? { from: filter.from } : {}),
    ...(filter.to ? { to: filter.to } : {}),
    pendingOlderThanMinutes: filter.pendingMinutes,
  };
}
