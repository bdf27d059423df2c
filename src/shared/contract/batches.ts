// CSV payout batches. The renderer parses and maps the file and shows the validation preview; main
// stores the whole batch before anything is sent (uploaded in chunks: create a draft, add items,
// start), then sends the items through the same payout path as a manual payout (limits, audit,
// exactly-once attempts) with bounded concurrency. A batch survives the app being closed or
// killed: at start-up a running batch resumes, and an item whose attempt may have left is settled
// under its own Idempotency-Key, never sent under a new one.
//
// Card payouts are not batched: a batch is stored so it can resume, and card numbers are never
// stored. They are made one by one with the manual form.
import { z } from 'zod';
import { environmentKindSchema } from './app';
import { payoutCreateInputSchema } from './payments';

/** Rows per batch, and per add-items call (a call stays far below the 1 MiB request limit). */
export const BATCH_MAX_ROWS = 10_000;
export const BATCH_CHUNK_ROWS = 250;

const batchId = z.number().int().positive();

/** One row of the file, in the manual form's shape (spec field names). */
export const batchRowSchema = payoutCreateInputSchema.omit({ profileId: true });
export type BatchRowForm = z.infer<typeof batchRowSchema>;

export const batchStateSchema = z.enum(['draft', 'running', 'paused', 'cancelled', 'done']);
export type BatchState = z.infer<typeof batchStateSchema>;

export const batchItemStateSchema = z.enum(['pending', 'sending', 'sent', 'refused', 'unknown', 'cancelled']);
export type BatchItemState = z.infer<typeof batchItemStateSchema>;

export const batchViewSchema = z.object({
  id: z.number().int(),
  profileId: z.string(),
  profileName: z.string(),
  /** Snapshot of the profile's environment when the batch was created. */
  environment: environmentKindSchema,
  fileName: z.string(),
  state: batchStateSchema,
  declaredRows: z.number().int(),
  total: z.number().int(),
  /** Items per state: pending (not prepared yet), sending (prepared, in flight or interrupted), sent (the gateway accepted it), refused (a limit, a conflict or the gateway), unknown (outcome unknown: settled later under its own key), cancelled. */
  counts: z.object({
    pending: z.number().int(),
    sending: z.number().int(),
    sent: z.number().int(),
    refused: z.number().int(),
    unknown: z.number().int(),
    cancelled: z.number().int(),
  }),
  /** Of the sent items: final success (P200), final failure (a C-code), not final yet. */
  outcomes: z.object({ paid: z.number().int(), failed: z.number().int(), processing: z.number().int() }),
  /** Exact sums of the items per currency. */
  totals: z.array(z.object({ currency: z.string(), amount: z.string(), count: z.number().int() })),
  lastError: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
});
export type BatchView = z.infer<typeof batchViewSchema>;

export const batchItemViewSchema = z.object({
  id: z.number().int(),
  line: z.number().int(),
  merchantReference: z.string(),
  method: z.string(),
  amount: z.string(),
  currency: z.string(),
  /** Customer's name. */
  beneficiary: z.string(),
  /** Where the money goes, masked (IBAN, wallet, account number shortened). */
  destination: z.string(),
  state: batchItemStateSchema,
  error: z.string().nullable(),
  idempotencyKey: z.string().nullable(),
  payoutRowId: z.number().int().nullable(),
  payoutId: z.string().nullable(),
  statusCode: z.string().nullable(),
  final: z.boolean(),
});
export type BatchItemView = z.infer<typeof batchItemViewSchema>;

export const batchesContract = {
  invoke: {
    /** A draft: nothing is sent until batches:start. */
    'batches:create': {
      input: z
        .object({
          profileId: z.string().min(1).optional(),
          fileName: z.string().trim().min(1).max(255),
          rows: z.number().int().min(1).max(BATCH_MAX_ROWS, `At most ${BATCH_MAX_ROWS} rows per batch.`),
        })
        .strict(),
      output: batchViewSchema,
    },
    /** Rows of a draft; every row is validated with the shared payout rules, a bad row refuses the call naming `items.<line>.<field>`. */
    'batches:add-items': {
      input: z
        .object({
          id: batchId,
          items: z.array(z.object({ line: z.number().int().min(1), form: batchRowSchema }).strict()).min(1).max(BATCH_CHUNK_ROWS),
        })
        .strict(),
      output: z.object({ id: z.number().int(), received: z.number().int(), declared: z.number().int() }),
    },
    'batches:start': { input: z.object({ id: batchId }).strict(), output: batchViewSchema },
    /** A draft only (an upload that failed or was abandoned): nothing of it was sent. */
    'batches:discard': { input: z.object({ id: batchId }).strict(), output: z.object({ discarded: z.boolean() }) },
    'batches:pause': { input: z.object({ id: batchId }).strict(), output: batchViewSchema },
    /** A paused batch runs again; a finished one settles its unknown items (same keys). */
    'batches:resume': { input: z.object({ id: batchId }).strict(), output: batchViewSchema },
    /** Items not prepared yet are cancelled; items already sent are followed to their outcome. */
    'batches:cancel': { input: z.object({ id: batchId }).strict(), output: batchViewSchema },
    'batches:list': {
      input: z.object({ cursor: z.number().int().positive().nullable().optional(), limit: z.number().int().min(1).max(100).optional() }).strict().optional(),
      output: z.object({ items: z.array(batchViewSchema), nextCursor: z.number().int().nullable() }),
    },
    'batches:get': { input: z.object({ id: batchId }).strict(), output: batchViewSchema },
    /** Items by line, keyset paged. */
    'batches:items': {
      input: z
        .object({
          id: batchId,
          states: z.array(batchItemStateSchema).max(6).optional(),
          afterLine: z.number().int().min(0).nullable().optional(),
          limit: z.number().int().min(1).max(500).optional(),
        })
        .strict(),
      output: z.object({ items: z.array(batchItemViewSchema), nextAfterLine: z.number().int().nullable() }),
    },
  },
  push: {
    /** Progress of a batch (throttled) and every change of its state. */
    'batches:batch-changed': batchViewSchema,
  },
} as const;
