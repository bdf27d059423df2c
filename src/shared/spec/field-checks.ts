// Value checks named by the field-rule tables. Each returns null when the value is fine, or a
// short message ("must be ...") that becomes the field's entry in `details`.
import cardValidator from 'card-validator';
import luhn10 from 'card-validator/dist/luhn-10.js';
import currencyCodes from 'currency-codes';
// The package's Node entry registers the country names of ~80 languages (35 ms of CPU and 8 MB at start-up);
// only the codes are needed, which its core (also its browser entry) holds.
import countries from 'i18n-iso-countries/index.js';
import { checkAmount } from '../money';
import { amountScale, CRYPTO_AMOUNT_SCALE, isPayinMethod, isPayoutMethod } from './methods';

export interface CheckContext {
  /** The object that holds the field (for paired fields such as expiry month/year). */
  parent: Record<string, unknown>;
  /** The method that decides conditional fields and amount scale, when it is a valid one. */
  method: string | undefined;
  /** The merchant's site id; when given, the site field must equal it. */
  siteId: string | undefined;
  /** Allowed values for enum checks. */
  values: readonly string[] | undefined;
  /** Current time in ms (expiry, birth date). */
  now: number;
}

export type CheckName =
  | 'text'
  | 'reference'
  | 'site'
  | 'enum'
  | 'same_method'
  | 'amount'
  | 'currency'
  | 'country'
  | 'email'
  | 'uri'
  | 'ip'
  | 'phone'
  | 'birth_date'
  | 'card_number'
  | 'card_holder'
  | 'exp_month'
  | 'exp_year'
  | 'cvv'
  | 'consent'
  | 'jwt'
  | 'iban'
  | 'bic'
  | 'sort_code'
  | 'account_number'
  | 'wallet_address'
  | 'uuid'
  | 'object';

type Check = (value: unknown, ctx: CheckContext) => string | null;

