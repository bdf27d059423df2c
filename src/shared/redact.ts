// What of a request, a notification or an audit entry may be kept (ledger, logs, timeline, the
// renderer): card numbers masked to first 6 / last 4, and CVV, merchant_jwt (its payload carries
// the card in clear base64) and credentials replaced by a marker. A card number typed into the
// wrong field is masked too. PRODUCT.md capability 3: a masked PAN at most, never a CVV.
import luhn10 from 'card-validator/dist/luhn-10.js';
import { isJsonObject, stringifyJson } from './json';

export const REDACTED = '[redacted]';

const CARD_NUMBER_KEYS = /^(cardnum|cardnumber|cardholder_number|pan)$/i;
const SECRET_KEYS = /cvv|cvc|cvn|csc|^merchant_jwt$|^merchant[-_]?token$|^private_?(key|jwk)$|^password$|^secret$/i;

/**
 * First 6 and last 4 digits, the rest as "*"; numbers too short to keep both are fully masked.
 * An already masked number is returned unchanged, so redacting twice gives the same text (and
 * the same request hash).
 */
export function maskPan(value: string): string {
  if (/^\d{6}\*{3,9}\d{4}$/.test(value)) return value;
  const digits = value.replace(/[\s-]/g, '');
  if (!/^\d+$/.test(digits) || digits.length < 13) return '*'.repeat(Math.min(value.length, 19));
  return `${digits.slice(0, 6)}${'*'.repeat(digits.length - 10)}${digits.slice(-4)}`;
}

/** 13-19 digits (spaces and dashes allowed) passing Luhn: a card number, whatever its field. */
export function looksLikePan(value: string): boolean {
  const digits = value.replace(/[\s-]/g, '');
  return /^\d{13,19}$/.test(digits) && luhn10(digits);
}

/** Fields a person types words into, where a card number can end up inside the text ("Ana 4111 1111 …"). */
const FREE_TEXT_KEYS = /^(first_?name|last_?name|name|address|city|state|zip_?code|card_?holder|account_?holder|cardholder_name|description|notes?|message|comment)$/i;
/** 13-19 digits (single spaces or dashes between them) standing apart from other words. */
const DIGIT_RUN = /(?<![\w+])\d(?:[ -]?\d){12,18}(?!\w)/g;

/** Masks every card number inside a free text; identifiers, phone numbers and addresses of other kinds are left alone. */
export function maskPansIn(text: string): string {
  return text.replace(DIGIT_RUN, (run) => (looksLikePan(run) ? maskPan(run) : run));
}

function redactValue(value: unknown, key: string): unknown {
  if (key !== '' && SECRET_KEYS.test(key)) return REDACTED;
  if (key !== '' && CARD_NUMBER_KEYS.test(key)) return typeof value === 'string' ? maskPan(value) : REDACTED;
  if (typeof value === 'string') return looksLikePan(value) ? maskPan(value) : FREE_TEXT_KEYS.test(key) ? maskPansIn(value) : value;
  if (Array.isArray(value)) return value.map((inner) => redactValue(inner, ''));
  if (!isJsonObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, inner]) => [k, redactValue(inner, k)]));
}

/** A deep copy of a JSON value fit for storage and display; the input is not modified. */
export function redact(value: unknown): unknown {
  return redactValue(value, '');
}

export interface SanitizedRequest {
  body: Record<string, unknown>;
  /** True when nothing was removed: the kept body is the exact request and can be re-sent. */
  replayable: boolean;
}

/** A copy of a request body that is safe to store and show. */
export function sanitizeRequest(body: object): SanitizedRequest {
  const sanitized = redact(body) as Record<string, unknown>;
  return { body: sanitized, replayable: stringifyJson(sanitized) === stringifyJson(body) };
}
