// The one catalogue of every code the gateway speaks: pay-in status codes (spec 3.1), payout
// status codes (3.2) and reason codes (7.3). The client, the code explorer and the emulator all
// read it. Codes outside it are kept as "unknown" entries, never dropped: the spec says new
// reason codes are added over time (7.2, 9).

/** The categories of known codes, in the order the code explorer lists them. */
export const CODE_CATEGORIES = ['pending', 'success', 'customer_error', 'decline', 'validation', 'merchant_setup', 'system'] as const;
export type CodeCategory = (typeof CODE_CATEGORIES)[number];

/** A transaction's status category: a known code's, or 'unknown' for a code the catalogue does not hold. */
export const STATUS_CATEGORIES = [...CODE_CATEGORIES, 'unknown'] as const;
export type StatusCategory = (typeof STATUS_CATEGORIES)[number];

/** What a status code is the status of: a pay-in (spec 3.1) or a payout (3.2). */
export const TRANSACTION_SUBJECTS = ['payin', 'payout'] as const;
export type TransactionSubject = (typeof TRANSACTION_SUBJECTS)[number];

export type RetryAdvice =
  | { kind: 'wait'; text: string } // not final: wait for the notification, do not resend
  | { kind: 'never'; text: string } // the same request will fail the same way
  | { kind: 'after'; seconds: number; text: string }
  | { kind: 'shortly'; text: string } // a transient fault: the same attempt may be retried soon
  | { kind: 'new_attempt'; text: string } // fix the data or let the customer try again (new key)
  | { kind: 'unknown'; text: string };

export type CodeKind = 'payin_status' | 'payout_status' | 'reason';

interface KnownBase {
  known: true;
  kind: CodeKind;
  meaning: string;
  category: CodeCategory;
  final: boolean;
  retry: RetryAdvice;
  /** What support should tell the customer. */
  tellCustomer: string;
}

export interface PayinStatusInfo extends KnownBase {
  kind: 'payin_status';
  code: number;
  /** The reason code the emulator attaches when a pay-in ends with this status. */
  defaultReason: ReasonCode | null;
}

export interface PayoutStatusInfo extends KnownBase {
  kind: 'payout_status';
  code: PayoutStatusCode;
  defaultReason: ReasonCode | null;
}

export interface ReasonInfo extends KnownBase {
  kind: 'reason';
  code: ReasonCode;
}

export interface UnknownCodeInfo {
  known: false;
  kind: CodeKind;
  code: string | number;
  meaning: string;
  category: 'unknown';
  final: false;
  retry: RetryAdvice;
  tellCustomer: string;
}

export type CodeInfo = PayinStatusInfo | PayoutStatusInfo | ReasonInfo | UnknownCodeInfo;

export const REASON_CODES = [
  'INVALID_REQUEST',
  'INVALID_OR_EXPIRED_TOKEN',
  'INVALID_MERCHANT_JWT',
  'INVALID_CHECKSUM',
  'INVALID_PARAMS',
  'MISSING_PARAMS',
  'SYSTEM_ERROR',
  'TRANSIENT_ERROR',
  'NO_ROUTE_AVAILABLE',
  'INVALID_SITE',
  'PAYMENT_METHOD_NOT_ENABLED',
  'MERCHANT_INACTIVE',
  'UNSUPPORTED_COUNTRY',
  'UNSUPPORTED_CURRENCY',
  'MISSING_PAYMENT_METHOD',
  'INVALID_PAYMENT_METHOD',
  'INVALID_PAYMENT_METHOD_FOR_PROVIDER',
  'INVALID_CARD_DATA',
  'INVALID_CVV',
  'INVALID_CARD_NUMBER',
  'INVALID_EXPIRY',
  'INVALID_CARDHOLDER_NAME',
  'INVALID_ADDRESS',
  'INVALID_PHONE',
  'THREE_DS_FAILED',
  'USER_ABANDONED',
  'MISSING_AMOUNT',
  'INVALID_AMOUNT',
  'AMOUNT_BELOW_MINIMUM',
  'INSUFFICIENT_FUNDS',
  'RISK_BLOCKED',
  'BLACKLISTED_BLOCKED',
  'BIN_BLACKLISTED',
  'EXPIRED_CARD',
  'DO_NOT_HONOR',
  'AUTHENTICATION_FAILED',
  'GENERIC_DECLINE',
  'DAILY_LIMIT_EXCEEDED',
  'ISSUER_DECLINED_NO_INFO',
  'RESTRICTED_CARD',
  'LOST_OR_STOLEN_CARD',
  'CARD_LIMIT_EXCEEDED',
  'CANCELLED_BY_BANK',
  'DECLINE_LIMIT_EXCEEDED',
  'GATEWAY_UNAVAILABLE',
  'GATEWAY_TIMEOUT',
] as const;
export type ReasonCode = (typeof REASON_CODES)[number];

