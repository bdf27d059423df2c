// Builders for the answers of the V2 API: the error shape of spec 2.3 (also used for payout
// errors, always with a C-code: PRODUCT.md pins that shape), and exact JSON for successes.
import { stringifyJson } from '../../shared/json';
import { JSON_TYPE, type Reply } from '../http/types';
import { ERROR_CODES, validationErrorCode, type ErrorKey } from './error-codes';

export type Flavor = 'payin' | 'payout';

export interface ApiErrorSpec {
  http: number;
  status_code?: number | string;
  reason_code: string;
  /** A key of ERROR_CODES, or a reason code for field validation errors. */
  error: ErrorKey | { validation: string };
  message: string;
  request_id?: unknown;
  payin_id?: string | null;
  details?: Record<string, string>;
  headers?: Record<string, string>;
}

/**
 * The C-code of a payout error whose caller names none. Section 3.2 has no code for
 * "unauthorised", "slow down" or "server error": the gateway declining the call is C501 (general
 * gateway declined); a request that is itself wrong (unknown path, verb, size, protocol) is C402.
 */
export function payoutErrorCode(http: number): 'C402' | 'C501' {
  return http === 401 || http === 429 || http >= 500 ? 'C501' : 'C402';
}

export function apiError(flavor: Flavor, e: ApiErrorSpec): Reply {
  const error_code = typeof e.error === 'string' ? ERROR_CODES[e.error][0] : validationErrorCode(e.error.validation);
  const status_code = e.status_code ?? (flavor === 'payout' ? payoutErrorCode(e.http) : undefined);
  const body: Record<string, unknown> = {
    status: 'error',
    ...(status_code !== undefined ? { status_code } : {}),
    reason_code: e.reason_code,
    error_code,
    request_id: typeof e.request_id === 'string' ? e.request_id : null,
    message: e.message,
  };
  if (flavor === 'payin') body.payin_id = e.payin_id ?? null;
  if (e.details && Object.keys(e.details).length > 0) body.details = e.details;
  return { status: e.http, body: stringifyJson(body), contentType: JSON_TYPE, ...(e.headers ? { headers: e.headers } : {}) };
}

export function ok(body: unknown): Reply {
  return { status: 200, body: stringifyJson(body), contentType: JSON_TYPE };
}

/** A flat answer without amounts: strings, numbers, nulls (an undefined value is left out). */
export type PlainAnswer = Readonly<Record<string, string | number | null | undefined>>;

/** As `ok`, byte for byte (stringifyJson writes these values with JSON.stringify), in a fraction of its time. */
export function okPlain(body: PlainAnswer): Reply {
  return { status: 200, body: JSON.stringify(body), contentType: JSON_TYPE };
}

/** The status_code an API error carries on each flavour when the request itself is wrong. */
export const BAD_REQUEST_CODE: Record<Flavor, number | string> = { payin: 512, payout: 'C402' };
