// The spec as data: every request field of every endpoint, with when it is required, its type,
// its rule and the codes a failure carries. Spec 2.1 (pay-in), 2.4 (status read), 2.5
// (tokenization, token charge), 2.6 (JWT claims), 2.7 (payout), completed by the documented
// choices of PRODUCT.md where the spec is silent. The emulator, the client and the forms all
// validate with these tables.
import type { ReasonCode } from './codes';
import type { CheckName } from './field-checks';
import { isJsonObject } from '../json';
import { CARD_PAYIN_METHODS, PAYIN_METHODS, PAYOUT_METHODS, TOKEN_PAYIN_METHODS, isPayinMethod, isPayoutMethod } from './methods';
import { compileRules, type CompiledRules } from './compiled-rules';
import {
  notAnObject,
  toResult,
  type FieldRule,
  type FieldType,
  type IssueCode,
  type Requirement,
  type ValidationOptions,
  type ValidationResult,
} from './rule-engine';

export type { FieldRule, ValidationIssue, ValidationOptions, ValidationResult, IssueCode, Requirement } from './rule-engine';
export { ISSUE_PRECEDENCE, primaryIssue } from './rule-engine';

const p = (status_code: number, reason_code: ReasonCode): IssueCode => ({ status_code, reason_code });
const c = (reason_code: ReasonCode): IssueCode => ({ status_code: 'C402', reason_code });

const MISSING = p(510, 'MISSING_PARAMS');
const INVALID = p(512, 'INVALID_PARAMS');

/**
 * One rule. Its field name, type, requirement, check and extras keep their literal types, so the
 * request schemas and form field lists (request-shapes.ts, form-fields.ts) are derived from the
 * tables with exact TypeScript types: a field added here appears in the body types, the zod
 * schemas, the contract's forms and the forms' inputs at once.
 */
function rule<const F extends string, const T extends FieldType, const R extends Requirement, const C extends CheckName, const E extends Partial<FieldRule> = Record<never, never>>(
  field: F,
  type: T,
  required: R,
  check: C,
  text: string,
  invalid: IssueCode = INVALID,
  missing: IssueCode = MISSING,
  extra: E = {} as E,
): Omit<FieldRule, keyof E | 'field' | 'type' | 'required' | 'check'> & E & { readonly field: F; readonly type: T; readonly required: R; readonly check: C } {
  return { field, type, required, check, rule: text, invalid, missing, ...extra };
}

// Conditional groups of spec 2.1.
const MOBILE = { methods: ['credit_card', 'credit_card_ftd', 'interac', 'blik', 'googlepay', 'applepay'] } as const;
const ADDRESS = { methods: ['credit_card', 'credit_card_ftd', 'interac', 'googlepay', 'applepay'] } as const;
const STATE = { methods: ['credit_card', 'credit_card_ftd', 'googlepay', 'applepay'] } as const;
const CARD = { methods: CARD_PAYIN_METHODS };