export const PAYOUT_STATUS_CODES = ['P100', 'P101', 'P200', 'C402', 'C403', 'C404', 'C405', 'C501'] as const;
export type PayoutStatusCode = (typeof PAYOUT_STATUS_CODES)[number];

// Retry advice shared by many entries.
const WAIT: RetryAdvice = { kind: 'wait', text: 'Not final: wait for the notification (or read the status later).' };
const NEVER: RetryAdvice = { kind: 'never', text: 'Final. Sending the same request again will not change the outcome.' };
const FIX: RetryAdvice = { kind: 'new_attempt', text: 'Fix the request data, then send it as a new attempt with a new Idempotency-Key.' };
const CUSTOMER_AGAIN: RetryAdvice = { kind: 'new_attempt', text: 'The customer may try again as a new attempt, possibly with another card or method.' };
const SHORTLY: RetryAdvice = { kind: 'shortly', text: 'Transient: retry the same request (same Idempotency-Key) in a few moments.' };
const SETUP: RetryAdvice = { kind: 'never', text: 'A merchant configuration problem: contact the gateway operator before retrying.' };

type PayinRow = [code: number, meaning: string, category: CodeCategory, final: boolean, retry: RetryAdvice, reason: ReasonCode | null, tell: string];

const PAYIN_ROWS: PayinRow[] = [
  [100, 'Pending redirect', 'pending', false, WAIT, null, 'The payment is waiting for you to complete it on the payment page.'],
  [101, 'Pending', 'pending', false, WAIT, null, 'The payment is being processed; the result will follow shortly.'],
  [200, 'Success', 'success', true, { kind: 'never', text: 'Succeeded. Never resend.' }, null, 'The payment succeeded.'],
  [301, 'User has a deposit in progress; wait 60 seconds', 'customer_error', true, { kind: 'after', seconds: 60, text: 'Wait 60 seconds, then the customer may try again.' }, 'TRANSIENT_ERROR', 'Another deposit of yours is still in progress. Please wait a minute and try again.'],
  [302, 'Declined due to risk decision', 'decline', true, NEVER, 'RISK_BLOCKED', 'The payment was declined for security reasons. Please use another payment method.'],
  [303, 'Customer reached daily deposit limit for this method', 'customer_error', true, { kind: 'never', text: 'Not today with this method; another method or tomorrow.' }, 'DAILY_LIMIT_EXCEEDED', 'You have reached your daily deposit limit for this method. Try another method or try again tomorrow.'],
  [304, 'KYC rejected', 'decline', true, NEVER, 'RISK_BLOCKED', 'Your identity verification was not accepted. Please contact support.'],
  [305, 'User error', 'customer_error', true, CUSTOMER_AGAIN, 'USER_ABANDONED', 'The payment was not completed. You can start a new payment.'],
  [306, 'Customer reached daily decline limit for this method', 'customer_error', true, { kind: 'never', text: 'Too many declines today; another method or tomorrow.' }, 'DECLINE_LIMIT_EXCEEDED', 'Too many declined attempts today with this method. Try another method or try again tomorrow.'],
  [317, 'Invalid CVV (must be 3 or 4 digits)', 'validation', true, FIX, 'INVALID_CVV', 'The security code (CVV) is invalid. Please check it and try again.'],
  [318, 'Invalid expiration date (must be valid and not expired)', 'validation', true, FIX, 'INVALID_EXPIRY', 'The card expiry date is invalid or the card has expired.'],
  [319, 'Invalid cardholder name (at least one word)', 'validation', true, FIX, 'INVALID_CARDHOLDER_NAME', 'Please enter the cardholder name as printed on the card.'],
  [320, 'BIN block enforced', 'decline', true, NEVER, 'BIN_BLACKLISTED', 'This card cannot be used here. Please use another card.'],
  [401, 'Unsupported country', 'validation', true, FIX, 'UNSUPPORTED_COUNTRY', 'Payments from your country are not supported.'],
  [402, 'Unsupported currency', 'validation', true, FIX, 'UNSUPPORTED_CURRENCY', 'This currency is not supported.'],
  [500, 'Provider declined', 'decline', true, CUSTOMER_AGAIN, 'GENERIC_DECLINE', 'The payment provider declined the payment. Please try another card or method.'],
  [501, 'System error', 'system', true, SHORTLY, 'SYSTEM_ERROR', 'A technical error occurred on our side. Please try again in a few minutes.'],
  [502, 'Unauthorized', 'merchant_setup', true, SETUP, 'INVALID_REQUEST', 'A technical error occurred on our side; we are looking into it.'],
  [503, 'No amount in the request', 'validation', true, FIX, 'MISSING_AMOUNT', 'A technical error occurred on our side; we are looking into it.'],
  [504, 'Amount is not a valid value', 'validation', true, FIX, 'INVALID_AMOUNT', 'The amount is not valid. Please check it.'],
  [505, 'Wrong site id', 'merchant_setup', true, SETUP, 'INVALID_SITE', 'A technical error occurred on our side; we are looking into it.'],
  [506, 'Missing payment method', 'validation', true, FIX, 'MISSING_PAYMENT_METHOD', 'Please choose a payment method.'],
  [507, 'Wrong payment method for this provider', 'merchant_setup', true, SETUP, 'INVALID_PAYMENT_METHOD_FOR_PROVIDER', 'This payment method is not available right now. Please choose another.'],
  [508, 'Wrong payment method', 'validation', true, FIX, 'INVALID_PAYMENT_METHOD', 'This payment method is not available. Please choose another.'],
  [509, 'Payment method not enabled for site', 'merchant_setup', true, SETUP, 'PAYMENT_METHOD_NOT_ENABLED', 'This payment method is not available. Please choose another.'],
  [510, 'Missing params', 'validation', true, FIX, 'MISSING_PARAMS', 'Some required details are missing. Please complete the form.'],
  [511, 'Invalid checksum', 'merchant_setup', true, SETUP, 'INVALID_CHECKSUM', 'A technical error occurred on our side; we are looking into it.'],
  [512, 'Invalid params values', 'validation', true, FIX, 'INVALID_PARAMS', 'Some details are not valid. Please check the form.'],
  [513, 'User exceeded daily deposit limit by provider', 'customer_error', true, { kind: 'never', text: 'Provider daily limit reached; another method or tomorrow.' }, 'DAILY_LIMIT_EXCEEDED', 'You have reached the daily limit of the payment provider. Try another method or try again tomorrow.'],
  [514, 'Merchant not active; contact support', 'merchant_setup', true, SETUP, 'MERCHANT_INACTIVE', 'Payments are temporarily unavailable. Please try again later.'],
  [515, 'Unexpected error; retry in a few moments', 'system', true, SHORTLY, 'TRANSIENT_ERROR', 'A temporary error occurred. Please try again in a few moments.'],
  [516, 'Transaction could not be processed at this time', 'system', true, CUSTOMER_AGAIN, 'NO_ROUTE_AVAILABLE', 'The payment could not be processed right now. Please try again later or use another method.'],
  [517, 'Credit card failed Luhn validation', 'validation', true, FIX, 'INVALID_CARD_NUMBER', 'The card number is invalid. Please check it.'],
  [518, 'Issue with this transaction; try again', 'decline', true, CUSTOMER_AGAIN, 'GENERIC_DECLINE', 'There was an issue with this payment. Please try again.'],
];

