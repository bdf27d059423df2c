// POST /payouts/create and POST /payouts/get-status. Errors use the shape of 2.3 with a C-code.
import { checkAmount } from '../../shared/money';
import { isJsonObject } from '../../shared/json';
import { maskedDetails } from '../../shared/payout-destination';
import { amountScale } from '../../shared/spec/methods';
import { validatePayoutCreate, validatePayoutStatusRead } from '../../shared/spec/field-rules';
import type { Commit, EndpointResult } from './pipeline';
import type { NewPayout } from '../domain/payout-service';
import { apiError, ok, okPlain } from './replies';
import type { ApiDeps } from './context';
import { injectedSystemError, merchantInactive, methodDisabled, rateLimited, str, validationFailed } from './common';

export function createPayout(deps: ApiDeps) {
  return (body: Record<string, unknown>): EndpointResult | Commit => {
    const early = injectedSystemError('payout', deps, body.merchantReference) ?? merchantInactive('payout', deps, body.merchantReference);
    if (early) return early;
    const v = validatePayoutCreate(body, { now: deps.clock.now(), siteId: deps.merchant.siteId });
    if (!v.ok) return validationFailed('payout', v, body.merchantReference);
    const disabled = methodDisabled('payout', deps, str(body.method), 'method', body.merchantReference);
    if (disabled) return disabled;
    const method = str(body.method);
    const amount = checkAmount(body.amount, amountScale(method));
    const customer = isJsonObject(body.customer) ? body.customer : {};
    const input: NewPayout = {
      merchant_id: deps.merchant.id,
      merchant_reference: str(body.merchantReference),
      method,
      amount: amount.ok ? amount.value : '0',
      currency: str(body.currency),
      email: str(customer.email),
      notification_url: str(body.notificationUrl),
      // What the admin view may show of it: nothing that could move money, masked as Paydesk masks it.
      destination: { method, ...maskedDetails(method, isJsonObject(body.paymentDetails) ? body.paymentDetails : {}) },
    };
    return () => ({ ...okPlain(deps.payouts.createResponse(deps.payouts.create(input))), bind: true });
  };
}

export function payoutStatus(deps: ApiDeps) {
  return (body: Record<string, unknown>): EndpointResult => {
    const limited = rateLimited('payout', deps, 'payout');
    if (limited) return limited;
    const v = validatePayoutStatusRead(body);
    if (!v.ok) return validationFailed('payout', v, undefined);
    // By payout_id; else by merchantReference (our extension: how a payout whose create answer was lost is found).
    const field = str(body.payout_id) !== '' ? 'payout_id' : 'merchantReference';
    const record = field === 'payout_id' ? deps.payoutRepo.byId(str(body.payout_id)) : deps.payoutRepo.latestByMerchantReference(deps.merchant.id, str(body.merchantReference));
    if (!record || record.merchant_id !== deps.merchant.id) {
      return apiError('payout', { http: 400, status_code: 'C402', reason_code: 'INVALID_PARAMS', error: 'unknown_payout', message: `No payout of this merchant has this ${field}`, details: { [field]: 'no such payout' } });
    }
    return ok(deps.payouts.view(record));
  };
}