/** Spec 2.1: the 27 fields of POST /payment/create. */
export const PAYIN_FIELD_RULES = [
  rule('merchant_id', 'string', 'always', 'text', "Merchant identifier; must be the merchant-token's merchant (else HTTP 401)."),
  rule('merchant_site_id', 'string', 'always', 'site', "Site identifier of the merchant's integration settings.", p(505, 'INVALID_SITE')),
  rule('payment_method', 'string', 'always', 'enum', `One of: ${PAYIN_METHODS.join(', ')}.`, p(508, 'INVALID_PAYMENT_METHOD'), p(506, 'MISSING_PAYMENT_METHOD'), { values: PAYIN_METHODS }),
  rule('amount', 'number', 'always', 'amount', 'JSON number > 0; 2 decimals for fiat, up to 10 for crypto.', p(504, 'INVALID_AMOUNT'), p(503, 'MISSING_AMOUNT')),
  rule('currency', 'string', 'always', 'currency', 'ISO 4217 code (upper case).', p(402, 'UNSUPPORTED_CURRENCY')),
  rule('email', 'string', 'always', 'email', 'Customer e-mail address.'),
  rule('request_id', 'string', 'always', 'reference', 'Unique merchant reference for the attempt (at most 255 characters).'),
  rule('country', 'string', 'always', 'country', 'ISO 3166-1 alpha-3 code (upper case).', p(401, 'UNSUPPORTED_COUNTRY')),
  rule('notification_link', 'string', 'always', 'uri', 'Absolute http(s) URL receiving v2_payin_notification.'),
  rule('success_url', 'string', 'always', 'uri', 'Absolute http(s) URL.'),
  rule('pending_url', 'string', 'always', 'uri', 'Absolute http(s) URL.'),
  rule('fail_url', 'string', 'always', 'uri', 'Absolute http(s) URL.'),
  rule('back_url', 'string', 'always', 'uri', 'Absolute http(s) URL.'),
  rule('device_ip', 'string', 'always', 'ip', 'IPv4 or IPv6 address of the customer device.'),
  rule('first_name', 'string', 'always', 'text', 'Customer first name.'),
  rule('last_name', 'string', 'always', 'text', 'Customer last name.'),
  rule('mobile', 'string', MOBILE, 'phone', 'International number with a leading + (E.164; spaces and dashes ignored).'),
  rule('address', 'string', ADDRESS, 'text', 'Street address.'),
  rule('city', 'string', ADDRESS, 'text', 'City.'),
  rule('zipCode', 'string', ADDRESS, 'text', 'Postal code.'),
  rule('state', 'string', STATE, 'text', 'State or region.'),
  rule('birthDate', 'string', STATE, 'birth_date', 'Date of birth YYYY-MM-DD, in the past.'),
  rule('cardNum', 'string', CARD, 'card_number', '12 to 19 digits passing the Luhn check.', p(517, 'INVALID_CARD_NUMBER')),
  rule('cardHolder', 'string', CARD, 'card_holder', 'At least one word.', p(319, 'INVALID_CARDHOLDER_NAME'), MISSING, { blankIsMissing: false }),
  rule('cardExpireMonth', 'string', CARD, 'exp_month', 'Two digits 01-12.', p(318, 'INVALID_EXPIRY')),
  rule('cardExpireYear', 'string', CARD, 'exp_year', 'Four digits; with the month, not in the past.', p(318, 'INVALID_EXPIRY'), MISSING, { pairedMonth: 'cardExpireMonth' }),
  rule('cardCvv', 'string', CARD, 'cvv', '3 or 4 digits.', p(317, 'INVALID_CVV')),
] as const satisfies readonly FieldRule[];

type PayinRule = (typeof PAYIN_FIELD_RULES)[number];
export type PayinField = PayinRule['field'];

/** The card fields of a card pay-in body; tokenization and token charge carry the card only inside merchant_jwt. */
export const PAYIN_CARD_FIELDS = ['cardNum', 'cardHolder', 'cardExpireMonth', 'cardExpireYear', 'cardCvv'] as const satisfies readonly PayinField[];
type PayinCardField = (typeof PAYIN_CARD_FIELDS)[number];

function byField<F extends PayinField>(field: F): Extract<PayinRule, { field: F }> {
  return PAYIN_FIELD_RULES.find((r) => r.field === field) as Extract<PayinRule, { field: F }>;
}
function forbidden<F extends PayinCardField>(field: F) {
  return { ...byField(field), required: 'forbidden', invalid: INVALID, rule: 'Not sent: card data goes only inside merchant_jwt.' } as const;
}
const tokenMethod = { ...byField('payment_method'), values: TOKEN_PAYIN_METHODS, rule: `Credit cards only: ${TOKEN_PAYIN_METHODS.join(', ')}.` } as const;
/** 2.1 without the card fields, payment_method limited to the card methods (tokenization and token charge are credit cards only). */
const payinWithoutCards = PAYIN_FIELD_RULES.filter((r) => !(PAYIN_CARD_FIELDS as readonly string[]).includes(r.field)).map((r) => (r.field === 'payment_method' ? tokenMethod : r)) as (
  | Exclude<PayinRule, { field: PayinCardField | 'payment_method' }>
  | typeof tokenMethod
)[];
const jwtRule = rule('merchant_jwt', 'string', 'always', 'jwt', 'Compact EdDSA JWS signed with a registered key (spec 2.6).', p(512, 'INVALID_MERCHANT_JWT'));

