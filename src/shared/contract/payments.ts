// Money movements: pay-ins (every method), tokenization and token charges, payouts, status reads,
// create-call attempts and the developer's merchant-JWT tools.
//
// Request fields carry the spec's own names (section 2.1 / 2.7), so a field error from the shared
// validator names the same field the form shows; the lists of fields are the rule tables'
// (shared/spec/form-fields.ts). The schemas here only bound sizes and shapes; the spec's rules
// (required per method, formats, amount scale) are checked in main by the shared validator, which
// names every offending field at once. merchant_id, merchant_site_id / site_id, notification URLs
// and mode are filled in by main from the profile and cannot be sent.
//
// What never crosses back: the merchant-token, a private key, a CVV, a full card number (card
// numbers appear as first 6 / last 4 at most), a tokenize JWT (its payload holds the card in clear).
import { z } from 'zod';
import { STATUS_CATEGORIES, TRANSACTION_SUBJECTS } from '../spec/codes';
import { CARD_FIELDS, PAYIN_FORM_FIELDS, PAYOUT_CUSTOMER_FIELDS, PAYOUT_DETAIL_FIELDS, PAYOUT_FORM_FIELDS } from '../spec/form-fields';
import { limitCheckResultSchema } from './limits';
import { approvalNeedSchema, reviewedPayoutSchema, reviewProofFields, reviewTicketFields } from './reviews';

const MAX_FIELD = 2048;
const field = z.string().max(MAX_FIELD, `At most ${MAX_FIELD} characters.`).optional();
const profileId = z.string().min(1).max(200).optional();

/** Decimal text such as "10.50"; its scale per method is the shared validator's rule. */
const amount = z.string().max(64, 'At most 64 characters.').optional();
/** The method's name; which ones exist is the shared validator's rule. */
const method = z.string().max(64).optional();

/** One optional bounded text input per field name. */
function textFields<const F extends string>(names: readonly F[]): Record<F, typeof field> {
  return Object.fromEntries(names.map((name) => [name, field])) as Record<F, typeof field>;
}

/** request_id: default a fresh UUID. Must be new: a request_id names one payment attempt. */
const payinFields = { profileId, ...textFields(PAYIN_FORM_FIELDS), payment_method: method, amount };

const cardFields = textFields(CARD_FIELDS);

export const payinCreateInputSchema = z.object({ ...payinFields, ...cardFields, cardCvv: field }).strict();
export type PayinCreateForm = z.infer<typeof payinCreateInputSchema>;

/** Card data goes only into the merchant JWT (op=tokenize); consent must be true. */
export const tokenizeInputSchema = z.object({ ...payinFields, ...cardFields, consent: z.boolean().optional() }).strict();
export type TokenizeForm = z.infer<typeof tokenizeInputSchema>;

/** A vaulted token (by its ledger id, from tokens:list) and the CVV, asked for on every charge and never stored. */
export const tokenChargeInputSchema = z
  .object({ ...payinFields, tokenId: z.number().int().positive(), cardCvv: field })
  .strict();
export type TokenChargeForm = z.infer<typeof tokenChargeInputSchema>;

/** A payout as New payout, the playground and a CSV row give it (spec field names). */
export const payoutFormSchema = z
  .object({
    profileId,
    /** merchantReference: default a fresh UUID. */
    ...textFields(PAYOUT_FORM_FIELDS),
    method,
    amount,
    customer: z.object(textFields(PAYOUT_CUSTOMER_FIELDS)).strict().optional(),
    /** The fields of the chosen method; `method` is filled in from the top level. */
    paymentDetails: z.object(textFields(PAYOUT_DETAIL_FIELDS)).strict().optional(),
  })
  .strict();
export type PayoutCreateForm = z.infer<typeof payoutFormSchema>;

/** The earlier payouts (row ids) a person confirmed a payout may repeat; main refuses a possible duplicate without it. */
export const confirmedDuplicateOfSchema = z.array(z.number().int().positive()).max(20);

