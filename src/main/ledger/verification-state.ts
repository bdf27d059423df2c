// The one verification state of a pay-in or payout, derived here and nowhere else: the views,
// the search, the CSV exports and the reconciliation exception lists all carry this value, so the
// badge, the panel, the lists and the exception lists cannot disagree.
//
//   mismatch    a contradiction is recorded: a final result contradicted by a notification or a
//               create answer, a status read that says another final status, a notified claim
//               the gateway contradicted, other money facts; for a human to look at
//   claimed     the latest notification claims a status no gateway answer has confirmed yet
//   pending     no final result yet (a pending code, or no status at all) and nothing claimed
//   verified    the status held is final (or a code the catalogue does not know, which may be)
//               and the gateway's own status read says the same
//   unverified  the status held is final (or unknown) but no status read has confirmed it
import type { ClaimState } from './repositories/transaction-record';

export type VerificationState = 'pending' | 'unverified' | 'claimed' | 'verified' | 'mismatch';

export interface VerificationFacts {
  /** The status the gateway's own answers gave (create answer or status read); null before any. */
  statusCode: string | null;
  /** Whether that status is final (known final codes only). */
  final: boolean;
  /** Whether the catalogue knows that status; an unknown one may be final, so it is verified like one. */
  statusKnown: boolean;
  /** The state of the latest notified claim; null when nothing was notified. */
  claimState: ClaimState | null;
  lastNotifiedStatus: string | null;
  /** What the latest status read said; null before any. */
  lastVerifiedStatus: string | null;
  /** A contradiction of any kind is recorded (the ledger's mismatch flag). */
  mismatch: boolean;
}

export function verificationState(f: VerificationFacts): VerificationState {
  if (f.mismatch || f.claimState === 'contradicted') return 'mismatch';
  if (f.claimState === 'unverified' && f.lastNotifiedStatus !== null) return 'claimed';
  if (f.statusCode === null || (f.statusKnown && !f.final)) return 'pending';
  return f.lastVerifiedStatus === f.statusCode ? 'verified' : 'unverified';
}
