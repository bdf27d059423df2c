// Form input + profile → the gateway's request body, checked with the shared validator (the same
// field rules the emulator applies) before anything is recorded or sent: a 400-class input error
// never reaches the network, and every offending field is named at once, by the name the form uses.
import type { PayinCreateForm, PayoutCreateForm, TokenChargeForm, TokenizeForm } from '../../../shared/contract';
import { typedAmount } from '../../../shared/money';
import { unreadableFields } from '../../../shared/readable-text';
import { CARD_PAYIN_METHODS, isPayoutMethod } from '../../../shared/spec/methods';
import {
  CARD_FIELDS,
  PAYIN_FORM_FIELDS,
  PAYOUT_CUSTOMER_FIELDS,
  PAYOUT_DETAIL_FIELDS,
  PAYOUT_FORM_FIELDS,
  payoutDetailFields,
} from '../../../shared/spec/form-fields';
import {
  PAYIN_CARD_FIELDS,
  validatePayinCreate,
  validatePayoutCreate,
  validateTokenChargeCreate,
  validateTokenizationCreate,
  validateTokenizeClaims,
  type ValidationResult,
} from '../../../shared/spec/field-rules';
import type { CardForJwt } from '../../gateway/merchant-jwt';
import type { Profile } from '../../ledger/repositories/profiles';
import { ServiceError } from '../errors';

/** Passes the shape check of merchant_jwt while the body is validated; replaced by the signed JWT before sending. */
export const JWT_PLACEHOLDER = 'unsigned.placeholder.jwt';

/** Field → problem, collected from several checks and thrown as one input error. */
export class FieldProblems {
  readonly fields: Record<string, string> = {};

  add(field: string, problem: string): void {
    this.fields[field] ??= problem;
  }

  addResult(result: ValidationResult, rename: (field: string) => string = (f) => f): void {
    for (const [field, problem] of Object.entries(result.details)) this.add(rename(field), problem);
  }

  throwIfAny(what: string): void {
    const entries = Object.entries(this.fields);
    if (entries.length === 0) return;
    throw new ServiceError('invalid_input', `${what} was not sent: ${entries.map(([f, p]) => `${f} ${p}`).join('; ')}.`, this.fields);
  }
}

/**
 * The values a form gave, without blank strings: a blank required field is "missing" either way.
 * An amount is taken without the spaces around it, as every form reads it (typedAmount).
 */
function given<T extends object>(form: T, keys: readonly (keyof T & string)[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const value = form[key];
    if (value === undefined || (typeof value === 'string' && value.trim() === '')) continue;
    out[key] = key === 'amount' && typeof value === 'string' ? value.trim() : value;
  }
  return out;
}

/** The amount as the validator sees it (an exact JSON number), or text that is none named for what it is (typedAmount). */
function forValidation(body: Record<string, unknown>, amountField: string, problems: FieldProblems): Record<string, unknown> {
  const amount = body.amount;
  if (typeof amount !== 'string') return body;
  const typed = typedAmount(amount);
  if (!typed.ok) {
    problems.add(amountField, typed.message);
    return { ...body, amount: undefined };
  }
  return { ...body, amount: typed.value };
}

export interface PayinContext {
  profile: Profile;
  notificationUrl: string;
  newReference: () => string;
  /** Resolves true when this profile's ledger already holds a pay-in with this request_id. */
  requestIdTaken: (requestId: string) => Promise<boolean>;
}

async function payinBase(form: PayinCreateForm | TokenizeForm | TokenChargeForm, ctx: PayinContext, problems: FieldProblems): Promise<Record<string, unknown>> {
  const body: Record<string, unknown> = {
    ...given(form, PAYIN_FORM_FIELDS),
    merchant_id: ctx.profile.merchantId,
    merchant_site_id: ctx.profile.merchantSiteId,
    notification_link: ctx.notificationUrl,
  };
  body.request_id ??= ctx.newReference();
  if (typeof body.request_id === 'string' && (await ctx.requestIdTaken(body.request_id))) {
    problems.add('request_id', 'is already used by a pay-in of this profile: a request_id names one attempt, so use a new one (or resume that attempt)');
  }
  return body;
}

/** Spec 2.1. Card fields only for the card methods. */
export async function payinCreateBody(form: PayinCreateForm, ctx: PayinContext): Promise<Record<string, unknown>> {
  const problems = new FieldProblems();
  const body = { ...(await payinBase(form, ctx, problems)), ...given(form, PAYIN_CARD_FIELDS) };
  const isCard = (CARD_PAYIN_METHODS as readonly unknown[]).includes(body.payment_method);
  if (!isCard) {
    for (const field of PAYIN_CARD_FIELDS) if (body[field] !== undefined) problems.add(field, 'is only sent for credit_card and credit_card_ftd');
  }
  problems.addResult(validatePayinCreate(forValidation(body, 'amount', problems)));
  problems.throwIfAny('The pay-in');
  return body;
}