/**
 * payouts:create: the form with the proof of its review (contract/reviews.ts), required on a live
 * profile. The merchantReference is the one the review assigned, so the body is the one reviewed.
 * A possible duplicate (the review's `duplicates`) is sent only with confirmedDuplicateOf naming each.
 */
export const payoutCreateInputSchema = payoutFormSchema.extend({ ...reviewProofFields, confirmedDuplicateOf: confirmedDuplicateOfSchema.optional() }).strict();
export type PayoutCreateRequest = z.infer<typeof payoutCreateInputSchema>;

const oneOf = (keys: string[]) => (value: Record<string, unknown>) => keys.some((k) => value[k] !== undefined);

export const payinRefInputSchema = z
  .object({ profileId, id: z.number().int().positive().optional(), requestId: field, payinId: field })
  .strict()
  .refine(oneOf(['id', 'requestId', 'payinId']), { message: 'Give id, requestId or payinId.', path: ['requestId'] });

export const payinStatusInputSchema = z
  .object({ profileId, requestId: field, payinId: field })
  .strict()
  .refine(oneOf(['requestId', 'payinId']), { message: 'Give payinId or requestId.', path: ['payinId'] });

export const payoutRefInputSchema = z
  .object({ profileId, id: z.number().int().positive().optional(), merchantReference: field, payoutId: field })
  .strict()
  .refine(oneOf(['id', 'merchantReference', 'payoutId']), { message: 'Give id, merchantReference or payoutId.', path: ['payoutId'] });

/** By payout_id, else by merchantReference (how a payout whose create answer was lost is found, where the gateway supports it). */
export const payoutStatusInputSchema = z
  .object({ profileId, payoutId: field, merchantReference: field })
  .strict()
  .refine(oneOf(['payoutId', 'merchantReference']), { message: 'Give payoutId or merchantReference.', path: ['payoutId'] });

export const attemptsListInputSchema = z.object({ subject: z.enum(TRANSACTION_SUBJECTS), id: z.number().int().positive() }).strict();

/**
 * Settles an attempt whose outcome is unknown (or that was recorded and never sent) with its own
 * Idempotency-Key: a status read first (pay-ins), then a resend of the same body. After a restart,
 * card attempts need the card data again (it was never stored): cardNum / cardCvv / the card fields
 * / tokenId, as the answer's `needs` lists. A live payout's attempt is resent only with the proof
 * of its review (attempts:review).
 */
export const attemptResumeInputSchema = z
  .object({ key: z.string().trim().min(1).max(255), ...cardFields, cardCvv: field, tokenId: z.number().int().positive().optional(), ...reviewProofFields })
  .strict();
export type AttemptResumeForm = z.infer<typeof attemptResumeInputSchema>;
/** What a resume may carry again because its stored request lacks it (SubmitResult.needs): the card with its CVV, or the vaulted token's id. */
export type ReenteredField = Exclude<keyof AttemptResumeForm, 'key' | keyof typeof reviewProofFields>;

export const attemptKeyInputSchema = z.object({ key: z.string().trim().min(1).max(255) }).strict();

/** attempts:settle-unknown: one pass over unknown attempts (of one profile, or all), as the sweep and start-up make it. */
export const settleUnknownInputSchema = z.object({ profileId }).strict().optional();

export const tokensListInputSchema = z.object({ profileId, state: z.enum(['active', 'revoked']).optional() }).strict().optional();

export const jwtSignInputSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('tokenize'), profileId, ...cardFields }).strict(),
  z
    .object({ op: z.literal('decrypt'), profileId, tokenId: z.number().int().positive().optional(), token: z.string().trim().min(1).max(1024).optional() })
    .strict()
    .refine(oneOf(['tokenId', 'token']), { message: 'Give tokenId or token.', path: ['token'] }),
]);
export type JwtSignForm = z.infer<typeof jwtSignInputSchema>;

export const jwtDecodeInputSchema = z.object({ profileId, jwt: z.string().max(65_536, 'At most 65536 characters.') }).strict();

// ---- outputs ----------------------------------------------------------------------------------

export const attemptStateSchema = z.enum(['prepared', 'sending', 'succeeded', 'rejected', 'unknown']);
export const attemptKindSchema = z.enum(['payin', 'payout', 'tokenization', 'token_charge']);