/** POST /payment/create/tokenization: 2.1 without card fields, plus merchant_jwt, consent, tokenization_notification_url. */
export const TOKENIZATION_FIELD_RULES = [
  ...payinWithoutCards,
  jwtRule,
  rule('consent', 'boolean', 'always', 'consent', 'Boolean; must be true (the customer agreed to store the card).'),
  rule('tokenization_notification_url', 'string', 'always', 'uri', 'Absolute http(s) URL receiving v2_tokenization_notification.'),
  ...PAYIN_CARD_FIELDS.map(forbidden),
] satisfies readonly FieldRule[];

/** POST /payment/create/token: 2.1 without card fields, plus merchant_jwt and cardCvv. */
export const TOKEN_CHARGE_FIELD_RULES = [
  ...payinWithoutCards,
  jwtRule,
  { ...byField('cardCvv'), required: 'always', rule: '3 or 4 digits; collected on every charge.' } as const,
  ...PAYIN_CARD_FIELDS.filter((f) => f !== 'cardCvv').map(forbidden),
] satisfies readonly FieldRule[];

/** Spec 2.4 plus our choice: payin_id or request_id (at least one) with merchant_id. */
export const PAYIN_STATUS_FIELD_RULES = [
  rule('merchant_id', 'string', 'always', 'text', "Must be the merchant-token's merchant (else HTTP 401)."),
  rule('payin_id', 'string', 'optional', 'uuid', 'UUID returned at creation; payin_id or request_id is required.'),
  rule('request_id', 'string', 'optional', 'reference', 'The request_id used at creation; payin_id or request_id is required.'),
] as const satisfies readonly FieldRule[];

/** Claims of a merchant_jwt with op=tokenize (spec 2.6): the card data. */
export const TOKENIZE_CLAIM_RULES = [
  rule('cardholder_number', 'string', 'always', 'card_number', 'Card number, Luhn-valid.', p(517, 'INVALID_CARD_NUMBER'), p(512, 'INVALID_MERCHANT_JWT')),
  rule('cardholder_name', 'string', 'always', 'card_holder', 'At least one word.', p(319, 'INVALID_CARDHOLDER_NAME'), p(512, 'INVALID_MERCHANT_JWT'), { blankIsMissing: false }),
  rule('cardholder_exp_month', 'string', 'always', 'exp_month', 'Two digits 01-12.', p(318, 'INVALID_EXPIRY'), p(512, 'INVALID_MERCHANT_JWT')),
  rule('cardholder_exp_year', 'string', 'always', 'exp_year', 'Four digits; not expired.', p(318, 'INVALID_EXPIRY'), p(512, 'INVALID_MERCHANT_JWT'), { pairedMonth: 'cardholder_exp_month' }),
] as const satisfies readonly FieldRule[];

const FPS_OB = { methods: ['open_banking', 'fps'] } as const;

