// Reconciliation (there are no refunds in this API): exact totals, exception lists, the sweep that
// re-reads every non-final item within the rate limit, CSV exports, and the evidence pack of one
// transaction. Files are returned as text with a suggested name: the renderer saves them (a save
// dialog in Electron, a download in web mode).
import { z } from 'zod';
import { noInput, pendingMinutesSchema } from './app';
import { csvFileSchema, transactionSubjectSchema } from './ledger';
import { statusCategorySchema, verificationStateSchema } from './payments';

const day = z
  .string()
  .trim()
  .refine((value) => /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`)), 'Must be a date, YYYY-MM-DD (UTC).');

export const totalsInputSchema = z
  .object({
    profileId: z.string().min(1).optional(),
    /** First day included (UTC). */
    from: day.optional(),
    /** Last day included (UTC). */
    to: day.optional(),
    subjects: z.array(transactionSubjectSchema).min(1).max(2).optional(),
  })
  .strict();
export type TotalsInput = z.infer<typeof totalsInputSchema>;

export const totalsRowSchema = z.object({
  subject: transactionSubjectSchema,
  /** UTC day of creation, YYYY-MM-DD. */
  day: z.string(),
  currency: z.string(),
  method: z.string(),
  /** null: the gateway never answered (request recorded, outcome unknown). */
  statusCode: z.string().nullable(),
  statusCategory: statusCategorySchema.nullable(),
  final: z.boolean(),
  count: z.number().int(),
  /** Exact decimal sum, as its currency writes it: every decimal it has, at least the minor units (EUR 2, JPY 0). */
  amount: z.string(),
});
export type TotalsRow = z.infer<typeof totalsRowSchema>;

export const currencyTotalSchema = z.object({
  subject: transactionSubjectSchema,
  currency: z.string(),
  statusCategory: statusCategorySchema.nullable(),
  count: z.number().int(),
  amount: z.string(),
});

export const exceptionKindSchema = z.enum([
  'pending_too_long',
  'notified_not_verified',
  'status_mismatch',
  'amount_mismatch',
  'orphans',
  'duplicates',
  'payouts_stuck',
  'unknown_attempts',
]);
export type ExceptionKind = z.infer<typeof exceptionKindSchema>;

/** "Pending too long": minutes since creation, default 60. */
const pendingOlderThanMinutes = pendingMinutesSchema.optional();

/**
 * What every exception list, its count and its CSV look at: a profile, the "pending too long"
 * threshold, and the UTC days of the screen's date range (both included), which narrow each list
 * by the time its rows show: a transaction's or an attempt's creation, a notification's receipt.
 */
const exceptionScope = {
  profileId: z.string().min(1).optional(),
  pendingOlderThanMinutes,
  /** First day included (UTC). */
  from: day.optional(),
  /** Last day included (UTC). */
  to: day.optional(),
};
export const exceptionScopeSchema = z.object(exceptionScope).strict();
export type ExceptionScope = z.infer<typeof exceptionScopeSchema>;

export const exceptionsInputSchema = z
  .object({
    kind: exceptionKindSchema,
    ...exceptionScope,
    cursor: z.string().max(200).nullable().optional(),
    limit: z.number().int().min(1).max(500).optional(),
  })
  .strict();
export type ExceptionsInput = z.infer<typeof exceptionsInputSchema>;

/** One flat row for every list (and every CSV). */
export const exceptionRowSchema = z.object({
  key: z.string(),
  kind: exceptionKindSchema,
  subject: transactionSubjectSchema.nullable(),
  /** Pay-in or payout row id, when the item is (linked to) one. */
  rowId: z.number().int().nullable(),
  profileId: z.string(),
  /** request_id or merchantReference. */
  reference: z.string().nullable(),
  /** payin_id or payout_id. */
  gatewayId: z.string().nullable(),
  method: z.string().nullable(),
  amount: z.string().nullable(),
  currency: z.string().nullable(),
  statusCode: z.string().nullable(),
  /**
   * What was notified: on a mismatch, the claim of the latest notification that contradicts the
   * ledger (a final 302 contradicted by a notification of 200 shows 200, not the 302 notified
   * before it); otherwise the last notified status.
   */
  notifiedStatus: z.string().nullable(),
  /** What the gateway's last status read said. */
  verifiedStatus: z.string().nullable(),
  /** The transaction's verification state, derived by main as for its views; null for a row that is no transaction (an orphan, an attempt). */
  verification: verificationStateSchema.nullable(),
  /** Creation time of the transaction or attempt; receipt time of a notification. */
  at: z.string(),
  notificationId: z.number().int().nullable(),
  attemptId: z.number().int().nullable(),
  detail: z.string().nullable(),
});
export type ExceptionRow = z.infer<typeof exceptionRowSchema>;

/** How many failed reads a sweep names (the rest are counted). */
export const SWEEP_FAILURES_LISTED = 50;

export const sweepStateSchema = z.object({
  id: z.string(),
  state: z.enum(['running', 'done', 'cancelled', 'failed']),
  profileId: z.string().nullable(),
  total: z.number().int(),
  /** Items read (or skipped) so far. */
  done: z.number().int(),
  /** Reads whose answer moved the status. */
  changed: z.number().int(),
  verified: z.number().int(),
  mismatches: z.number().int(),
  /** No usable answer (gateway unreachable, refused, or still rate-limited after retries). */
  failed: z.number().int(),
  /** Which reads failed and why, the first SWEEP_FAILURES_LISTED of them (`failed` counts them all). */
  failures: z.array(z.object({ subject: transactionSubjectSchema, rowId: z.number().int(), reference: z.string().nullable(), reason: z.string() })),
  /** Nothing to read by (a payout without payout_id). */
  skipped: z.number().int(),
  /** HTTP 429 answers met (each waited out per Retry-After). */
  rateLimited: z.number().int(),
  orphansMatched: z.number().int(),
  /** Create calls whose outcome was unknown, settled first (status read by request_id, or a resend under their own key). */
  unknownSettled: z.number().int(),
  /** Unknown ones left for a person (card data needed again, a live payout to review, no usable answer). */
  unknownLeft: z.number().int(),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  error: z.string().nullable(),
});
export type SweepState = z.infer<typeof sweepStateSchema>;

export const csvExportInputSchema = z.discriminatedUnion('what', [
  z.object({ what: z.literal('exceptions'), kind: exceptionKindSchema, ...exceptionScope }).strict(),
  z.object({ what: z.literal('totals'), profileId: z.string().min(1).optional(), from: day.optional(), to: day.optional(), subjects: z.array(transactionSubjectSchema).min(1).max(2).optional() }).strict(),
]);

export const reconciliationContract = {
  invoke: {
    'reconciliation:totals': {
      input: totalsInputSchema,
      output: z.object({ rows: z.array(totalsRowSchema), byCurrency: z.array(currencyTotalSchema) }),
    },
    'reconciliation:summary': {
      input: exceptionScopeSchema,
      output: z.object({ counts: z.array(z.object({ kind: exceptionKindSchema, count: z.number().int() })) }),
    },
    'reconciliation:exceptions': {
      input: exceptionsInputSchema,
      output: z.object({ kind: exceptionKindSchema, items: z.array(exceptionRowSchema), nextCursor: z.string().nullable(), total: z.number().int().nullable() }),
    },
    'reconciliation:sweep-start': {
      input: z.object({ profileId: z.string().min(1).optional(), subjects: z.array(transactionSubjectSchema).min(1).max(2).optional() }).strict(),
      output: sweepStateSchema,
    },
    'reconciliation:sweep-cancel': {
      input: z.object({ id: z.string().min(1).optional() }).strict(),
      output: z.object({ cancelled: z.boolean(), sweep: sweepStateSchema.nullable() }),
    },
    'reconciliation:sweep-status': { input: noInput, output: z.object({ sweep: sweepStateSchema.nullable() }) },
    'reconciliation:export-csv': { input: csvExportInputSchema, output: csvFileSchema },
    'evidence:export': {
      input: z.object({ subject: transactionSubjectSchema, id: z.number().int().positive() }).strict(),
      output: z.object({ filename: z.string(), json: z.string() }),
    },
  },
  push: {
    /** Progress of the running sweep (throttled), and its end. */
    'reconciliation:sweep-changed': sweepStateSchema,
  },
} as const;