type PayoutRow = [code: PayoutStatusCode, meaning: string, category: CodeCategory, final: boolean, retry: RetryAdvice, reason: ReasonCode | null, tell: string];

const PAYOUT_ROWS: PayoutRow[] = [
  ['P100', 'Payout initiated', 'pending', false, WAIT, null, 'Your payout has been initiated.'],
  ['P101', 'Payout processing', 'pending', false, WAIT, null, 'Your payout is being processed.'],
  ['P200', 'Payout succeeded', 'success', true, { kind: 'never', text: 'Succeeded. Never resend.' }, null, 'Your payout has been sent.'],
  ['C402', 'Invalid or missing required fields in the request', 'validation', true, FIX, 'INVALID_PARAMS', 'Your payout details are incomplete or invalid; we will contact you.'],
  ['C403', 'Merchant payout wallet is missing', 'merchant_setup', true, SETUP, 'NO_ROUTE_AVAILABLE', 'Your payout is delayed by a technical issue on our side.'],
  ['C404', 'Currency not supported for payout', 'merchant_setup', true, SETUP, 'UNSUPPORTED_CURRENCY', 'Payouts in this currency are not available.'],
  ['C405', 'Insufficient balance in the wallet for payout', 'merchant_setup', true, { kind: 'new_attempt', text: 'Top up the payout wallet, then send a new payout.' }, 'INSUFFICIENT_FUNDS', 'Your payout is delayed; we will send it shortly.'],
  ['C501', 'General gateway declined', 'decline', true, { kind: 'new_attempt', text: 'Declined by the gateway; check the details and send a new payout.' }, 'GENERIC_DECLINE', 'Your payout could not be processed; we will contact you.'],
];

