// The send at the end of a payout's review, for every path that reviews a new payout (New payout,
// the playground): sent, or — where the approval policy holds it back on a team server —
// submitted for approval with the same proof of review (main refuses the plain send then).
import type { ApprovalView, PayoutCreateForm, PayoutReviewView, SubmitResult } from '../../../shared/contract';
import type { ApiClient } from '../../api/client';

export type ReviewedSend = { kind: 'sent'; result: SubmitResult } | { kind: 'submitted'; approval: ApprovalView };

export async function sendReviewedPayout(api: ApiClient, review: PayoutReviewView, form: PayoutCreateForm, confirmed: boolean, typedAmount?: string): Promise<ReviewedSend> {
  const input = {
    ...form,
    profileId: review.profile.id,
    merchantReference: review.payout.merchantReference,
    reviewId: review.reviewId,
    confirmed: review.required ? confirmed : true,
    // The review's send button waits for the person's confirmation of every possible duplicate.
    confirmedDuplicateOf: review.duplicates.map((d) => d.id),
    ...(typedAmount !== undefined ? { typedAmount } : {}),
  };
  if (review.approval.step === 'approval') return { kind: 'submitted', approval: await api.invoke('approvals:request-payout', input) };
  return { kind: 'sent', result: await api.invoke('payouts:create', input) };
}
