// How the one verification state main derives (contract: verificationStateSchema) reads on screen:
// the same words and colour in the badge, the panel, the lists and the exception lists. Nothing
// here decides the state; it only names it.
import type { PayinView, PayoutView, VerificationStateView } from '../../../shared/contract';
import { formatTime } from './format';

export const verificationLooks: Record<VerificationStateView, { label: string; color: string }> = {
  mismatch: { label: 'mismatch', color: 'red' },
  claimed: { label: 'notified, unverified', color: 'yellow' },
  verified: { label: 'verified', color: 'teal' },
  unverified: { label: 'not verified', color: 'gray' },
  pending: { label: 'awaiting result', color: 'gray' },
};

export type Verifiable = Pick<PayinView | PayoutView, 'verification' | 'statusCode' | 'lastNotifiedStatus' | 'lastNotifiedAt' | 'lastVerifiedStatus' | 'lastVerifiedAt'>;

/** The state in a sentence, with the statuses it is about. */
export function verificationSentence(t: Verifiable): string {
  switch (t.verification) {
    case 'mismatch':
      return 'The gateway contradicts what was notified (or another of its own answers): a mismatch for a human to look at.';
    case 'claimed':
      return `The latest notification claims ${t.lastNotifiedStatus ?? 'news'}; no status read from the gateway has confirmed it yet.`;
    case 'verified':
      return t.lastNotifiedStatus === t.statusCode
        ? `A status read from the gateway agrees with the latest notification: ${t.statusCode}.`
        : `A status read from the gateway confirms status ${t.statusCode}.`;
    case 'unverified':
      return `No status read from the gateway has confirmed status ${t.statusCode ?? '(none)'} yet.`;
    case 'pending':
      if (t.statusCode === null) return 'The gateway has not given a status yet.';
      return t.lastVerifiedStatus === t.statusCode
        ? `A status read from the gateway says it is still pending (${t.statusCode}); the final result comes with a notification, which a status read then verifies.`
        : `No final result yet (${t.statusCode}); it comes with a notification, which a status read then verifies.`;
  }
}

/** What was notified and what the gateway said, with their times (the badge's tooltip). */
export function verificationHint(t: Verifiable): string {
  const notified = t.lastNotifiedStatus === null ? 'Notified: nothing yet.' : `Notified: ${t.lastNotifiedStatus} at ${formatTime(t.lastNotifiedAt)}.`;
  const verified = t.lastVerifiedStatus === null ? 'Status read: none yet.' : `Status read: ${t.lastVerifiedStatus} at ${formatTime(t.lastVerifiedAt)}.`;
  return `${notified} ${verified}`;
}
