// The one masker of card data and secrets, for everything kept (ledger, logs) and everything shown
// or exported (views, timeline, CSV files, the evidence pack, decoded JWTs). PRODUCT.md
// capability 3: a masked PAN at most (first 6 / last 4), never a CVV.
//
// JSON is masked by field: the fields that carry a card number (cardNum, cardholder_number, …)
// are masked whatever they hold; CVV, merchant_jwt (its payload carries the card in clear base64)
// and credentials are replaced by a marker; identifiers, references, keys and amounts are kept
// byte for byte. Everything else gets the safety net: a whole value that is a card number, or a
// card number standing as a word of its own inside text, is masked (inside any text when shown or
// exported, inside free-text fields when a request is stored). A digit run that touches
// a letter, a digit, '_', '-', '+' or a decimal point is part of something else (a UUID, an order
// reference, a phone number, an amount) and never a card number to the net.
import luhn10 from 'card-validator/dist/luhn-10.js';
import { isJsonObject, isLosslessNumber, stringifyJson } from './json';

export const REDACTED = '[redacted]';
/** What stands for a value nested deeper than anything Paydesk or the gateway writes. */
export const TOO_DEEP = '[nested too deep]';
const MAX_DEPTH = 64;

const CARD_NUMBER_KEYS = /^(cardnum|card_?number|cardholder_number|pan)$/i;
const SECRET_KEYS = /cvv|cvc|cvn|csc|^merchant_jwt$|^merchant[-_]?token$|^private_?(key|jwk)$|^password$|^secret$/i;
/**
 * Names of identifiers, references, idempotency keys, hashes and amounts (request_id, payinId,
 * merchantReference, idempotencyKey, tokenRef, amount, …): their values are exact data that
 * exports must keep byte for byte, and a reference made of digits is still a reference.
 */
const EXACT_KEYS = /^(id|[a-z][A-Za-z_]*(_id|Id)|([a-z][A-Za-z_]*)?[rR]eference|[a-z][A-Za-z_]*(Ref|_ref)|idempotency_?[kK]ey|error_?[cC]ode|[a-z][A-Za-z_]*(Hash|_hash|Sha256)|([a-z][A-Za-z_]*)?([aA]mount|_amount))$/;
/** Fields a person types words into, where a card number can end up inside the text ("Ana 4111 1111 …"). */
const FREE_TEXT_KEYS = /^(first_?name|last_?name|name|address|city|state|zip_?code|card_?holder|account_?holder|cardholder_name|description|notes?|message|comment|detail|error|reason)$/i;

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

/** Digits with single spaces or dashes between them, as long as they go (linear: no lookaround, no backtracking). */
const DIGIT_RUN = /\d(?:[ -]?\d)*/g;

/** A run touching this before it is glued to a word: a letter, digit, '_', '+' or '-'. */
const GLUED_BEFORE = /[\w+-]/;
/** A run touching this after it is glued to a word: a letter, digit, '_' or '-'. */
const GLUED_AFTER = /[\w-]/;

/**
 * The card numbers of one run of digit groups ("1 4111 1111 1111 1111"): the longest slices of
 * whole groups, 13-19 digits, passing Luhn, left to right. A slice must stand apart at both ends:
 * at a space inside the run, or at a run end that is not glued ("12-4111…" is one word).
 */
function maskRun(run: string, gluedStart: boolean, gluedEnd: boolean): string {
  const parts = run.split(/([ -])/); // digit groups at even indexes, separators between
  const last = parts.length - 1;
  let out = '';
  let i = 0;
  while (i <= last) {
    let found = -1;
    let pan = '';
    const startsApart = i === 0 ? !gluedStart : parts[i - 1] === ' ';
    let digits = '';
    for (let j = i; startsApart && j <= last && digits.length + (parts[j] as string).length <= 19; j += 2) {
      digits += parts[j] as string;
      const endsApart = j === last ? !gluedEnd : parts[j + 1] === ' ';
      if (digits.length >= 13 && endsApart && luhn10(digits)) [found, pan] = [j, digits];
    }
    if (found >= 0) {
      out += maskPan(pan) + (parts[found + 1] ?? '');
      i = found + 2;
    } else {
      out += (parts[i] as string) + (parts[i + 1] ?? '');
      i += 2;
    }
  }
  return out;
}

