// zod schemas of every request and response of section 4 and of the three notification bodies.
// Requests are typed strictly (the client builds them); responses and notifications are
// tolerant: every field optional, wrong-typed fields dropped instead of failing the parse,
// unknown fields kept, and status / reason codes accepted whatever their value, because the
// gateway adds codes over time (spec 7.2, 9) and a client must keep what it does not know.
import { z } from 'zod';
import { LosslessNumber } from '../json';
import { PAYOUT_FIELD_RULES, PAYIN_FIELD_RULES, TOKEN_CHARGE_FIELD_RULES, TOKENIZATION_FIELD_RULES, TOKENIZE_CLAIM_RULES } from './field-rules';
import { PAYOUT_METHODS } from './methods';
import { bodySchema, JsonNumberSchema, optionalShape, perMethodSchema, rulesUnder } from './request-shapes';

export { JsonNumberSchema };

const tolerant = <T extends z.ZodType>(schema: T) => schema.nullish().catch(undefined);
const anyCode = z.union([z.number(), z.string()]);
const anyAmount = z.union([z.number(), z.string(), z.instanceof(LosslessNumber)]);

// ---- requests: derived from the field-rule tables (request-shapes.ts) ---------------------------

/** Spec 2.1. Conditional fields are optional here; validatePayinCreate enforces them per method. */
export const PayinCreateRequestSchema = bodySchema(PAYIN_FIELD_RULES);
export type PayinCreateRequest = z.infer<typeof PayinCreateRequestSchema>;

/** 2.1 without the card fields, plus merchant_jwt, consent (true) and tokenization_notification_url. */
export const TokenizationCreateRequestSchema = bodySchema(TOKENIZATION_FIELD_RULES);
export type TokenizationCreateRequest = z.infer<typeof TokenizationCreateRequestSchema>;

/** 2.1 without the card fields, plus merchant_jwt and cardCvv. */
export const TokenChargeRequestSchema = bodySchema(TOKEN_CHARGE_FIELD_RULES);
export type TokenChargeRequest = z.infer<typeof TokenChargeRequestSchema>;

export const PayinStatusRequestSchema = z.union([
  z.object({ merchant_id: z.string(), payin_id: z.string(), request_id: z.string().optional() }),
  z.object({ merchant_id: z.string(), request_id: z.string(), payin_id: z.string().optional() }),
]);
export type PayinStatusRequest = z.infer<typeof PayinStatusRequestSchema>;

/** paymentDetails: `method` and exactly the fields of that method (2.7 and our choices). */
export const PayoutPaymentDetailsSchema = perMethodSchema(rulesUnder(PAYOUT_FIELD_RULES, 'paymentDetails'), PAYOUT_METHODS);
export type PayoutPaymentDetails = z.infer<typeof PayoutPaymentDetailsSchema>;

export const PayoutCreateRequestSchema = bodySchema(PAYOUT_FIELD_RULES, {
  customer: bodySchema(rulesUnder(PAYOUT_FIELD_RULES, 'customer')),
  paymentDetails: PayoutPaymentDetailsSchema,
});
export type PayoutCreateRequest = z.infer<typeof PayoutCreateRequestSchema>;

export const PayoutStatusRequestSchema = z.union([
  z.object({ merchant_id: z.string(), payout_id: z.string() }),
  z.object({ merchant_id: z.string(), merchantReference: z.string() }),
]);
export type PayoutStatusRequest = z.infer<typeof PayoutStatusRequestSchema>;

/** Claims of merchant_jwt (spec 2.6). */
export const MerchantJwtClaimsSchema = z.looseObject({
  jti: z.string(),
  op: z.enum(['tokenize', 'decrypt']),
  sub: z.string(),
  iat: z.number(),
  ...optionalShape(TOKENIZE_CLAIM_RULES),
  token: z.string().optional(),
});
export type MerchantJwtClaims = z.infer<typeof MerchantJwtClaimsSchema>;

// ---- responses (tolerant) ---------------------------------------------------------------------

/** Spec 2.2: answer of /payment/create, /payment/create/tokenization, /payment/create/token. */
export const PayinCreateResponseSchema = z.looseObject({
  status: tolerant(z.string()),
  status_code: tolerant(anyCode),
  request_id: tolerant(z.string()),
  payin_id: tolerant(z.string()),
  redirect_url: tolerant(z.string()),
  created_at: tolerant(z.string()),
});
export type PayinCreateResponse = z.infer<typeof PayinCreateResponseSchema>;

/** Spec 2.3 (also payout errors, with a C-code in status_code). */
export const ErrorResponseSchema = z.looseObject({
  status: tolerant(z.string()),
  status_code: tolerant(anyCode),
  reason_code: tolerant(z.string()),
  error_code: tolerant(z.string()),
  request_id: tolerant(z.string()),
  message: tolerant(z.string()),
  payin_id: tolerant(z.string()),
  details: tolerant(z.record(z.string(), z.unknown())),
});
export type ErrorResponse = z.infer<typeof ErrorResponseSchema>;

/** Status read answer: 2.2 plus status_code, reason_code, amount, currency, payment_method, updated_at. */
export const PayinStatusResponseSchema = PayinCreateResponseSchema.extend({
  reason_code: tolerant(z.string()),
  amount: tolerant(anyAmount),
  currency: tolerant(z.string()),
  payment_method: tolerant(z.string()),
  updated_at: tolerant(z.string()),
});
export type PayinStatusResponse = z.infer<typeof PayinStatusResponseSchema>;

export const PayinNotificationSchema = PayinStatusResponseSchema.extend({ event: tolerant(z.string()) });
export type PayinNotification = z.infer<typeof PayinNotificationSchema>;

export const CardMetadataSchema = z.looseObject({
  brand: tolerant(z.string()),
  bin: tolerant(z.string()),
  last4: tolerant(z.string()),
  exp_month: tolerant(z.string()),
  exp_year: tolerant(z.string()),
});
export type CardMetadata = z.infer<typeof CardMetadataSchema>;

export const TokenizationNotificationSchema = z.looseObject({
  event: tolerant(z.string()),
  request_id: tolerant(z.string()),
  payin_id: tolerant(z.string()),
  status_code: tolerant(anyCode),
  reason_code: tolerant(z.string()),
  token: tolerant(z.string()),
  card: tolerant(CardMetadataSchema),
});
export type TokenizationNotification = z.infer<typeof TokenizationNotificationSchema>;

export const PayoutCreateResponseSchema = z.looseObject({
  status: tolerant(z.string()),
  status_code: tolerant(anyCode),
  payout_id: tolerant(z.string()),
  merchantReference: tolerant(z.string()),
  created_at: tolerant(z.string()),
});
export type PayoutCreateResponse = z.infer<typeof PayoutCreateResponseSchema>;

export const PayoutStatusResponseSchema = PayoutCreateResponseSchema.extend({
  reason_code: tolerant(z.string()),
  amount: tolerant(anyAmount),
  currency: tolerant(z.string()),
  method: tolerant(z.string()),
  updated_at: tolerant(z.string()),
});
export type PayoutStatusResponse = z.infer<typeof PayoutStatusResponseSchema>;

export const PayoutNotificationSchema = PayoutStatusResponseSchema.extend({ event: tolerant(z.string()) });
export type PayoutNotification = z.infer<typeof PayoutNotificationSchema>;
