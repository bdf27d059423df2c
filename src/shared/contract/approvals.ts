// Four eyes on live money (docs/team.md "Approvals"). An admin sets a policy per
// environment and currency: payouts above an amount and batches above a total need approval
// ("threshold"), or every one does ("always"), or none ("never"). On a team server a payout or
// batch that needs it is not sent: the maker submits it for approval with the proof of its review,
// and it waits, with its full reviewed body, until a different person with the approver role
// approves it (which sends it, exactly once, under the Idempotency-Key written at approval) or
// rejects it with a reason; the maker may withdraw it; it expires after the admin's period. On a
// single desk, where there is nobody else, the same policy asks for a second confirmation instead:
// the amount (a batch's total) typed again.
import { z } from 'zod';
import { environmentKindSchema, noInput } from './app';
import { batchViewSchema } from './batches';
import { ruleAmountSchema, ruleCurrencySchema, ruleEnvironmentSchema, ruleKeySchema, ruleViewFields } from './amount-rules';
import { payoutCreateInputSchema, submitResultSchema } from './payments';
import { reviewedPayoutSchema, reviewProofFields } from './reviews';

export const POLICY_MODES = ['threshold', 'always', 'never'] as const;
export const policyModeSchema = z.enum(POLICY_MODES);
export type PolicyMode = z.infer<typeof policyModeSchema>;

export const APPROVAL_KINDS = ['payout', 'batch'] as const;
export type ApprovalKind = (typeof APPROVAL_KINDS)[number];

export const APPROVAL_STATES = ['awaiting', 'approved', 'rejected', 'expired', 'withdrawn', 'voided'] as const;
export const approvalStateSchema = z.enum(APPROVAL_STATES);
export type ApprovalState = z.infer<typeof approvalStateSchema>;

const threshold = ruleAmountSchema('An amount such as 1000 or 250.50 (digits, an optional dot and up to 10 decimals).');

export const policyViewSchema = z.object({
  ...ruleViewFields,
  mode: policyModeSchema,
  /** Exact decimal text: a payout above it needs approval (threshold mode); null: no payout rule. */
  payoutAbove: z.string().nullable(),
  /** Exact decimal text: a batch whose total in this currency is above it needs approval; null: no batch rule. */
  batchAbove: z.string().nullable(),
  /** The rule in words, e.g. "Live EUR: payouts above 1000.00 and batches above 10000.00 need approval." */
  text: z.string(),
});
export type PolicyView = z.infer<typeof policyViewSchema>;

export const approvalPoliciesSchema = z.object({
  policies: z.array(policyViewSchema),
  /** An approval not decided within this many hours expires. */
  expiryHours: z.number().int(),
  /** True on a team server (a second person approves); false on a desk (the amount is typed again). */
  team: z.boolean(),
});
export type ApprovalPolicies = z.infer<typeof approvalPoliciesSchema>;

export const policySetInputSchema = z
  .object({ environment: ruleEnvironmentSchema, currency: ruleCurrencySchema, mode: policyModeSchema, payoutAbove: threshold.nullable(), batchAbove: threshold.nullable() })
  .strict()
  .refine((value) => value.mode !== 'threshold' || value.payoutAbove !== null || value.batchAbove !== null, { message: 'A threshold policy needs a payout amount, a batch total or both.', path: ['payoutAbove'] });
export type PolicySetInput = z.input<typeof policySetInputSchema>;


const personRef = z.object({ id: z.string(), name: z.string() });

export const approvalViewSchema = z.object({
  id: z.number().int(),
  kind: z.enum(APPROVAL_KINDS),
  state: approvalStateSchema,
  profile: z.object({ id: z.string(), name: z.string(), environment: environmentKindSchema }),
  /** The payout's merchantReference, or the batch's id. */
  subject: z.string(),
  /** A payout's currency; a batch's currencies, comma separated. */
  currency: z.string(),
  /** Exact decimal text: the payout's amount; a batch's total when it has one currency, else its totals in words. */
  amount: z.string(),
  itemCount: z.number().int(),
  /** A payout as the review showed it (destination masked). */
  payout: reviewedPayoutSchema.nullable(),
  /** A batch's totals per currency. */
  batch: z.object({ id: z.number().int(), name: z.string(), totals: z.array(z.object({ currency: z.string(), amount: z.string(), count: z.number().int() })) }).nullable(),
  policy: z.string(),
  maker: personRef,
  decidedBy: personRef.nullable(),
  reason: z.string().nullable(),
  /** HMAC-SHA256 of the full reviewed body: what the approval is bound to. */
  bodyHash: z.string(),
  idempotencyKey: z.string().nullable(),
  createdAt: z.string(),
  expiresAt: z.string(),
  decidedAt: z.string().nullable(),
  /** A card payout: the approver types the card number again (it is never stored), and it must give the reviewed body. */
  needsCardNumber: z.boolean(),
});
export type ApprovalView = z.infer<typeof approvalViewSchema>;

export const approvalListInputSchema = z
  .object({
    /** queue: awaiting a decision; mine: what the person asking submitted; decided: the history. */
    scope: z.enum(['queue', 'mine', 'decided']),
    cursor: z.string().max(200).nullable().optional(),
    limit: z.number().int().min(1).max(200).optional(),
  })
  .strict();

const approvalId = z.number().int().positive();

export const approvalDecisionSchema = z.object({
  approval: approvalViewSchema,
  /** A payout approved: what its send ended in. */
  payout: submitResultSchema.nullable(),
  /** A batch approved: the batch, started. */
  batch: batchViewSchema.nullable(),
});
export type ApprovalDecision = z.infer<typeof approvalDecisionSchema>;

export const approvalsContract = {
  invoke: {
    'approvals:policies': { input: noInput, output: approvalPoliciesSchema },
    'approvals:set-policy': { input: policySetInputSchema, output: policyViewSchema },
    'approvals:remove-policy': { input: ruleKeySchema, output: z.object({ removed: z.boolean() }) },
    'approvals:set-expiry': { input: z.object({ hours: z.number().int().min(1).max(720) }).strict(), output: approvalPoliciesSchema },
    /** A payout that needs approval, with the proof of the maker's review of exactly it: stored, nothing sent. */
    'approvals:request-payout': { input: payoutCreateInputSchema, output: approvalViewSchema },
    /** A complete draft batch whose total needs approval, with the proof of its review: it waits, nothing sent. */
    'approvals:request-batch': { input: z.object({ id: z.number().int().positive(), ...reviewProofFields }).strict(), output: approvalViewSchema },
    'approvals:list': { input: approvalListInputSchema, output: z.object({ items: z.array(approvalViewSchema), nextCursor: z.string().nullable(), awaiting: z.number().int() }) },
    'approvals:get': { input: z.object({ id: approvalId }).strict(), output: approvalViewSchema },
    /** Approves and sends (a payout) or starts (a batch); never the maker's own. A card payout's number is typed again. */
    'approvals:approve': { input: z.object({ id: approvalId, cardNum: z.string().trim().max(40).optional() }).strict(), output: approvalDecisionSchema },
    'approvals:reject': { input: z.object({ id: approvalId, reason: z.string().trim().min(3, 'Say why, in a few words.').max(500) }).strict(), output: approvalViewSchema },
    /** The maker takes back what they submitted, while it awaits. */
    'approvals:withdraw': { input: z.object({ id: approvalId }).strict(), output: approvalViewSchema },
  },
  push: {
    'approvals:approval-changed': approvalViewSchema,
    'approvals:policies-changed': approvalPoliciesSchema,
  },
} as const;
