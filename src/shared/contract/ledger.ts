// Reading the ledger: pay-in and payout lists (filters, keyset pages), global search, the
// timeline of one transaction, and how many rows carry each code. Rows use the payments domain's
// views; their live updates are its 'payins:payin-changed' / 'payouts:payout-changed' pushes.
import { z } from 'zod';
import { noInput } from './app';
import { TRANSACTION_SUBJECTS } from '../spec/codes';
import { REFERENCE_FIELDS } from '../spec/events';
import { cardViewSchema, payinViewSchema, payoutViewSchema, statusCategorySchema, verificationStateSchema } from './payments';

export const transactionSubjectSchema = z.enum(TRANSACTION_SUBJECTS);
export type TransactionSubject = z.infer<typeof transactionSubjectSchema>;

const isoDate = z
  .string()
  .trim()
  .refine((value) => /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value) && !Number.isNaN(Date.parse(value)), 'Must be a date (YYYY-MM-DD) or an ISO-8601 time.');

const codeList = z.array(z.string().trim().min(1).max(40)).max(100);

export const transactionListInputSchema = z
  .object({
    profileId: z.string().min(1).optional(),
    statusCodes: codeList.optional(),
    /** Reason codes (7.3), e.g. from the code explorer; unknown ones are matched as stored. */
    reasonCodes: codeList.optional(),
    categories: z.array(statusCategorySchema).max(20).optional(),
    methods: codeList.optional(),
    currencies: z.array(z.string().trim().regex(/^[A-Za-z]{3}$/, 'A 3-letter currency code.').transform((c) => c.toUpperCase())).max(200).optional(),
    /** Inclusive lower bound on the creation time (a date means its start, UTC). */
    createdFrom: isoDate.optional(),
    /** Exclusive upper bound (a date means its start, UTC: pass the day after to include a day). */
    createdTo: isoDate.optional(),
    hasMismatch: z.boolean().optional(),
    final: z.boolean().optional(),
    /** Prefix of the reference (request_id / merchantReference), the gateway id or the e-mail. */
    search: z.string().trim().min(1).max(200).optional(),
    /** Default newest first (by creation time). A cursor belongs to the order it was made in. */
    sort: z.enum(['newest', 'oldest']).optional(),
    cursor: z.string().max(200).nullable().optional(),
    limit: z.number().int().min(1).max(500).optional(),
  })
  .strict();
export type TransactionListInput = z.infer<typeof transactionListInputSchema>;

const keysetPageOf = <T extends z.ZodType>(item: T) =>
  z.object({
    items: z.array(item),
    /** Pass back as `cursor` for the next page (older, or newer when sorted oldest first); null on the last page. */
    nextCursor: z.string().nullable(),
  });

/** A CSV file main wrote: its rows (at most the export's cap; `truncated` when more matched). */
export const csvFileSchema = z.object({ filename: z.string(), rows: z.number().int(), truncated: z.boolean(), csv: z.string() });
export type CsvFile = z.infer<typeof csvFileSchema>;

/** The list filters alone: what a count depends on (no position, size or order). */
export const transactionCountInputSchema = transactionListInputSchema.omit({ cursor: true, limit: true, sort: true });
export type TransactionCountInput = z.infer<typeof transactionCountInputSchema>;

export const searchMatchSchema = z.object({
  subject: transactionSubjectSchema,
  id: z.number().int(),
  profileId: z.string(),
  /** Which field matched the query. */
  matchedOn: z.enum([...REFERENCE_FIELDS, 'email']),
  reference: z.string(),
  gatewayId: z.string().nullable(),
  email: z.string(),
  method: z.string(),
  amount: z.string(),
  currency: z.string(),
  statusCode: z.string().nullable(),
  verification: verificationStateSchema,
  card: cardViewSchema.nullable(),
  createdAt: z.string(),
});
export type SearchMatch = z.infer<typeof searchMatchSchema>;

/** A notification kept as an orphan (its transaction is not in the ledger) whose reference is the query. */
export const orphanMatchSchema = z.object({
  /** The notification's id (the webhook inspector opens it). */
  id: z.number().int(),
  profileId: z.string(),
  matchedOn: z.enum(REFERENCE_FIELDS),
  event: z.string().nullable(),
  /** payin_id or payout_id, as the notification gave it. */
  transactionRef: z.string().nullable(),
  /** request_id or merchantReference, as the notification gave it. */
  requestRef: z.string().nullable(),
  statusCode: z.string().nullable(),
  receivedAt: z.string(),
});
export type OrphanMatch = z.infer<typeof orphanMatchSchema>;

