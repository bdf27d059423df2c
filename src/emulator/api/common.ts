// Answers shared by several endpoints.
import type { ValidationResult } from '../../shared/spec/field-rules';
import type { Reply } from '../http/types';
import type { ErrorKey } from './error-codes';
import { apiError, type ApiErrorSpec, type Flavor } from './replies';
import type { ApiDeps } from './context';

export function validationFailed(flavor: Flavor, v: ValidationResult, requestId: unknown): Reply {
  const p = v.primary;
  const fields = Object.keys(v.details);
  return apiError(flavor, {
    http: 400,
    status_code: p?.status_code ?? (flavor === 'payin' ? 512 : 'C402'),
    reason_code: p?.reason_code ?? 'INVALID_PARAMS',
    error: { validation: p?.reason_code ?? 'INVALID_PARAMS' },
    message: `${fields.length} field(s) failed validation: ${fields.join(', ')}`,
    details: v.details,
    request_id: requestId,
  });
}

/** A refusal several endpoints share: its HTTP status, its status_code on each flavour, its reason and error. */
interface SharedRefusal {
  http: number;
  status_code: Record<Flavor, number | string>;
  reason_code: string;
  error: ErrorKey;
}

const SYSTEM_ERROR: SharedRefusal = { http: 500, status_code: { payin: 501, payout: 'C501' }, reason_code: 'SYSTEM_ERROR', error: 'injected_system_error' };
const MERCHANT_INACTIVE: SharedRefusal = { http: 400, status_code: { payin: 514, payout: 'C501' }, reason_code: 'MERCHANT_INACTIVE', error: 'merchant_inactive' };
const METHOD_NOT_ENABLED: SharedRefusal = { http: 400, status_code: { payin: 509, payout: 'C402' }, reason_code: 'PAYMENT_METHOD_NOT_ENABLED', error: 'method_not_enabled' };
// 515 "retry in a few moments" on pay-ins; 3.2 has no such code, so payouts get C501.
const RATE_LIMITED: SharedRefusal = { http: 429, status_code: { payin: 515, payout: 'C501' }, reason_code: 'TRANSIENT_ERROR', error: 'rate_limited' };

function refuse(flavor: Flavor, refusal: SharedRefusal, said: Pick<ApiErrorSpec, 'message' | 'request_id' | 'details' | 'headers'>): Reply {
  return apiError(flavor, { ...refusal, status_code: refusal.status_code[flavor], ...said });
}

/** Admin fault "create_errors": the call fails as a gateway outage would; the key stays free. */
export function injectedSystemError(flavor: Flavor, deps: ApiDeps, requestId: unknown): Reply | undefined {
  if (!deps.faults.takeCreateError()) return undefined;
  return refuse(flavor, SYSTEM_ERROR, { message: 'System error (injected through the admin API); retry with the same Idempotency-Key', request_id: requestId });
}

/** Merchant switched off through the admin API (514). */
export function merchantInactive(flavor: Flavor, deps: ApiDeps, requestId: unknown): Reply | undefined {
  if (deps.merchant.settings.active) return undefined;
  return refuse(flavor, MERCHANT_INACTIVE, { message: 'Merchant not active; contact support', request_id: requestId });
}

/** Method disabled for the site through the admin API (509). */
export function methodDisabled(flavor: Flavor, deps: ApiDeps, method: string, field: string, requestId: unknown): Reply | undefined {
  if (!deps.merchant.settings.disabled_methods.includes(method)) return undefined;
  return refuse(flavor, METHOD_NOT_ENABLED, { message: `Payment method ${method} is not enabled for this site`, details: { [field]: 'is not enabled for this site' }, request_id: requestId });
}

export function rateLimited(flavor: Flavor, deps: ApiDeps, kind: 'payin' | 'payout'): Reply | undefined {
  const forced = deps.faults.takeForcedRateLimit();
  const r = forced ? { ok: false as const, retryAfterSeconds: 1 } : deps.limiter.take(deps.merchant.id, kind);
  if (r.ok) return undefined;
  return refuse(flavor, RATE_LIMITED, {
    message: `Status reads are limited to ${deps.limiter.limit.burst} at once, refilled at ${deps.limiter.limit.refillPerSecond}/s; retry after ${r.retryAfterSeconds} s`,
    headers: { 'retry-after': String(r.retryAfterSeconds) },
  });
}

export const str = (v: unknown): string => (typeof v === 'string' ? v : '');