/**
 * The safety net for text: masks every card number (13-19 digits, single spaces or dashes
 * between them, passing Luhn) that stands as a word of its own. A run glued to a letter, digit,
 * '_', '-' or '+', or the integer or fraction part of a decimal number ("1234567890123.45"), is
 * part of something else (a UUID, "order-4111…", a phone number, an amount) and kept. A comma is
 * a separator, never a decimal point here: in "4111…1111,5555…4444" both are card numbers.
 */
export function maskPansIn(text: string): string {
  return text.replace(DIGIT_RUN, (run: string, offset: number) => {
    const before = text[offset - 1] ?? '';
    const after = text[offset + run.length] ?? '';
    const gluedStart = GLUED_BEFORE.test(before) || (before === '.' && /\d/.test(text[offset - 2] ?? ''));
    const gluedEnd = GLUED_AFTER.test(after) || (after === '.' && /\d/.test(text[offset + run.length + 1] ?? ''));
    return maskRun(run, gluedStart, gluedEnd);
  });
}

/** True when the text holds a card number the safety net would mask. */
export function holdsPan(text: string): boolean {
  return maskPansIn(text) !== text;
}

/**
 * An integer of 13-19 digits passing Luhn, written as a JSON number. A JS number beyond 2^53 has
 * lost its last digits (JSON.parse rounded it), so it cannot be cleared and counts as one.
 */
function numberIsPan(value: number | { value: string }): boolean {
  if (typeof value !== 'number') return looksLikePan(value.value);
  if (!Number.isInteger(value)) return false;
  const digits = Math.abs(value).toFixed(0);
  return digits.length >= 13 && (!Number.isSafeInteger(value) || looksLikePan(digits));
}

/**
 * Where the safety net looks inside text: 'display' (views, exports) in every string that is not
 * an exact field; 'storage' (what the ledger keeps of a request) only in free-text fields, so a
 * URL or an unknown field of a request stays exactly as sent and the request replayable.
 */
type Scope = 'display' | 'storage';

function redactValue(value: unknown, key: string, depth: number, scope: Scope): unknown {
  if (depth > MAX_DEPTH) return TOO_DEEP;
  if (key !== '' && SECRET_KEYS.test(key)) return REDACTED;
  if (key !== '' && CARD_NUMBER_KEYS.test(key)) return typeof value === 'string' ? maskPan(value) : REDACTED;
  const exact = key !== '' && EXACT_KEYS.test(key);
  if (typeof value === 'string') {
    if (exact) return value;
    if (looksLikePan(value)) return maskPan(value);
    return scope === 'display' || FREE_TEXT_KEYS.test(key) ? maskPansIn(value) : value;
  }
  if (typeof value === 'number' || isLosslessNumber(value)) {
    return !exact && numberIsPan(value) ? maskPan(typeof value === 'number' ? Math.abs(value).toFixed(0) : value.value) : value;
  }
  if (Array.isArray(value)) return value.map((inner) => redactValue(inner, '', depth + 1, scope));
  if (!isJsonObject(value)) return value;
  // fromEntries defines own properties, so a "__proto__" key stays data and never becomes a prototype.
  return Object.fromEntries(Object.entries(value).map(([k, inner]) => [maskPansIn(k), redactValue(inner, k, depth + 1, scope)]));
}

/** A deep copy of a JSON value fit to show or export; the input is not modified. */
export function redact(value: unknown): unknown {
  return redactValue(value, '', 0, 'display');
}

/** A deep copy of a JSON value fit for the ledger (requests, audit details); the input is not modified. */
export function redactForStorage(value: unknown): unknown {
  return redactValue(value, '', 0, 'storage');
}

export interface SanitizedRequest {
  body: Record<string, unknown>;
  /** True when nothing was removed: the kept body is the exact request and can be re-sent. */
  replayable: boolean;
}

/** A copy of a request body that is safe to store and show. */
export function sanitizeRequest(body: object): SanitizedRequest {
  const sanitized = redactForStorage(body) as Record<string, unknown>;
  return { body: sanitized, replayable: stringifyJson(sanitized) === stringifyJson(body) };
}