/** Spec 2.7 plus our choices: every field required except mode (default direct) and customer.phone. */
export const PAYOUT_FIELD_RULES = [
  rule('merchant_id', 'string', 'always', 'text', "Must be the merchant-token's merchant (else HTTP 401).", c('INVALID_PARAMS'), c('MISSING_PARAMS')),
  rule('site_id', 'string', 'always', 'site', "Site identifier of the merchant's integration settings.", c('INVALID_SITE'), c('MISSING_PARAMS')),
  rule('method', 'string', 'always', 'enum', `One of: ${PAYOUT_METHODS.join(', ')}.`, c('INVALID_PAYMENT_METHOD'), c('MISSING_PAYMENT_METHOD'), { values: PAYOUT_METHODS }),
  rule('mode', 'string', 'optional', 'enum', 'Optional; only "direct" (the default).', c('INVALID_PARAMS'), c('MISSING_PARAMS'), { values: ['direct'] }),
  rule('amount', 'number', 'always', 'amount', 'JSON number > 0; 2 decimals, up to 10 for crypto.', c('INVALID_AMOUNT'), c('MISSING_AMOUNT')),
  rule('currency', 'string', 'always', 'currency', 'ISO 4217 code.', c('UNSUPPORTED_CURRENCY'), c('MISSING_PARAMS')),
  rule('merchantReference', 'string', 'always', 'reference', 'Merchant reference (at most 255 characters).', c('INVALID_PARAMS'), c('MISSING_PARAMS')),
  rule('country', 'string', 'always', 'country', 'ISO 3166-1 alpha-3 code.', c('UNSUPPORTED_COUNTRY'), c('MISSING_PARAMS')),
  rule('notificationUrl', 'string', 'always', 'uri', 'Absolute http(s) URL receiving v2_payout_notification.', c('INVALID_PARAMS'), c('MISSING_PARAMS')),
  rule('customer', 'object', 'always', 'object', 'Object with firstName, lastName, email and optional phone.', c('INVALID_PARAMS'), c('MISSING_PARAMS')),
  rule('customer.firstName', 'string', 'always', 'text', 'First name.', c('INVALID_PARAMS'), c('MISSING_PARAMS')),
  rule('customer.lastName', 'string', 'always', 'text', 'Last name.', c('INVALID_PARAMS'), c('MISSING_PARAMS')),
  rule('customer.email', 'string', 'always', 'email', 'E-mail address.', c('INVALID_PARAMS'), c('MISSING_PARAMS')),
  rule('customer.phone', 'string', 'optional', 'phone', 'Optional; international number with a leading +.', c('INVALID_PARAMS'), c('MISSING_PARAMS')),
  rule('paymentDetails', 'object', 'always', 'object', 'Object with method plus the fields of that method.', c('INVALID_PARAMS'), c('MISSING_PARAMS')),
  rule('paymentDetails.method', 'string', 'always', 'same_method', 'Equal to the top-level method.', c('INVALID_PAYMENT_METHOD'), c('MISSING_PARAMS')),
  rule('paymentDetails.cardNum', 'string', { methods: ['credit_card'] }, 'card_number', '12 to 19 digits passing the Luhn check.', c('INVALID_CARD_NUMBER'), c('MISSING_PARAMS')),
  rule('paymentDetails.cardHolder', 'string', { methods: ['credit_card'] }, 'card_holder', 'At least one word.', c('INVALID_CARDHOLDER_NAME'), c('MISSING_PARAMS'), { blankIsMissing: false }),
  rule('paymentDetails.cardExpireMonth', 'string', { methods: ['credit_card'] }, 'exp_month', 'Two digits 01-12.', c('INVALID_EXPIRY'), c('MISSING_PARAMS')),
  rule('paymentDetails.cardExpireYear', 'string', { methods: ['credit_card'] }, 'exp_year', 'Four digits; not expired.', c('INVALID_EXPIRY'), c('MISSING_PARAMS'), { pairedMonth: 'paymentDetails.cardExpireMonth' }),
  rule('paymentDetails.iban', 'string', { methods: ['open_banking'] }, 'iban', 'IBAN with valid check digits (spaces ignored).', c('INVALID_PARAMS'), c('MISSING_PARAMS')),
  rule('paymentDetails.bic', 'string', { methods: ['open_banking'] }, 'bic', 'BIC, 8 or 11 characters.', c('INVALID_PARAMS'), c('MISSING_PARAMS')),
  rule('paymentDetails.accountHolder', 'string', FPS_OB, 'card_holder', 'Account holder name, at least one word.', c('INVALID_PARAMS'), c('MISSING_PARAMS')),
  rule('paymentDetails.walletAddress', 'string', { methods: ['crypto'] }, 'wallet_address', 'Wallet address, 20 to 128 characters.', c('INVALID_PARAMS'), c('MISSING_PARAMS')),
  rule('paymentDetails.network', 'string', { methods: ['crypto'] }, 'text', 'Network name (for example "ethereum").', c('INVALID_PARAMS'), c('MISSING_PARAMS')),
  rule('paymentDetails.sortCode', 'string', { methods: ['fps'] }, 'sort_code', '6 digits.', c('INVALID_PARAMS'), c('MISSING_PARAMS')),
  rule('paymentDetails.accountNumber', 'string', { methods: ['fps'] }, 'account_number', '8 digits.', c('INVALID_PARAMS'), c('MISSING_PARAMS')),
] as const satisfies readonly FieldRule[];

/**
 * Payout status read (our choice): {merchant_id, payout_id}, or {merchant_id, merchantReference}
 * to find a payout whose create answer was lost (an extension the spec does not show: a gateway
 * without it answers an error, and the payout is then settled by resending under its key).
 */
