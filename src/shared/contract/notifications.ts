// The webhook inspector: every notification the listener received and what became of it (lists
// and pushes carry summaries), one at a time with its raw body and headers, and a replay that
// applies a stored one again.
import { z } from 'zod';

/** 'stale': older news than the status already held, recorded on its transaction, changed nothing. */
export const notificationOutcomeSchema = z.enum(['pending', 'applied', 'stale', 'duplicate', 'orphan', 'mismatch', 'malformed']);
export type NotificationOutcomeView = z.infer<typeof notificationOutcomeSchema>;

/**
 * What lists and pushes carry: the facts of a notification, never its body or headers, so a page
 * of the webhook inspector and the push log stay small whatever senders post (a flood
 * of 256 KiB bodies made a first page of 8.4 MB and held ~500 MB in main). The body and headers
 * come with the detail, `notifications:get`.
 */
export const notificationSummarySchema = z.object({
  id: z.number().int(),
  profileId: z.string(),
  receivedAt: z.string(),
  sourceAddress: z.string().nullable(),
  event: z.string().nullable(),
  /** payin_id or payout_id. */
  transactionRef: z.string().nullable(),
  /** request_id or merchantReference. */
  requestRef: z.string().nullable(),
  statusCode: z.string().nullable(),
  /** False for a status code the catalogue does not know (kept as sent, flagged). */
  statusKnown: z.boolean(),
  outcome: notificationOutcomeSchema,
  detail: z.string().nullable(),
  payinRowId: z.number().int().nullable(),
  payoutRowId: z.number().int().nullable(),
  tokenRowId: z.number().int().nullable(),
  processedAt: z.string().nullable(),
  /** The HTTP status the listener answered with. */
  answerStatus: z.number().int(),
  /** Bytes received (more than were kept when the body was over the limit). */
  bodySize: z.number().int(),
  bodyTruncated: z.boolean(),
  /**
   * When the retention rule (Settings → Notification retention) dropped this orphan's body and
   * headers; the row and its facts stay. Null while they are kept.
   */
  rawPrunedAt: z.string().nullable(),
});
export type NotificationSummary = z.infer<typeof notificationSummarySchema>;

/** One notification with its raw material: the webhook inspector's detail. */
export const notificationViewSchema = notificationSummarySchema.extend({
  /** The body as received (UTF-8 text), unless it held card data or a secret: then the redacted JSON. */
  body: z.string(),
  bodyRedacted: z.boolean(),
  /** Headers in arrival order; values of credential-bearing headers are redacted. */
  headers: z.array(z.tuple([z.string(), z.string()])),
});
export type NotificationView = z.infer<typeof notificationViewSchema>;

/** Which notifications a list or count is about; every filter given must hold (they combine). */
export const notificationFiltersSchema = z
  .object({
    profileId: z.string().min(1).optional(),
    outcomes: z.array(notificationOutcomeSchema).max(7).optional(),
    events: z.array(z.string().min(1).max(80)).max(10).optional(),
    /** The status_code the notification carries, as sent (a pay-in's 200, a payout's P200). */
    statusCodes: z.array(z.string().trim().min(1).max(32)).max(50).optional(),
    /** The start of a reference it names: payin_id or payout_id, request_id or merchantReference (as written). */
    search: z.string().trim().min(1).max(255).optional(),
    payinRowId: z.number().int().positive().optional(),
    payoutRowId: z.number().int().positive().optional(),
  })
  .strict();
export type NotificationFilters = z.infer<typeof notificationFiltersSchema>;

export const notificationListInputSchema = notificationFiltersSchema
  .extend({
    /** Newest first: pass the previous page's nextBeforeId. */
    beforeId: z.number().int().positive().nullable().optional(),
    limit: z.number().int().min(1).max(500).optional(),
  })
  .strict();

export const notificationChangedSchema = notificationSummarySchema;

export const notificationsContract = {
  invoke: {
    'notifications:list': {
      input: notificationListInputSchema,
      output: z.object({ items: z.array(notificationSummarySchema), nextBeforeId: z.number().int().nullable() }),
    },
    /** How many notifications match the filters (the list's total), asked once the first page is shown. */
    'notifications:count': { input: notificationFiltersSchema, output: z.object({ total: z.number().int() }) },
    /** One notification with its body and headers (the list carries summaries only). */
    'notifications:get': {
      input: z.object({ id: z.number().int().positive() }).strict(),
      output: notificationViewSchema,
    },
    'notifications:replay': {
      input: z.object({ id: z.number().int().positive() }).strict(),
      output: z.object({
        /** The notification that was applied: the same one (an orphan or pending one retried) or a stored copy. */
        notification: notificationSummarySchema,
        replayOf: z.number().int(),
        needsVerification: z.boolean(),
      }),
    },
  },
  push: {
    'notifications:notification-changed': notificationChangedSchema,
  },
} as const;