export const timelineEntrySchema = z.object({
  /** Stable key, e.g. "attempt:3:request", "notification:12", "status-read:5", "audit:9". */
  key: z.string(),
  at: z.string(),
  kind: z.enum(['request', 'response', 'notification', 'status_read', 'audit']),
  title: z.string(),
  /** A notification's event (v2_payin_notification, v2_tokenization_notification, …): what its statusCode is the status of. Null for other entries. */
  event: z.string().nullable(),
  statusCode: z.string().nullable(),
  /** attempt state, notification outcome, status read result or audit action. */
  outcome: z.string().nullable(),
  detail: z.string().nullable(),
  /** Raw JSON text: the request sent (card data masked, secrets removed) or the notification body. */
  request: z.string().nullable(),
  /** Raw text of the answer (create response or status read response). */
  response: z.string().nullable(),
  /** Notification headers as received (credential-bearing ones redacted). */
  headers: z.array(z.tuple([z.string(), z.string()])).nullable(),
});
export type TimelineEntry = z.infer<typeof timelineEntrySchema>;

const timelineInput = z.object({ id: z.number().int().positive() }).strict();

/** A notification the gateway's answers contradict (or that contradicts a final result held): which one claimed what, when. */
export const contradictingClaimSchema = z.object({
  notificationId: z.number().int(),
  /** The status it claimed. */
  statusCode: z.string().nullable(),
  receivedAt: z.string(),
  /** What contradicts it, in the applier's or the status read's words. */
  detail: z.string().nullable(),
});
export type ContradictingClaim = z.infer<typeof contradictingClaimSchema>;

export const codeUsageSchema = z.object({
  kind: z.enum(['payin_status', 'payout_status', 'reason']),
  code: z.string(),
  known: z.boolean(),
  /** Ledger rows carrying it (status_code or reason_code). */
  rows: z.number().int(),
  /** Notifications that carried it (status codes only). */
  notifications: z.number().int(),
});
export type CodeUsage = z.infer<typeof codeUsageSchema>;

export const ledgerContract = {
  invoke: {
    /**
     * A keyset page of pay-ins, without a total: counting a million rows takes longer than the
     * page itself, so the count is its own call ('payins:count'), made once the page is shown.
     */
    'payins:list': { input: transactionListInputSchema, output: keysetPageOf(payinViewSchema) },
    /** How many pay-ins match the filters (the list's total). */
    'payins:count': { input: transactionCountInputSchema, output: z.object({ total: z.number().int() }) },
    /** A keyset page of payouts, without a total, like 'payins:list': the count is 'payouts:count'. */
    'payouts:list': { input: transactionListInputSchema, output: keysetPageOf(payoutViewSchema) },
    /** How many payouts match the filters (the list's total). */
    'payouts:count': { input: transactionCountInputSchema, output: z.object({ total: z.number().int() }) },
    'search:lookup': {
      input: z.object({ query: z.string().trim().min(1, 'Type a request_id, payin_id, payout_id, merchantReference or e-mail.').max(200) }).strict(),
      /**
       * matches: transactions in the ledger. orphans: notifications about a transaction the ledger
       * does not hold (created elsewhere, or its create answer lost), which support would otherwise
       * not see behind "nothing matches".
       */
      output: z.object({ matches: z.array(searchMatchSchema), orphans: z.array(orphanMatchSchema) }),
    },
    /** A pay-in, its timeline, and the notifications in it whose claim was contradicted (shown beside the verification state). */
    'payins:timeline': { input: timelineInput, output: z.object({ payin: payinViewSchema, entries: z.array(timelineEntrySchema), contradictions: z.array(contradictingClaimSchema) }) },
    /**
     * A payout, its timeline and contradicted claims, as for a pay-in; and, for a payout with no
     * payout_id (its create answer lost) whose gateway has said it cannot read payouts by
     * merchantReference, when it said so and what it answered (null otherwise): it is not asked
     * that way again, and a resume under the same key settles it.
     */
    'payouts:timeline': {
      input: timelineInput,
      output: z.object({
        payout: payoutViewSchema,
        entries: z.array(timelineEntrySchema),
        contradictions: z.array(contradictingClaimSchema),
        referenceReadRefused: z.object({ at: z.string(), answer: z.string() }).nullable(),
      }),
    },
    'codes:usage': { input: noInput, output: z.object({ codes: z.array(codeUsageSchema), unknown: z.array(codeUsageSchema) }) },
  },
  // Changes are pushed on the payments domain's 'payins:payin-changed' / 'payouts:payout-changed'.
  push: {},
} as const;
