// The catalogue's word on a transaction's status and reason code, for pay-ins and payouts alike.
import type { TransactionSubject } from '../../../shared/contract';
import { describePayinStatus, describePayoutStatus, describeReason, type CodeInfo } from '../../../shared/spec/codes';
import { eventSpec } from '../../../shared/spec/events';
import { categoryColors, categoryLabels } from '../codes/category';

export function describeStatus(subject: TransactionSubject, code: string | null): CodeInfo | null {
  if (code === null) return null;
  return subject === 'payin' ? describePayinStatus(code) : describePayoutStatus(code);
}

export function describeReasonCode(code: string | null): CodeInfo | null {
  return code === null ? null : describeReason(code);
}

/** The category's colour; an unknown code is a neutral outline that stays readable in light and dark. */
export function categoryColor(info: CodeInfo): string {
  return info.known ? categoryColors[info.category] : 'gray';
}

/** The noun users read: "pay-in" / "payout". */
export function subjectNoun(subject: TransactionSubject): string {
  return subject === 'payin' ? 'pay-in' : 'payout';
}

/** What a status badge reads: the code and its category, or for no code the create attempt's state. */
export function statusBadgeLabel(subject: TransactionSubject, code: string | null, attemptState: string | null = null): string {
  const info = describeStatus(subject, code);
  if (info === null) return attemptState === 'unknown' ? 'outcome unknown' : attemptState === 'rejected' ? 'refused' : 'no answer yet';
  return `${code} · ${info.known ? categoryLabels[info.category] : 'unknown'}`;
}

/** What a tokenization result's badge reads: the vaulting's result, not the pay-in's. */
export function tokenizationLabel(code: string | null): string {
  return `tokenization ${code ?? '—'} · ${code === '200' ? 'card vaulted' : 'not vaulted'}`;
}

/** What a notification's status badge reads, its status_code read as its event defines it. */
export function eventStatusLabel(event: string | null, code: string | null): string {
  const spec = eventSpec(event);
  if (spec?.statusOf === 'vaulting') return tokenizationLabel(code);
  if (spec !== undefined) return statusBadgeLabel(spec.subject, code);
  return `${code ?? '—'} · unknown event`;
}
