// Money movements: pay-ins (every method), tokenization and token charges, payouts, status reads,
// create-call attempts and the developer's merchant-JWT tools.
//
// Request fields carry the spec's own names (section 2.1 / 2.7), so a field error from the shared
// validator names the same field the form shows. The schemas here only bound sizes and shapes; the
// spec's rules (required per method, formats, amount scale) are checked in main by the shared
// validator, which names every offending field at once. merchant_id, merchant_site_id / site_id,
// notification URLs and mode are filled in by main from the profile and cannot be sent.
//
// What never crosses back: the merchant-token, a private key, a CVV, a full card number (card
// numbers appear as first 6 / last 4 at most), a tokenize JWT (its payload holds the card in clear).
import { z } from 'zod';

const MAX_FIELD = 2048;
const field = z.string().max(MAX_FIELD, `At most ${MAX_FIELD} characters.`).optional();
const profileId = z.string().min(1).max(200).optional();

/** Decimal text such as "10.50"; its scale per method is the shared validator's rule. */
const amount = z.string().max(64, 'At most 64 characters.').optional();

const payinFields = {
  profileId,
  payment_method: z.string().max(64).optional(),
  amount,
  currency: field,
  email: field,
  /** Default: a fresh UUID. Must be new: a request_id names one payment attempt. */
  request_id: field,
  country: field,
  success_url: field,
  pending_url: field,
  fail_url: field,
  back_url: field,
  device_ip: field,
  first_name: field,
  last_name: field,
  mobile: field,
  address: field,
  city: field,
  zipCode: field,
  state: field,
  birthDate: field,
};

const cardFields = {
  cardNum: field,
  cardHolder: field,
  cardExpireMonth: field,
  cardExpireYear: field,
};

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

export const payoutCreateInputSchema = z
  .object({
    profileId,
    method: z.string().max(64).optional(),
    amount,
    currency: field,
    /** Default: a fresh UUID. */
    merchantReference: field,
    country: field,
    customer: z.object({ firstName: field, lastName: field, email: field, phone: field }).strict().optional(),
    /** The fields of the chosen method; `method` is filled in from the top level. */
    paymentDetails: z
      .object({
        cardNum: field,
        cardHolder: field,
        cardExpireMonth: field,
        cardExpireYear: field,
        iban: field,
        bic: field,
        accountHolder: field,
        walletAddress: field,
        network: field,
        sortCode: field,
        accountNumber: field,
      })
      .strict()
      .optional(),
  })
  .strict();
export type PayoutCreateForm = z.infer<typeof payoutCreateInputSchema>;

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

export const payoutStatusInputSchema = z.object({ profileId, payoutId: z.string().trim().min(1, 'Required.').max(MAX_FIELD) }).strict();

export const attemptsListInputSchema = z.object({ subject: z.enum(['payin', 'payout']), id: z.number().int().positive() }).strict();

/**
 * Settles an attempt whose outcome is unknown (or that was recorded and never sent) with its own
 * Idempotency-Key: a status read first (pay-ins), then a resend of the same body. After a restart,
 * card attempts need the card data again (it was never stored): cardNum / cardCvv / the card fields
 * / tokenId, as the answer's `needs` lists.
 */
export const attemptResumeInputSchema = z
  .object({ key: z.string().trim().min(1).max(255), ...cardFields, cardCvv: field, tokenId: z.number().int().positive().optional() })
  .strict();
export type AttemptResumeForm = z.infer<typeof attemptResumeInputSchema>;

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

const statusCategoryViewSchema = z.enum(['pending', 'success', 'customer_error', 'decline', 'validation', 'merchant_setup', 'system', 'unknown']);

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
  statusCategory: statusCategoryViewSchema.nullable(),
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
  verification: z.enum(['unverified', 'verified', 'mismatch']),
  createdAt: z.string(),
  updatedAt: z.string(),
  attemptId: z.number().int().nullable(),
  /** The create call's attempt: state "unknown" = sent, outcome not known yet (read the status or resume). */
  attempt: z.object({ idempotencyKey: z.string(), state: attemptStateSchema }).nullable(),
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
  kind: z.enum(['payin', 'payout']),
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
  signature: z.object({ status: z.enum(['valid', 'invalid', 'not_checked']), why: z.string().optional(), message: z.string().optional() }),
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
    'payouts:create': { input: payoutCreateInputSchema, output: submitResultSchema },
    'payouts:get': { input: payoutRefInputSchema, output: payoutDetailSchema },
    'payouts:read-status': { input: payoutStatusInputSchema, output: payoutStatusResultSchema },
    'attempts:list': { input: attemptsListInputSchema, output: z.array(attemptViewSchema) },
    'attempts:resume': { input: attemptResumeInputSchema, output: submitResultSchema },
    'jwt:sign': { input: jwtSignInputSchema, output: jwtSignResultSchema },
    'jwt:decode': { input: jwtDecodeInputSchema, output: decodedJwtSchema },
  },
  push: {
    /** Published by main whenever a pay-in row changes (create, status read, notification). */
    'payins:payin-changed': payinViewSchema,
    'payouts:payout-changed': payoutViewSchema,
    'tokens:token-changed': tokenViewSchema,
  },
} as const;