export const PAYOUT_STATUS_FIELD_RULES = [
  rule('merchant_id', 'string', 'always', 'text', "Must be the merchant-token's merchant (else HTTP 401).", c('INVALID_PARAMS'), c('MISSING_PARAMS')),
  rule('payout_id', 'string', 'optional', 'uuid', 'UUID returned by /payouts/create; payout_id or merchantReference is required.', c('INVALID_PARAMS'), c('MISSING_PARAMS')),
  rule('merchantReference', 'string', 'optional', 'reference', 'The merchantReference sent at creation; payout_id or merchantReference is required.', c('INVALID_PARAMS'), c('MISSING_PARAMS')),
] as const satisfies readonly FieldRule[];

const BAD_BODY_PAYIN = p(512, 'INVALID_REQUEST');
const BAD_BODY_PAYOUT = c('INVALID_REQUEST');

function payinMethodOf(body: Record<string, unknown>): string | undefined {
  return isPayinMethod(body.payment_method) ? body.payment_method : undefined;
}

// Each table compiled once: these validators run on every request the emulator answers.
const COMPILED = {
  payin: compileRules(PAYIN_FIELD_RULES),
  tokenization: compileRules(TOKENIZATION_FIELD_RULES),
  tokenCharge: compileRules(TOKEN_CHARGE_FIELD_RULES),
  payinStatus: compileRules(PAYIN_STATUS_FIELD_RULES),
  tokenizeClaims: compileRules(TOKENIZE_CLAIM_RULES),
  payout: compileRules(PAYOUT_FIELD_RULES),
  payoutStatus: compileRules(PAYOUT_STATUS_FIELD_RULES),
} as const;

function run(rules: CompiledRules, body: unknown, method: (b: Record<string, unknown>) => string | undefined, bad: IssueCode, opts?: ValidationOptions): ValidationResult {
  if (!isJsonObject(body)) return notAnObject(bad);
  return toResult(rules.apply(body, method(body), opts));
}

export function validatePayinCreate(body: unknown, opts?: ValidationOptions): ValidationResult {
  return run(COMPILED.payin, body, payinMethodOf, BAD_BODY_PAYIN, opts);
}

export function validateTokenizationCreate(body: unknown, opts?: ValidationOptions): ValidationResult {
  return run(COMPILED.tokenization, body, payinMethodOf, BAD_BODY_PAYIN, opts);
}

export function validateTokenChargeCreate(body: unknown, opts?: ValidationOptions): ValidationResult {
  return run(COMPILED.tokenCharge, body, payinMethodOf, BAD_BODY_PAYIN, opts);
}

/** A status read names its transaction by one of two references, at least one of them given. */
function validateStatusRead(body: unknown, rules: CompiledRules, references: readonly [string, string], bad: IssueCode, missing: IssueCode): ValidationResult {
  if (!isJsonObject(body)) return notAnObject(bad);
  const issues = rules.apply(body, undefined);
  const has = (k: string): boolean => typeof body[k] === 'string' && (body[k] as string).trim() !== '';
  if (!references.some(has) && !issues.some((i) => i.field !== 'merchant_id')) {
    for (const field of references) {
      issues.push({ field, problem: 'missing', message: `${references.join(' or ')} is required`, ...missing });
    }
  }
  return toResult(issues);
}

export function validatePayinStatusRead(body: unknown): ValidationResult {
  return validateStatusRead(body, COMPILED.payinStatus, ['payin_id', 'request_id'], BAD_BODY_PAYIN, MISSING);
}

/** Card claims of an op=tokenize merchant_jwt. */
export function validateTokenizeClaims(claims: unknown, opts?: ValidationOptions): ValidationResult {
  return run(COMPILED.tokenizeClaims, claims, () => undefined, p(512, 'INVALID_MERCHANT_JWT'), opts);
}

export function validatePayoutCreate(body: unknown, opts?: ValidationOptions): ValidationResult {
  return run(COMPILED.payout, body, (b) => (isPayoutMethod(b.method) ? b.method : undefined), BAD_BODY_PAYOUT, opts);
}

export function validatePayoutStatusRead(body: unknown): ValidationResult {
  return validateStatusRead(body, COMPILED.payoutStatus, ['payout_id', 'merchantReference'], BAD_BODY_PAYOUT, c('MISSING_PARAMS'));
}

/** Fields a form should show for a method, in table order (forms render from this). */
export function payinFieldsFor(method: string, rules: readonly FieldRule[] = PAYIN_FIELD_RULES): FieldRule[] {
  return rules.filter((r) => r.required === 'always' || (typeof r.required === 'object' && r.required.methods.includes(method)));
}
