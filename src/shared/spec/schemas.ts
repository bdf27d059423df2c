// zod schemas of every request and response of section 4 and of the three notification bodies.
// Requests are typed strictly (the client builds them); responses and notifications are
// tolerant: every field optional, wrong-typed fields dropped instead of failing the parse,
// unknown fields kept, and status / reason codes accepted whatever their value, because the
// gateway adds codes over time (spec 7.2, 9) and a client must keep what it does not know.
import { z } from 'zod';
import { LosslessNumber } from '../json';
import { PAYIN_METHODS, PAYOUT_METHODS } from './methods';

/** A JSON number as produced by parseJson (exact) or a plain safe number. */
export const JsonNumberSchema = z.union([z.number(), z.instanceof(LosslessNumber)]);

const tolerant = <T extends z.ZodType>(schema: T) => schema.nullish().catch(undefined);
const anyCode = z.union([z.number(), z.string()]);
const anyAmount = z.union([z.number(), z.string(), z.instanceof(LosslessNumber)]);

// ---- requests ---------------------------------------------------------------------------------

const payinBase = {
  merchant_id: z.string(),
  merchant_site_id: z.string(),
  amount: JsonNumberSchema,
  currency: z.string(),
  email: z.string(),
  request_id: z.string(),
  country: z.string(),
  notification_link: z.string(),
  success_url: z.string(),
  pending_url: z.string(),
  fail_url: z.string(),
  back_url: z.string(),
  device_ip: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  mobile: z.string().optional(),
  address: z.string().optional(),
  city: z.string().optional(),
  zipCode: z.string().optional(),
  state: z.string().optional(),
  birthDate: z.string().optional(),
};

/** Spec 2.1. Conditional fields are optional here; validatePayinCreate enforces them per method. */
export const PayinCreateRequestSchema = z.object({
  ...payinBase,
  payment_method: z.enum(PAYIN_METHODS),
  cardNum: z.string().optional(),
  cardHolder: z.string().optional(),
  cardExpireMonth: z.string().optional(),
  cardExpireYear: z.string().optional(),
  cardCvv: z.string().optional(),
});
export type PayinCreateRequest = z.infer<typeof PayinCreateRequestSchema>;

export const TokenizationCreateRequestSchema = z.object({
  ...payinBase,
  payment_method: z.enum(['credit_card', 'credit_card_ftd']),
  merchant_jwt: z.string(),
  consent: z.literal(true),
  tokenization_notification_url: z.string(),
});
export type TokenizationCreateRequest = z.infer<typeof TokenizationCreateRequestSchema>;

export const TokenChargeRequestSchema = z.object({
  ...payinBase,
  payment_method: z.enum(['credit_card', 'credit_card_ftd']),
  merchant_jwt: z.string(),
  cardCvv: z.string(),
});
export type TokenChargeRequest = z.infer<typeof TokenChargeRequestSchema>;

export const PayinStatusRequestSchema = z.union([
  z.object({ merchant_id: z.string(), payin_id: z.string(), request_id: z.string().optional() }),
  z.object({ merchant_id: z.string(), request_id: z.string(), payin_id: z.string().optional() }),
]);
export type PayinStatusRequest = z.infer<typeof PayinStatusRequestSchema>;

export const PayoutPaymentDetailsSchema = z.discriminatedUnion('method', [
  z.object({ method: z.literal('credit_card'), cardNum: z.string(), cardHolder: z.string(), cardExpireMonth: z.string(), cardExpireYear: z.string() }),
  z.object({ method: z.literal('open_banking'), iban: z.string(), bic: z.string(), accountHolder: z.string() }),
  z.object({ method: z.literal('crypto'), walletAddress: z.string(), network: z.string() }),
  z.object({ method: z.literal('fps'), sortCode: z.string(), accountNumber: z.string(), accountHolder: z.string() }),
]);
export type PayoutPaymentDetails = z.infer<typeof PayoutPaymentDetailsSchema>;

export const PayoutCreateRequestSchema = z.object({
  merchant_id: z.string(),
  site_id: z.string(),
  method: z.enum(PAYOUT_METHODS),
  mode: z.literal('direct').optional(),
  amount: JsonNumberSchema,
  currency: z.string(),
  merchantReference: z.string(),
  country: z.string(),
  notificationUrl: z.string(),
  customer: z.object({ firstName: z.string(), lastName: z.string(), email: z.string(), phone: z.string().optional() }),
  paymentDetails: PayoutPaymentDetailsSchema,
});
export type PayoutCreateRequest = z.infer<typeof PayoutCreateRequestSchema>;

export const PayoutStatusRequestSchema = z.object({ merchant_id: z.string(), payout_id: z.string() });
export type PayoutStatusRequest = z.infer<typeof PayoutStatusRequestSchema>;

/** Claims of merchant_jwt (spec 2.6). */
export const MerchantJwtClaimsSchema = z.looseObject({
  jti: z.string(),
  op: z.enum(['tokenize', 'decrypt']),
  sub: z.string(),
  iat: z.number(),
  cardholder_number: z.string().optional(),
  cardholder_name: z.string().optional(),
  cardholder_exp_month: z.string().optional(),
  cardholder_exp_year: z.string().optional(),
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

export const NOTIFICATION_EVENTS = ['v2_payin_notification', 'v2_tokenization_notification', 'v2_payout_notification'] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];