type ReasonRow = [code: ReasonCode, meaning: string, category: CodeCategory, final: boolean, retry: RetryAdvice, tell: string];

const GENERIC_TECH = 'A technical error occurred on our side; we are looking into it.';

const REASON_ROWS: ReasonRow[] = [
  ['INVALID_REQUEST', 'The request is malformed or not authorised', 'validation', true, FIX, GENERIC_TECH],
  ['INVALID_OR_EXPIRED_TOKEN', 'The stored card token is unknown, revoked or expired', 'validation', true, { kind: 'new_attempt', text: 'Tokenize the card again, then charge the new token.' }, 'Your saved card can no longer be used. Please enter your card again.'],
  ['INVALID_MERCHANT_JWT', 'The merchant_jwt is malformed, badly signed, stale, replayed or has wrong claims', 'merchant_setup', true, { kind: 'new_attempt', text: 'Sign a fresh JWT (new jti, iat = now) with a registered key.' }, GENERIC_TECH],
  ['INVALID_CHECKSUM', 'The request checksum does not match', 'merchant_setup', true, SETUP, GENERIC_TECH],
  ['INVALID_PARAMS', 'One or more fields have invalid values', 'validation', true, FIX, 'Some details are not valid. Please check them.'],
  ['MISSING_PARAMS', 'One or more required fields are missing', 'validation', true, FIX, 'Some required details are missing.'],
  ['SYSTEM_ERROR', 'Gateway system error', 'system', true, SHORTLY, 'A technical error occurred. Please try again in a few minutes.'],
  ['TRANSIENT_ERROR', 'Temporary condition (rate limit, deposit in progress)', 'system', false, SHORTLY, 'Please try again in a few moments.'],
  ['NO_ROUTE_AVAILABLE', 'No provider route can process this transaction now', 'system', true, CUSTOMER_AGAIN, 'This payment cannot be processed right now. Please try later or use another method.'],
  ['INVALID_SITE', 'merchant_site_id (site_id) does not belong to the merchant', 'merchant_setup', true, SETUP, GENERIC_TECH],
  ['PAYMENT_METHOD_NOT_ENABLED', 'The payment method is not enabled for the site', 'merchant_setup', true, SETUP, 'This payment method is not available. Please choose another.'],
  ['MERCHANT_INACTIVE', 'The merchant account is not active', 'merchant_setup', true, SETUP, 'Payments are temporarily unavailable.'],
  ['UNSUPPORTED_COUNTRY', 'The country is not a supported ISO 3166-1 alpha-3 code', 'validation', true, FIX, 'Payments from your country are not supported.'],
  ['UNSUPPORTED_CURRENCY', 'The currency is not a supported ISO 4217 code', 'validation', true, FIX, 'This currency is not supported.'],
  ['MISSING_PAYMENT_METHOD', 'payment_method is missing', 'validation', true, FIX, 'Please choose a payment method.'],
  ['INVALID_PAYMENT_METHOD', 'payment_method is not a method of this endpoint', 'validation', true, FIX, 'This payment method is not available.'],
  ['INVALID_PAYMENT_METHOD_FOR_PROVIDER', 'The provider does not support this method', 'merchant_setup', true, SETUP, 'This payment method is not available right now.'],
  ['INVALID_CARD_DATA', 'The card data is invalid', 'validation', true, FIX, 'Your card details are not valid. Please check them.'],
  ['INVALID_CVV', 'The CVV is not 3 or 4 digits', 'validation', true, FIX, 'The security code (CVV) is invalid.'],
  ['INVALID_CARD_NUMBER', 'The card number fails Luhn or is not a card number', 'validation', true, FIX, 'The card number is invalid.'],
  ['INVALID_EXPIRY', 'The expiry date is invalid or past', 'validation', true, FIX, 'The card expiry date is invalid or the card has expired.'],
  ['INVALID_CARDHOLDER_NAME', 'The cardholder name has no word', 'validation', true, FIX, 'Please enter the cardholder name as printed on the card.'],
  ['INVALID_ADDRESS', 'The address is invalid', 'validation', true, FIX, 'Your address is not valid. Please check it.'],
  ['INVALID_PHONE', 'The phone number is invalid', 'validation', true, FIX, 'Your phone number is not valid. Please check it.'],
  ['THREE_DS_FAILED', '3-D Secure authentication failed', 'decline', true, CUSTOMER_AGAIN, 'Card authentication failed. Please try again or use another card.'],
  ['USER_ABANDONED', 'The customer left the payment page', 'customer_error', true, CUSTOMER_AGAIN, 'The payment was not completed. You can start a new payment.'],
  ['MISSING_AMOUNT', 'The amount is missing', 'validation', true, FIX, GENERIC_TECH],
  ['INVALID_AMOUNT', 'The amount is not a valid value', 'validation', true, FIX, 'The amount is not valid.'],
  ['AMOUNT_BELOW_MINIMUM', 'The amount is below the minimum', 'validation', true, FIX, 'The amount is below the minimum.'],
  ['INSUFFICIENT_FUNDS', 'Insufficient funds', 'decline', true, CUSTOMER_AGAIN, 'The payment was declined for insufficient funds.'],
  ['RISK_BLOCKED', 'Blocked by a risk decision', 'decline', true, NEVER, 'The payment was declined for security reasons. Please use another payment method.'],
  ['BLACKLISTED_BLOCKED', 'Blocked by a blacklist', 'decline', true, NEVER, 'The payment was declined. Please contact support.'],
  ['BIN_BLACKLISTED', 'The card BIN is blocked', 'decline', true, NEVER, 'This card cannot be used here. Please use another card.'],
  ['EXPIRED_CARD', 'The card has expired', 'decline', true, CUSTOMER_AGAIN, 'Your card has expired. Please use another card.'],
  ['DO_NOT_HONOR', 'The issuer declined (do not honor)', 'decline', true, CUSTOMER_AGAIN, 'Your bank declined the payment. Please contact your bank or use another card.'],
  ['AUTHENTICATION_FAILED', 'Customer authentication failed', 'decline', true, CUSTOMER_AGAIN, 'Authentication failed. Please try again.'],
  ['GENERIC_DECLINE', 'Declined without a specific reason', 'decline', true, CUSTOMER_AGAIN, 'The payment was declined. Please try another card or method.'],
  ['DAILY_LIMIT_EXCEEDED', 'A daily deposit limit was reached', 'customer_error', true, { kind: 'never', text: 'Not again today with this method.' }, 'You have reached a daily limit. Try another method or try again tomorrow.'],
  ['ISSUER_DECLINED_NO_INFO', 'The issuer declined without information', 'decline', true, CUSTOMER_AGAIN, 'Your bank declined the payment. Please contact your bank.'],
  ['RESTRICTED_CARD', 'The card is restricted', 'decline', true, NEVER, 'This card cannot be used for this payment. Please use another card.'],
  ['LOST_OR_STOLEN_CARD', 'The card is reported lost or stolen', 'decline', true, NEVER, 'The payment was declined. Please contact your bank.'],
  ['CARD_LIMIT_EXCEEDED', 'The card limit is exceeded', 'decline', true, CUSTOMER_AGAIN, 'Your card limit is exceeded. Please use another card.'],
  ['CANCELLED_BY_BANK', 'Cancelled by the bank', 'decline', true, CUSTOMER_AGAIN, 'Your bank cancelled the payment. Please contact your bank.'],
  ['DECLINE_LIMIT_EXCEEDED', 'Too many declines for this customer and method', 'customer_error', true, { kind: 'never', text: 'Not again today with this method.' }, 'Too many declined attempts today. Try another method or try again tomorrow.'],
  ['GATEWAY_UNAVAILABLE', 'The gateway or provider is unavailable', 'system', true, SHORTLY, 'Payments are temporarily unavailable. Please try again in a few minutes.'],
  ['GATEWAY_TIMEOUT', 'The provider did not answer in time; the outcome is not known yet', 'system', false, { kind: 'wait', text: 'Outcome unknown: read the status before any new attempt.' }, 'We are still waiting for the result of your payment.'],
];

