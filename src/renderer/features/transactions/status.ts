// The catalogue's word on a transaction's status and reason code, for pay-ins and payouts alike.
import type { TransactionSubject } from '../../../shared/contract';
import { describePayinStatus, describePayoutStatus, describeReason, type CodeInfo } from '../../../shared/spec/codes';
import { categoryColors } from '../codes/category';

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
