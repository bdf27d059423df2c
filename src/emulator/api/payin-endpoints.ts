// POST /payment/create and POST /payment/get-status.
import { checkAmount } from '../../shared/money';
import { amountScale } from '../../shared/spec/methods';
import { validatePayinCreate, validatePayinStatusRead } from '../../shared/spec/field-rules';
import type { Request } from '../http/types';
import type { NewPayin } from '../domain/payin-service';
import type { PayinRecord, PayinUrls } from '../store/payins';
import type { Commit, EndpointResult } from './pipeline';
import { apiError, ok, okPlain } from './replies';
import type { ApiDeps } from './context';
import { injectedSystemError, merchantInactive, methodDisabled, rateLimited, str, validationFailed } from './common';

/** The pay-in fields common to the three create endpoints, taken from a validated body. */
export function payinInput(body: Record<string, unknown>, merchantId: string, kind: NewPayin['kind']): Omit<NewPayin, 'card' | 'token'> {
  const method = str(body.payment_method);
  const amount = checkAmount(body.amount, amountScale(method));
  const urls: PayinUrls = {
    notification_link: str(body.notification_link),
    success_url: str(body.success_url),
    pending_url: str(body.pending_url),
    fail_url: str(body.fail_url),
    back_url: str(body.back_url),
  };
  if (kind === 'tokenization') urls.tokenization_notification_url = str(body.tokenization_notification_url);
  return {
    merchant_id: merchantId,
    request_id: str(body.request_id),
    kind,
    payment_method: method,
    amount: amount.ok ? amount.value : '0',
    currency: str(body.currency),
    email: str(body.email),
    country: str(body.country),
    urls,
  };
}

export function duplicateRequestId(requestId: string): EndpointResult {
  return apiError('payin', {
    http: 400,
    status_code: 512,
    reason_code: 'INVALID_PARAMS',
    error: 'duplicate_request_id',
    message: 'request_id was already used for another pay-in; use a unique reference per attempt',
    details: { request_id: 'already used by another pay-in' },
    request_id: requestId,
  });
}

/** Checks shared by the three create endpoints after field validation. */
export function payinPreconditions(deps: ApiDeps, body: Record<string, unknown>): EndpointResult | undefined {
  return methodDisabled('payin', deps, str(body.payment_method), 'payment_method', body.request_id);
}

/** Writes the pay-in; the answer of 2.2 binds the key, a request_id already taken does not. */
export function insertPayin(deps: ApiDeps, input: NewPayin, origin: string): EndpointResult {
  const record = deps.payins.create(input, origin);
  if (!record) return duplicateRequestId(input.request_id);
  return { ...okPlain(deps.payins.createResponse(record)), bind: true };
}

export function createPayin(deps: ApiDeps) {
  return (body: Record<string, unknown>, req: Request): EndpointResult | Commit => {
    const early = injectedSystemError('payin', deps, body.request_id) ?? merchantInactive('payin', deps, body.request_id);
    if (early) return early;
    const v = validatePayinCreate(body, { now: deps.clock.now(), siteId: deps.merchant.siteId });
    if (!v.ok) return validationFailed('payin', v, body.request_id);
    const refused = payinPreconditions(deps, body);
    if (refused) return refused;
    const input: NewPayin = { ...payinInput(body, deps.merchant.id, 'payin'), card: null, token: null };
    return () => insertPayin(deps, input, req.origin);
  };
}

export function payinStatus(deps: ApiDeps) {
  return (body: Record<string, unknown>): EndpointResult => {
    const limited = rateLimited('payin', deps, 'payin');
    if (limited) return limited;
    const v = validatePayinStatusRead(body);
    if (!v.ok) return validationFailed('payin', v, body.request_id);
    const byId = typeof body.payin_id === 'string' ? deps.payinRepo.byId(body.payin_id) : undefined;
    let record: PayinRecord | undefined = byId?.merchant_id === deps.merchant.id ? byId : undefined;
    if (typeof body.payin_id !== 'string') record = deps.payinRepo.byRequestId(deps.merchant.id, str(body.request_id));
    if (record && typeof body.request_id === 'string' && record.request_id !== body.request_id) record = undefined;
    if (!record) {
      return apiError('payin', {
        http: 400,
        status_code: 512,
        reason_code: 'INVALID_PARAMS',
        error: 'unknown_payin',
        message: 'No pay-in of this merchant matches the payin_id / request_id',
        details: typeof body.payin_id === 'string' ? { payin_id: 'no such pay-in' } : { request_id: 'no such pay-in' },
        request_id: body.request_id,
        payin_id: null,
      });
    }
    return ok(deps.payins.view(record));
  };
}