export const PAYIN_STATUS_CATALOGUE: readonly PayinStatusInfo[] = PAYIN_ROWS.map(
  ([code, meaning, category, final, retry, defaultReason, tellCustomer]) => ({
    known: true, kind: 'payin_status', code, meaning, category, final, retry, defaultReason, tellCustomer,
  }),
);

export const PAYOUT_STATUS_CATALOGUE: readonly PayoutStatusInfo[] = PAYOUT_ROWS.map(
  ([code, meaning, category, final, retry, defaultReason, tellCustomer]) => ({
    known: true, kind: 'payout_status', code, meaning, category, final, retry, defaultReason, tellCustomer,
  }),
);

export const REASON_CATALOGUE: readonly ReasonInfo[] = REASON_ROWS.map(
  ([code, meaning, category, final, retry, tellCustomer]) => ({
    known: true, kind: 'reason', code, meaning, category, final, retry, tellCustomer,
  }),
);

export const PAYIN_STATUS_CODES: readonly number[] = PAYIN_ROWS.map((r) => r[0]);

const payinByCode = new Map(PAYIN_STATUS_CATALOGUE.map((e) => [e.code, e]));
const payoutByCode = new Map<string, PayoutStatusInfo>(PAYOUT_STATUS_CATALOGUE.map((e) => [e.code, e]));
const reasonByCode = new Map<string, ReasonInfo>(REASON_CATALOGUE.map((e) => [e.code, e]));

