// The webhook inspector: every notification the listener received, what became of it, its raw
// body and headers, and a replay that applies a stored one again.
import { z } from 'zod';

export const notificationOutcomeSchema = z.enum(['pending', 'applied', 'duplicate', 'orphan', 'mismatch', 'malformed']);
export type NotificationOutcomeView = z.infer<typeof notificationOutcomeSchema>;

export const notificationViewSchema = z.object({
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
  bodySize: z.number().int(),
  bodyTruncated: z.boolean(),
  /** The body as received (UTF-8 text), unless it held card data or a secret: then the redacted JSON. */
  body: z.string(),
  bodyRedacted: z.boolean(),
  /** Headers in arrival order; values of credential-bearing headers are redacted. */
  headers: z.array(z.tuple([z.string(), z.string()])),
});
export type NotificationView = z.infer<typeof notificationViewSchema>;

export const notificationListInputSchema = z
  .object({
    profileId: z.string().min(1).optional(),
    outcomes: z.array(notificationOutcomeSchema).max(6).optional(),
    events: z.array(z.string().min(1).max(80)).max(10).optional(),
    payinRowId: z.number().int().positive().optional(),
    payoutRowId: z.number().int().positive().optional(),
    /** Newest first: pass the previous page's nextBeforeId. */
    beforeId: z.number().int().positive().nullable().optional(),
    limit: z.number().int().min(1).max(500).optional(),
  })
  .strict();

export const notificationChangedSchema = notificationViewSchema;

export const notificationsContract = {
  invoke: {
    'notifications:list': {
      input: notificationListInputSchema,
      output: z.object({ items: z.array(notificationViewSchema), nextBeforeId: z.number().int().nullable() }),
    },
    'notifications:replay': {
      input: z.object({ id: z.number().int().positive() }).strict(),
      output: z.object({
        /** The notification that was applied: the same one (an orphan or pending one retried) or a stored copy. */
        notification: notificationViewSchema,
        replayOf: z.number().int(),
        needsVerification: z.boolean(),
      }),
    },
  },
  push: {
    'notifications:notification-changed': notificationChangedSchema,
  },
} as const;