export const attemptViewSchema = z.object({
  id: z.number().int(),
  profileId: z.string(),
  kind: attemptKindSchema,
  /** The Idempotency-Key every send of this attempt carries. */
  idempotencyKey: z.string(),
  /** request_id or merchantReference. */
  reference: z.string(),
  state: attemptStateSchema,
  /** How many times a send of this attempt was started (each may hold several HTTP tries). */
  sendCount: z.number().int(),
  httpStatus: z.number().int().nullable(),
  responseSource: z.enum(['create', 'status_read']).nullable(),
  /** Why the outcome is unknown. */
  error: z.string().nullable(),
  /** The request as stored: card number masked, CVV and merchant_jwt redacted. */
  request: z.string(),
  response: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  lastSentAt: z.string().nullable(),
  completedAt: z.string().nullable(),
});
export type AttemptView = z.infer<typeof attemptViewSchema>;

export const statusCategorySchema = z.enum(STATUS_CATEGORIES);
export type StatusCategoryView = z.infer<typeof statusCategorySchema>;

/**
 * The one verification state main derives (main/ledger/verification-state.ts): mismatch (a
 * contradiction is recorded), claimed (a notification claims news no gateway answer confirmed),
 * pending (no final result yet), verified (a status read agrees with the final or unknown status
 * held), unverified (no status read has confirmed it yet).
 */
export const verificationStateSchema = z.enum(['pending', 'unverified', 'claimed', 'verified', 'mismatch']);
export type VerificationStateView = z.infer<typeof verificationStateSchema>;

/**
 * The card that paid (a card pay-in, or the vaulted card of a token charge) or was paid (a card
 * payout), as the ledger recorded it at create time: brand, first 6 / last 4, expiry. Never more.
 */
export const cardViewSchema = z.object({
  brand: z.string().nullable(),
  /** First 6 and last 4 digits ("411111******1111"); null when the digits were not recorded. */
  maskedPan: z.string().nullable(),
  expMonth: z.string().nullable(),
  expYear: z.string().nullable(),
});
export type CardView = z.infer<typeof cardViewSchema>;

/** What pay-ins and payouts both show (also the ledger domain's rows, contract/ledger.ts). */
const transactionFields = {
  id: z.number().int(),
  profileId: z.string(),
  method: z.string(),
  /** Exact decimal text. */
  amount: z.string(),
  currency: z.string(),
  email: z.string(),
  /**
   * The status the gateway itself gave (create answer or status read); null until it answered,
   * and while the create attempt's outcome is unknown (see `attempt`). Never "failed" by guess.
   */
  statusCode: z.string().nullable(),
  statusKnown: z.boolean(),
  /** The code's meaning from the catalogue (or "Unknown code …"). */
  statusMeaning: z.string().nullable(),
  statusCategory: statusCategorySchema.nullable(),
  final: z.boolean(),
  reasonCode: z.string().nullable(),
  reasonKnown: z.boolean(),
  statusChangedAt: z.string().nullable(),
  gatewayCreatedAt: z.string().nullable(),
  /** What notifications claimed (forward only) and when. */
  lastNotifiedStatus: z.string().nullable(),
  lastNotifiedAt: z.string().nullable(),
  /** What the latest status read said and when. */
  lastVerifiedStatus: z.string().nullable(),
  lastVerifiedAt: z.string().nullable(),
  /** The latest notified claim: unverified until the gateway's own answer agrees; contradicted = mismatch. */
  claimState: z.enum(['unverified', 'verified', 'contradicted']).nullable(),
  /** The first contradiction of any kind (kept forever; a mismatch for a human). */
  conflict: z.string().nullable(),
  /** The first contradiction about the status (notification vs create answer / status read): the status mismatch list. */
  statusConflict: z.string().nullable(),
  /** The first contradiction about amount or currency (a notification or a status read): the amount mismatch list. */
  factsConflict: z.string().nullable(),
  mismatch: z.boolean(),
  verification: verificationStateSchema,
  createdAt: z.string(),
  updatedAt: z.string(),
  attemptId: z.number().int().nullable(),
  /** The create call's attempt: state "unknown" = sent, outcome not known yet (read the status or resume). */
  attempt: z
    .object({
      idempotencyKey: z.string(),
      state: attemptStateSchema,
      /** What the last automatic try to settle an unknown outcome found (start-up, sweep); null if none was made. */
      settleNote: z.string().nullable(),
    })
    .nullable(),
  /**
   * The notification link this transaction was sent with, when the gateway cannot post to it (a
   * sandbox or live profile on a loopback address): no notification can arrive, and Paydesk polls
   * its status until it is final. Null when notifications can arrive.
   */
  notificationsUnreachable: z.string().nullable(),
  /** null: no card (another method), or not recorded (a token charge made before cards were kept). */
  card: cardViewSchema.nullable(),
};