const CLAIM_TO_FORM: Record<string, string> = {
  cardholder_number: 'cardNum',
  cardholder_name: 'cardHolder',
  cardholder_exp_month: 'cardExpireMonth',
  cardholder_exp_year: 'cardExpireYear',
};

/** The card of a tokenize JWT, checked with the claim rules and named by the form's field names. */
export function tokenizeCard(form: Partial<Record<(typeof CARD_FIELDS)[number], string | undefined>>, problems: FieldProblems): CardForJwt {
  const card = given(form, CARD_FIELDS);
  const claims = {
    cardholder_number: card.cardNum,
    cardholder_name: card.cardHolder,
    cardholder_exp_month: card.cardExpireMonth,
    cardholder_exp_year: card.cardExpireYear,
  };
  problems.addResult(validateTokenizeClaims(claims), (field) => CLAIM_TO_FORM[field] ?? field);
  return { number: String(card.cardNum ?? ''), name: String(card.cardHolder ?? ''), expMonth: String(card.cardExpireMonth ?? ''), expYear: String(card.cardExpireYear ?? '') };
}

/** POST /payment/create/tokenization: the pay-in fields, consent, the notification URL; card data only in the JWT. */
export async function tokenizationBody(form: TokenizeForm, ctx: PayinContext): Promise<{ body: Record<string, unknown>; card: CardForJwt }> {
  const problems = new FieldProblems();
  const card = tokenizeCard(form, problems);
  const body: Record<string, unknown> = {
    ...(await payinBase(form, ctx, problems)),
    merchant_jwt: JWT_PLACEHOLDER,
    consent: form.consent,
    tokenization_notification_url: ctx.notificationUrl,
  };
  problems.addResult(validateTokenizationCreate(forValidation(body, 'amount', problems)));
  problems.throwIfAny('The tokenization request');
  return { body, card };
}

/** POST /payment/create/token: the pay-in fields, the CVV (asked for on every charge), the decrypt JWT. */
export async function tokenChargeBody(form: TokenChargeForm, ctx: PayinContext, problems = new FieldProblems()): Promise<Record<string, unknown>> {
  const body: Record<string, unknown> = { ...(await payinBase(form, ctx, problems)), merchant_jwt: JWT_PLACEHOLDER, ...given(form, ['cardCvv']) };
  problems.addResult(validateTokenChargeCreate(forValidation(body, 'amount', problems)));
  problems.throwIfAny('The token charge');
  return body;
}

export interface PayoutContext {
  profile: Profile;
  notificationUrl: string;
  newReference: () => string;
  /** Resolves true when the reference is already used (by a payout of this profile, or a row of the same batch). */
  referenceTaken: (merchantReference: string) => Promise<boolean>;
}

/** Spec 2.7 with our documented choices: mode "direct", paymentDetails.method = method. */
export async function payoutCreateBody(form: PayoutCreateForm, ctx: PayoutContext): Promise<Record<string, unknown>> {
  const problems = new FieldProblems();
  // A name lost or garbled on its way in (a file read in the wrong encoding) is never sent.
  for (const [field, problem] of Object.entries(unreadableFields(form))) problems.add(field, problem);
  const top = given(form, PAYOUT_FORM_FIELDS);
  const method = typeof top.method === 'string' ? top.method : undefined;
  const details = form.paymentDetails ? given(form.paymentDetails, PAYOUT_DETAIL_FIELDS) : {};
  if (method !== undefined && isPayoutMethod(method)) {
    const allowed: string[] = payoutDetailFields(method);
    for (const field of Object.keys(details)) if (!allowed.includes(field)) problems.add(`paymentDetails.${field}`, `is not a field of ${method} payouts`);
  }
  const body: Record<string, unknown> = {
    ...top,
    merchant_id: ctx.profile.merchantId,
    site_id: ctx.profile.merchantSiteId,
    mode: 'direct',
    notificationUrl: ctx.notificationUrl,
    customer: form.customer ? given(form.customer, PAYOUT_CUSTOMER_FIELDS) : undefined,
    paymentDetails: form.paymentDetails || method !== undefined ? { ...details, method } : undefined,
  };
  body.merchantReference ??= ctx.newReference();
  if (typeof body.merchantReference === 'string' && (await ctx.referenceTaken(body.merchantReference))) {
    problems.add('merchantReference', 'is already used by a payout of this profile: use a new one (or resume that attempt)');
  }
  problems.addResult(validatePayoutCreate(forValidation(body, 'amount', problems)));
  problems.throwIfAny('The payout');
  return body;
}
