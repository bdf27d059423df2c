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
import { confirmedDuplicateOfSchema, payoutFormSchema, payoutMatchSchema } from './payments';
import { approvalNeedSchema, reviewProofFields, reviewTicketFields } from './reviews';

/** Rows per batch, and per add-items call (a call stays far below the 1 MiB request limit). */
export const BATCH_MAX_ROWS = 10_000;
export const BATCH_CHUNK_ROWS = 250;

const batchId = z.number().int().positive();

/** One row of the file, in the manual form's shape (spec field names). */
export const batchRowSchema = payoutFormSchema.omit({ profileId: true });
export type BatchRowForm = z.infer<typeof batchRowSchema>;

export const batchStateSchema = z.enum(['draft', 'running', 'paused', 'cancelled', 'done']);
export type BatchState = z.infer<typeof batchStateSchema>;

export const batchItemStateSchema = z.enum(['pending', 'sending', 'sent', 'refused', 'unknown', 'cancelled']);
export type BatchItemState = z.infer<typeof batchItemStateSchema>;

/** Events of a batch's history shown with its view: the latest ones, oldest first. */
export const BATCH_HISTORY_SHOWN = 50;

/**
 * One event of a batch's history. started / paused / resumed / cancelled by a person (actor
 * "user", also in the audit log) or by Paydesk itself (actor "system": a resume at start-up, a
 * pause because the gateway session is gone); finished; interrupted: the app stopped while the
 * batch was running.
 */
/** One process of a team server (services/scale-out/instance.ts): its id, and its host when known. */
const batchInstanceSchema = z.object({ id: z.string(), host: z.string().nullable() });

export const batchEventViewSchema = z.object({
  id: z.number().int(),
  kind: z.enum(['started', 'paused', 'resumed', 'cancelled', 'finished', 'interrupted']),
  /** When it happened; for an unexpected interruption, when it was found (the next start). */
  at: z.string(),
  actor: z.enum(['user', 'system']),
  /** interrupted: closed = the app was closed while the batch ran; unexpected = it stopped without closing (killed, crashed, power lost). */
  cause: z.enum(['closed', 'unexpected']).nullable(),
  /** interrupted: when the app stopped; for an unexpected stop, the batch's last recorded activity before it (the best known time). */
  stoppedAt: z.string().nullable(),
  /** The batch's items at that moment: not sent yet, in flight (sent or being sent, outcome not recorded), unknown. Null: not recorded (before ledger version 10). */
  items: z.object({ pending: z.number().int(), inFlight: z.number().int(), unknown: z.number().int() }).nullable(),
  /** Why, in words, when there is more to say (a pause by Paydesk names its cause). */
  note: z.string().nullable(),
  /** On a ledger several instances share: the instance that recorded it (its id and host); null on a desk and before ledger version 19. */
  instance: batchInstanceSchema.nullable(),
  /**
   * An interruption found or a resume made by Paydesk, on such a ledger: the instance that ran the
   * batch before; the same as `instance` when it restarted, another when `instance` took it over.
   */
  runnerBefore: batchInstanceSchema.nullable(),
});
export type BatchEventView = z.infer<typeof batchEventViewSchema>;

export const batchViewSchema = z.object({
  id: z.number().int(),
  profileId: z.string(),
  profileName: z.string(),
  /** Snapshot of the profile's environment when the batch was created. */
  environment: environmentKindSchema,
  fileName: z.string(),
  state: batchStateSchema,
  /** Rows to send (the items). */
  declaredRows: z.number().int(),
  /** Rows of the file that are not sent, each kept with why (batches:left-out); the file had declaredRows + leftOut rows. */
  leftOut: z.number().int(),
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
  /**
   * Of the sent items: final success (P200), final failure (a C-code), not final yet; and of those
   * not final, the ones a notification has claimed a result for, waiting for the status read that
   * confirms it (a notification is a claim: only the gateway's own answer moves a status).
   */
  outcomes: z.object({ paid: z.number().int(), failed: z.number().int(), processing: z.number().int(), awaitingVerification: z.number().int() }),
  /** Exact sums of the items per currency. */
  totals: z.array(z.object({ currency: z.string(), amount: z.string(), count: z.number().int() })),
  lastError: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  /** The latest events of its history (at most BATCH_HISTORY_SHOWN), oldest first: starts, pauses, interruptions, resumes, the end. */
  history: z.array(batchEventViewSchema),
  /** Events in its whole history (more than `history` holds when it is long). */
  historyTotal: z.number().int(),
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
  /** When its state last changed: sent, settled, refused or cancelled (ISO, UTC). */
  updatedAt: z.string(),
});
export type BatchItemView = z.infer<typeof batchItemViewSchema>;

/**
 * batches:review — what a start (of a complete draft) or a resume (of a paused or finished batch
 * with payouts still to send or settle) will send, for the person to check, with the review id.
 * The proof covers the batch, its count, its totals per currency and a digest of its items.
 */