export const payinViewSchema = z.object({
  ...transactionFields,
  kind: z.enum(['payin', 'tokenization', 'token_charge']),
  requestId: z.string(),
  payinId: z.string().nullable(),
  redirectUrl: z.string().nullable(),
});
export type PayinView = z.infer<typeof payinViewSchema>;

export const payoutViewSchema = z.object({
  ...transactionFields,
  merchantReference: z.string(),
  payoutId: z.string().nullable(),
});
export type PayoutView = z.infer<typeof payoutViewSchema>;

export const tokenViewSchema = z.object({
  id: z.number().int(),
  profileId: z.string(),
  /** The gateway's token reference (not card data). */
  tokenRef: z.string(),
  brand: z.string().nullable(),
  bin: z.string().nullable(),
  last4: z.string().nullable(),
  /** First 6 and last 4 only, e.g. 411111******1111. */
  maskedPan: z.string().nullable(),
  expMonth: z.string().nullable(),
  expYear: z.string().nullable(),
  state: z.enum(['active', 'revoked']),
  payinId: z.string().nullable(),
  requestId: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type TokenView = z.infer<typeof tokenViewSchema>;

export const statusReadViewSchema = z.object({
  id: z.number().int(),
  kind: z.enum(TRANSACTION_SUBJECTS),
  reference: z.string(),
  result: z.enum(['ok', 'not_found', 'rate_limited', 'rejected', 'error', 'unreachable']),
  httpStatus: z.number().int().nullable(),
  statusCode: z.string().nullable(),
  error: z.string().nullable(),
  /**
   * result "rate_limited": seconds until a read may be sent again, from the gateway's Retry-After
   * (httpStatus 429), or what is left of it when this read was held back unsent (httpStatus null).
   */
  retryAfterSeconds: z.number().nullable(),
  requestedAt: z.string(),
  respondedAt: z.string().nullable(),
  response: z.string().nullable(),
});
export type StatusReadView = z.infer<typeof statusReadViewSchema>;

export const nextStepSchema = z.object({
  action: z.enum(['none', 'wait_for_notification', 'new_attempt', 'resolve_unknown']),
  text: z.string(),
  afterSeconds: z.number().optional(),
});

export const gatewayErrorSchema = z.object({
  httpStatus: z.number().int(),
  statusCode: z.string().nullable(),
  reasonCode: z.string().nullable(),
  errorCode: z.string().nullable(),
  message: z.string().nullable(),
  /** Field → problem, as the gateway named them. */
  details: z.record(z.string(), z.string()),
});

/** What a create call (or a resume) ended in. */
export const submitResultSchema = z.object({
  outcome: z.enum(['succeeded', 'rejected', 'unknown', 'busy', 'needs_body', 'prepared']),
  /** HTTP tries made by this call (retries after timeouts, connection errors, 429 and 5xx included). */
  tries: z.number().int(),
  message: z.string(),
  nextStep: nextStepSchema,
  attempt: attemptViewSchema,
  payin: payinViewSchema.nullable(),
  payout: payoutViewSchema.nullable(),
  gatewayError: gatewayErrorSchema.nullable(),
  /** needs_body: the input fields to send again with attempts:resume. */
  needs: z.array(z.string()),
});
export type SubmitResult = z.infer<typeof submitResultSchema>;

/** What one pass of automatic settling did (attempts:settle-unknown, the sweep, start-up). */
export const settleSummarySchema = z.object({
  /** Unknown attempts looked at. */
  tried: z.number().int(),
  /** Settled: found by a status read, or answered under their own key. */
  settled: z.number().int(),
  /** Left for a person: card data needed again, a live payout to review, or the gateway did not answer. */
  left: z.number().int(),
});
export type SettleSummary = z.infer<typeof settleSummarySchema>;

/** payouts:review — a payout as main will send it, for the person to check, with the review id. */
/**
 * An earlier payout a new one may repeat: the same profile, beneficiary account, amount and
 * currency within the duplicate window (services/payments/duplicate-guard.ts). `id` is its row
 * (the payout's page: payouts/<id>).
 */
export const payoutMatchSchema = z.object({
  id: z.number().int(),
  merchantReference: z.string(),
  amount: z.string(),
  currency: z.string(),
  statusCode: z.string().nullable(),
  createdAt: z.string(),
});
export type PayoutMatch = z.infer<typeof payoutMatchSchema>;

export const payoutReviewSchema = z.object({
  ...reviewTicketFields,
  payout: reviewedPayoutSchema,
  limits: limitCheckResultSchema,
  approval: approvalNeedSchema,
  /** Earlier payouts this one may repeat (same account, amount and currency within `duplicateWindowDays`): sending it needs confirmedDuplicateOf naming each. */
  duplicates: z.array(payoutMatchSchema),
  duplicateWindowDays: z.number().int(),
});
export type PayoutReviewView = z.infer<typeof payoutReviewSchema>;

/** attempts:review — a recorded payout attempt (its stored, masked request) before it is resent under its key. */
export const attemptReviewSchema = z.object({ ...reviewTicketFields, payout: reviewedPayoutSchema, attempt: attemptViewSchema });
export type AttemptReviewView = z.infer<typeof attemptReviewSchema>;
/**
 * Where a create call (pay-in, tokenization, token charge, payout) stands while it is being sent:
 * a create can spend a minute on timeouts and same-key retries, and the person who sent it sees
 * which try is under way, what the last one got, what happens next and the policy that bounds it.
 * Published before each try, before each wait and at the end. Codes and counts only: no body, no
 * card data, no credential.
 */
export const attemptProgressSchema = z.object({
  /** The Idempotency-Key every try of this attempt carries. */
  idempotencyKey: z.string(),
  profileId: z.string(),
  kind: attemptKindSchema,
  /** request_id or merchantReference: how the sender recognises its own call. */
  reference: z.string(),
  /** sending: a try is on the wire; waiting: before the next try; finished: the send is over. */
  phase: z.enum(['sending', 'waiting', 'finished']),
  /** The try under way (sending), or the latest one (waiting, finished); 1 is the first. */
  tryNumber: z.number().int().min(1),
  /** When the first try of this send started. */
  startedAt: z.string(),
  /** Milliseconds from then to this report (main's clock; the renderer adds its own time since). */
  elapsedMs: z.number().int().min(0),
  /** The latest try's answer in words: status and reason codes only ("timeout", "HTTP 503"). */
  lastAnswer: z.string().nullable(),
  /** waiting: the next try starts after this long; retry_after = the gateway asked for it, backoff = our schedule. */
  wait: z.object({ ms: z.number().int().min(0), cause: z.enum(['retry_after', 'backoff']) }).nullable(),
  /** finished: what the send ended in. */
  outcome: z.enum(['succeeded', 'rejected', 'unknown']).nullable(),
  /** finished "unknown": no further try because the tries or the time ran out, or the answer could not be read. */
  stopReason: z.enum(['max_tries', 'max_total_time', 'not_retryable']).nullable(),
  /** The bounds of the retries: tries in all, no try starts after maxTotalMs, each try waits tryTimeoutMs for its answer. */
  policy: z.object({ maxTries: z.number().int().min(1), maxTotalMs: z.number().int().min(0), tryTimeoutMs: z.number().int().min(1) }),
});
export type AttemptProgressView = z.infer<typeof attemptProgressSchema>;

export const payinDetailSchema = z.object({ payin: payinViewSchema, attempts: z.array(attemptViewSchema), statusReads: z.array(statusReadViewSchema) });
export const payoutDetailSchema = z.object({ payout: payoutViewSchema, attempts: z.array(attemptViewSchema), statusReads: z.array(statusReadViewSchema) });

export const payinStatusResultSchema = z.object({ read: statusReadViewSchema, payin: payinViewSchema.nullable() });
export const payoutStatusResultSchema = z.object({ read: statusReadViewSchema, payout: payoutViewSchema.nullable() });

export const decodedJwtSchema = z.object({
  header: z.record(z.string(), z.unknown()).nullable(),
  /** Card numbers masked to first 6 / last 4, CVV-like claims removed. */
  claims: z.record(z.string(), z.unknown()).nullable(),
  /** iat minus now, in seconds (positive: issued in the future). */
  iatSkewSeconds: z.number().nullable(),
  iatWithinTolerance: z.boolean().nullable(),
  /** valid; invalid (checked against the profile's key and refused: `why`); malformed (not a well-formed JWS: nothing can be checked); not_checked (no key to check with). */
  signature: z.object({ status: z.enum(['valid', 'invalid', 'malformed', 'not_checked']), why: z.string().optional(), message: z.string().optional() }),
  problems: z.array(z.string()),
  /** The profile key the signature was checked against. */
  key: z.object({ kid: z.string(), fingerprint: z.string() }).nullable(),
});
export type DecodedJwtView = z.infer<typeof decodedJwtSchema>;

export const jwtSignResultSchema = z.object({
  /** The compact JWS; null when withheld (op=tokenize: its payload carries the full card number). */
  jwt: z.string().nullable(),
  withheld: z.string().nullable(),
  decoded: decodedJwtSchema,
});

export const paymentsContract = {
  invoke: {
    'payins:create': { input: payinCreateInputSchema, output: submitResultSchema },
    'payins:get': { input: payinRefInputSchema, output: payinDetailSchema },
    'payins:read-status': { input: payinStatusInputSchema, output: payinStatusResultSchema },
    'tokens:tokenize': { input: tokenizeInputSchema, output: submitResultSchema },
    'tokens:list': { input: tokensListInputSchema, output: z.array(tokenViewSchema) },
    'tokens:charge': { input: tokenChargeInputSchema, output: submitResultSchema },
    'payouts:review': { input: payoutFormSchema, output: payoutReviewSchema },
    'payouts:create': { input: payoutCreateInputSchema, output: submitResultSchema },
    'payouts:get': { input: payoutRefInputSchema, output: payoutDetailSchema },
    'payouts:read-status': { input: payoutStatusInputSchema, output: payoutStatusResultSchema },
    'attempts:list': { input: attemptsListInputSchema, output: z.array(attemptViewSchema) },
    'attempts:review': { input: attemptKeyInputSchema, output: attemptReviewSchema },
    'attempts:resume': { input: attemptResumeInputSchema, output: submitResultSchema },
    'attempts:settle-unknown': { input: settleUnknownInputSchema, output: settleSummarySchema },
    /** The latest progress of a create still in flight (a screen opened or reloaded mid-send catches up), or null. */
    'attempts:progress': {
      input: z.object({ profileId: z.string().min(1).max(200), kind: attemptKindSchema, reference: z.string().min(1).max(MAX_FIELD) }).strict(),
      output: attemptProgressSchema.nullable(),
    },
    'jwt:sign': { input: jwtSignInputSchema, output: jwtSignResultSchema },
    'jwt:decode': { input: jwtDecodeInputSchema, output: decodedJwtSchema },
  },
  push: {
    /** Published by main whenever a pay-in row changes (create, status read, notification). */
    'payins:payin-changed': payinViewSchema,
    'payouts:payout-changed': payoutViewSchema,
    'tokens:token-changed': tokenViewSchema,
    /** A create call in flight, each try and wait (see attemptProgressSchema). */
    'attempts:progress-changed': attemptProgressSchema,
  },
} as const;
