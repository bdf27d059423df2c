// The review step of a payout, enforced by main. Every path that can send a
// live payout — New payout, the playground, a CSV batch's start or resume, the resume of a payout
// attempt — first asks main for a review of exactly what will be sent (`payouts:review`,
// `batches:review`, `attempts:review`). Main answers what the person must check and a review id,
// single use, bound to the profile and to a digest of exactly those bytes, expiring after a few
// minutes. The send then carries `reviewId` and `confirmed: true`; on a live profile main refuses
// it without them, with an expired or used id, or with an id given for anything else.
import { z } from 'zod';
import { environmentKindSchema } from './app';

/** The proof a send carries. Required on a live profile; when given elsewhere, it must hold too. */
export const reviewProofFields = {
  /** From the review of exactly this payout (or batch, or attempt); single use, expires. */
  reviewId: z.string().trim().min(1).max(100).optional(),
  /** The person ticked the confirmation on that review. */
  confirmed: z.boolean().optional(),
  /** Where the approval policy asks a desk for a second confirmation: the amount (a batch's total) typed again. */
  typedAmount: z.string().trim().max(40).optional(),
};

/** Whether the gateway can post this profile's notifications to the URL Paydesk sends it. */
export const notificationReachSchema = z.object({
  url: z.string(),
  /** False: a sandbox or live gateway cannot post to a loopback address; Paydesk polls the status instead. */
  reachable: z.boolean(),
  /** Why not, and the setting that fixes it; null when reachable. */
  warning: z.string().nullable(),
});
export type NotificationReachView = z.infer<typeof notificationReachSchema>;

/** What a review says (contract/approvals.ts) about the second step its send needs. */
export const approvalNeedSchema = z.object({
  /** none: send at once; approval: submit it for a second person's approval; typed_amount: type the amount again to send. */
  step: z.enum(['none', 'approval', 'typed_amount']),
  /** The policy that applies, in words; null when none does. */
  policy: z.string().nullable(),
  /** typed_amount: exactly what to type (the payout's amount, or the batch's total in this currency). */
  amount: z.string().nullable(),
  currency: z.string().nullable(),
});
export type ApprovalNeed = z.infer<typeof approvalNeedSchema>;

/** What every review carries besides the thing reviewed. */
export const reviewTicketFields = {
  reviewId: z.string(),
  /** After this the send is refused: review again. */
  expiresAt: z.string(),
  /** True on a live profile: main refuses the send without this review and `confirmed: true`. */
  required: z.boolean(),
  profile: z.object({ id: z.string(), name: z.string(), environment: environmentKindSchema }),
  notifications: notificationReachSchema,
};

/** One payout as the person checks it: exact amount, beneficiary, destination masked. */
export const reviewedPayoutSchema = z.object({
  method: z.string(),
  /** Exact decimal text, as it will be sent. */
  amount: z.string(),
  currency: z.string(),
  country: z.string(),
  /** Assigned by main when the form left it empty; send it back with the create. */
  merchantReference: z.string(),
  beneficiary: z.string(),
  email: z.string(),
  /** Card first 6 / last 4, IBAN country and last 4, wallet shortened, account last 4. */
  destination: z.array(z.object({ label: z.string(), value: z.string() })),
});
export type ReviewedPayout = z.infer<typeof reviewedPayoutSchema>;