export const batchReviewSchema = z.object({
  ...reviewTicketFields,
  action: z.enum(['start', 'resume']),
  batch: batchViewSchema,
  /** What the approval policy asks of a start (a resume never needs approval again). */
  approval: approvalNeedSchema,
  /** Items the action may send: not sent yet (pending) and sent without a known outcome (settled under their own keys). */
  sends: z.object({ pending: z.number().int(), open: z.number().int() }),
});
export type BatchReviewView = z.infer<typeof batchReviewSchema>;

const batchActionInput = z.object({ id: batchId, ...reviewProofFields }).strict();

const rowInput = z.object({ line: z.number().int().min(1), form: batchRowSchema }).strict();

/**
 * batches:check — what only the ledger knows about rows, asked at the check step: the earlier
 * payouts each row may repeat (same beneficiary account, amount and currency within the window)
 * and the payout that already uses its merchantReference.
 */
export const batchCheckSchema = z.object({
  /** The duplicate window in days (set with the payout limits). */
  windowDays: z.number().int(),
  items: z.array(
    z.object({
      line: z.number().int(),
      duplicates: z.array(payoutMatchSchema),
      /** The payout of this profile that already has the row's merchantReference, or null. */
      referenceUsedBy: payoutMatchSchema.nullable(),
    }),
  ),
});
export type BatchCheckView = z.infer<typeof batchCheckSchema>;

export const leftOutRowSchema = z.object({ line: z.number().int(), reason: z.string() });
export type LeftOutRowView = z.infer<typeof leftOutRowSchema>;

export const batchesContract = {
  invoke: {
    /** A draft: nothing is sent until batches:start. */
    'batches:create': {
      input: z
        .object({
          profileId: z.string().min(1).optional(),
          fileName: z.string().trim().min(1).max(255),
          /** Rows to send. */
          rows: z.number().int().min(1).max(BATCH_MAX_ROWS, `At most ${BATCH_MAX_ROWS} rows per batch.`),
          /** Rows of the file not sent (stored with batches:add-left-out before the start). */
          leftOut: z.number().int().min(0).max(BATCH_MAX_ROWS).optional(),
        })
        .strict(),
      output: batchViewSchema,
    },
    /** The ledger's side of the check step (sends and stores nothing). */
    'batches:check': {
      input: z.object({ profileId: z.string().min(1).optional(), items: z.array(rowInput).min(1).max(BATCH_CHUNK_ROWS) }).strict(),
      output: batchCheckSchema,
    },
    /**
     * Rows of a draft; every row is validated with the shared payout rules, a bad row refuses the
     * call naming `items.<line>.<field>`. A row that may repeat an earlier payout is refused
     * (`items.<line>.duplicate`) unless confirmedDuplicateOf names each payout it matches.
     */
    'batches:add-items': {
      input: z
        .object({
          id: batchId,
          items: z.array(rowInput.extend({ confirmedDuplicateOf: confirmedDuplicateOfSchema.optional() }).strict()).min(1).max(BATCH_CHUNK_ROWS),
        })
        .strict(),
      output: z.object({ id: z.number().int(), received: z.number().int(), declared: z.number().int() }),
    },
    /** The file's rows that a draft does not send, each with why (its problems, or an unconfirmed duplicate): kept with the batch's record. */
    'batches:add-left-out': {
      input: z
        .object({ id: batchId, rows: z.array(z.object({ line: z.number().int().min(1), reason: z.string().trim().min(1).max(2000) }).strict()).min(1).max(BATCH_CHUNK_ROWS) })
        .strict(),
      output: z.object({ id: z.number().int(), received: z.number().int(), declared: z.number().int() }),
    },
    /** A batch's left-out rows by line, keyset paged. */
    'batches:left-out': {
      input: z.object({ id: batchId, afterLine: z.number().int().min(0).nullable().optional(), limit: z.number().int().min(1).max(500).optional() }).strict(),
      output: z.object({ items: z.array(leftOutRowSchema), nextAfterLine: z.number().int().nullable() }),
    },
    'batches:review': { input: z.object({ id: batchId }).strict(), output: batchReviewSchema },
    /** A live batch starts only with the proof of its review (batches:review). */
    'batches:start': { input: batchActionInput, output: batchViewSchema },
    /** A draft only (an upload that failed or was abandoned): nothing of it was sent. */
    'batches:discard': { input: z.object({ id: batchId }).strict(), output: z.object({ discarded: z.boolean() }) },
    'batches:pause': { input: z.object({ id: batchId }).strict(), output: batchViewSchema },
    /** A paused batch runs again; a finished one settles its unknown items (same keys). A live batch needs the proof of its review. */
    'batches:resume': { input: batchActionInput, output: batchViewSchema },
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