/** The longest text field, references (request_id, merchantReference) included. */
export const MAX_TEXT = 255;
/** Card expiry more than this many years ahead is not a real card. */
export const MAX_EXPIRY_YEARS_AHEAD = 20;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** C0 controls and DEL. Per code unit: half of a surrogate pair is never one of them. */
function hasControlCharacter(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const code = s.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

function textCheck(value: unknown): string | null {
  const s = str(value);
  if (s.length > MAX_TEXT) return `must be at most ${MAX_TEXT} characters`;
  // Control characters have no place in names or addresses and break logs and CSV exports.
  if (hasControlCharacter(s)) return 'must not contain control characters';
  return null;
}

function isIpv4(s: string): boolean {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  return m !== null && m.slice(1).every((p) => Number(p) <= 255 && (p === '0' || !p.startsWith('0')));
}

function isIpv6(s: string): boolean {
  if (!s.includes(':') || !/^[0-9A-Fa-f:.]+$/.test(s)) return false;
  try {
    // The WHATWG URL parser validates IPv6 literals the same way in Node and the browser.
    return new URL(`http://[${s}]/`).hostname.length > 2;
  } catch {
    return false;
  }
}

/** ISO 7064 mod 97-10, the IBAN check digits. */
function ibanChecksumOk(iban: string): boolean {
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let rest = 0;
  for (const ch of rearranged) {
    const digits = /[A-Z]/.test(ch) ? String(ch.charCodeAt(0) - 55) : ch;
    for (const d of digits) rest = (rest * 10 + Number(d)) % 97;
  }
  return rest === 1;
}

function expiryYearCheck(value: unknown, ctx: CheckContext): string | null {
  const s = str(value);
  if (!/^\d{4}$/.test(s)) return 'must be four digits (YYYY)';
  const thisYear = new Date(ctx.now).getUTCFullYear();
  if (Number(s) > thisYear + MAX_EXPIRY_YEARS_AHEAD) return `must be at most ${MAX_EXPIRY_YEARS_AHEAD} years ahead`;
  return null;
}

/** True when month/year (strings "MM", "YYYY") is before the current month (UTC). */
export function isExpired(month: string, year: string, now: number): boolean {
  const d = new Date(now);
  const current = d.getUTCFullYear() * 12 + d.getUTCMonth();
  return Number(year) * 12 + (Number(month) - 1) < current;
}

/** The card brand (visa, mastercard, ...) from the number, or "unknown". */
export function cardBrand(cardNumber: string): string {
  return cardValidator.number(cardNumber).card?.type ?? 'unknown';
}

export const CHECKS: Readonly<Record<CheckName, Check>> = {
  text: textCheck,
  reference: textCheck,
  object: () => null,
  site: (v, ctx) => textCheck(v) ?? (ctx.siteId !== undefined && v !== ctx.siteId ? 'is not a site of this merchant' : null),
  enum: (v, ctx) => (ctx.values?.includes(str(v)) ? null : `must be one of: ${(ctx.values ?? []).join(', ')}`),
  same_method: (v, ctx) => (v === ctx.method || ctx.method === undefined ? null : 'must equal the top-level method'),
  amount: (v, ctx) => {
    // Without a valid method the scale is unknown; the method's own issue is reported instead.
    const known = ctx.method !== undefined && (isPayinMethod(ctx.method) || isPayoutMethod(ctx.method));
    const r = checkAmount(v, known ? amountScale(ctx.method as string) : CRYPTO_AMOUNT_SCALE);
    return r.ok ? null : r.message;
  },
  currency: (v) => (/^[A-Z]{3}$/.test(str(v)) && currencyCodes.code(str(v)) ? null : 'must be an ISO 4217 currency code'),
  country: (v) => (/^[A-Z]{3}$/.test(str(v)) && countries.alpha3ToAlpha2(str(v)) ? null : 'must be an ISO 3166-1 alpha-3 country code'),
  email: (v) => (str(v).length <= 254 && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(str(v)) ? null : 'must be an e-mail address'),
  uri: (v) => {
    const s = str(v);
    if (s.length > 2048 || /\s/.test(s)) return 'must be an absolute http(s) URL';
    try {
      const u = new URL(s);
      return u.protocol === 'http:' || u.protocol === 'https:' ? null : 'must be an absolute http(s) URL';
    } catch {
      return 'must be an absolute http(s) URL';
    }
  },
  ip: (v) => (isIpv4(str(v)) || isIpv6(str(v)) ? null : 'must be an IPv4 or IPv6 address'),
  phone: (v) => (/^\+[1-9]\d{6,14}$/.test(str(v).replace(/[\s\-().]/g, '')) ? null : 'must be an international number with a leading +'),
  birth_date: (v, ctx) => {
    const s = str(v);
    const d = /^\d{4}-\d{2}-\d{2}$/.test(s) ? new Date(`${s}T00:00:00Z`) : undefined;
    if (!d || Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== s) return 'must be a date YYYY-MM-DD';
    if (d.getTime() > ctx.now) return 'must be in the past';
    if (d.getUTCFullYear() < 1900) return 'must be after 1900';
    return null;
  },
  card_number: (v) => (/^\d{12,19}$/.test(str(v)) && luhn10(str(v)) ? null : 'must be 12 to 19 digits passing the Luhn check'),
  card_holder: (v) => textCheck(v) ?? (/\p{L}{1,}/u.test(str(v)) ? null : 'must contain at least one word'),
  exp_month: (v) => (/^(0[1-9]|1[0-2])$/.test(str(v)) ? null : 'must be two digits 01-12'),
  exp_year: expiryYearCheck,
  cvv: (v) => (/^\d{3,4}$/.test(str(v)) ? null : 'must be 3 or 4 digits'),
  consent: (v) => (v === true ? null : 'must be true'),
  jwt: (v) => (str(v).length <= 16_384 && /^[\w-]+\.[\w-]+\.[\w-]+$/.test(str(v)) ? null : 'must be a compact JWS (header.payload.signature)'),
  iban: (v) => {
    const s = str(v).replace(/\s/g, '');
    return /^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(s) && ibanChecksumOk(s) ? null : 'must be a valid IBAN';
  },
  bic: (v) => (/^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(str(v)) ? null : 'must be a BIC of 8 or 11 characters'),
  sort_code: (v) => (/^\d{6}$/.test(str(v)) ? null : 'must be 6 digits'),
  account_number: (v) => (/^\d{8}$/.test(str(v)) ? null : 'must be 8 digits'),
  wallet_address: (v) => (/^[A-Za-z0-9:_-]{20,128}$/.test(str(v)) ? null : 'must be 20 to 128 letters, digits, ":", "_" or "-"'),
  uuid: (v) => (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(str(v)) ? null : 'must be a UUID'),
};