function unknown(kind: CodeKind, code: string | number): UnknownCodeInfo {
  return {
    known: false,
    kind,
    code,
    meaning: `Unknown code ${String(code)} (not in the catalogue of API v2.0)`,
    category: 'unknown',
    final: false,
    retry: { kind: 'unknown', text: 'Unknown code: read the status and treat the transaction as unresolved.' },
    tellCustomer: 'We are checking the status of your payment.',
  };
}

/** Accepts 200, "200" or anything else; never throws. */
export function describePayinStatus(code: unknown): PayinStatusInfo | UnknownCodeInfo {
  const n = typeof code === 'number' ? code : typeof code === 'string' && /^\d+$/.test(code) ? Number(code) : NaN;
  return payinByCode.get(n) ?? unknown('payin_status', typeof code === 'number' || typeof code === 'string' ? code : String(code));
}

export function describePayoutStatus(code: unknown): PayoutStatusInfo | UnknownCodeInfo {
  const s = typeof code === 'string' ? code : String(code);
  return payoutByCode.get(s) ?? unknown('payout_status', s);
}

/** A status code read in its subject's table: 3.1 for pay-ins, 3.2 for payouts. */
export function describeStatusOf(subject: TransactionSubject, code: unknown): PayinStatusInfo | PayoutStatusInfo | UnknownCodeInfo {
  return subject === 'payin' ? describePayinStatus(code) : describePayoutStatus(code);
}

export function describeReason(code: unknown): ReasonInfo | UnknownCodeInfo {
  const s = typeof code === 'string' ? code : String(code);
  return reasonByCode.get(s) ?? unknown('reason', s);
}

export function isPayinStatusCode(code: unknown): code is number {
  return typeof code === 'number' && payinByCode.has(code);
}

export function isPayoutStatusCode(code: unknown): code is PayoutStatusCode {
  return typeof code === 'string' && payoutByCode.has(code);
}

export function isReasonCode(code: unknown): code is ReasonCode {
  return typeof code === 'string' && reasonByCode.has(code);
}

/** Every catalogue entry, for the code explorer. */
export function allCodes(): readonly (PayinStatusInfo | PayoutStatusInfo | ReasonInfo)[] {
  return [...PAYIN_STATUS_CATALOGUE, ...PAYOUT_STATUS_CATALOGUE, ...REASON_CATALOGUE];
}
