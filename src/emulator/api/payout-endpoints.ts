// POST /payouts/create and POST /payouts/get-status. Errors use the shape of 2.3 with a C-code.
import { checkAmount } from '../../shared/money';
import { isJsonObject } from '../../shared/json';
import { amountScale } from '../../shared/spec/methods';
import { validatePayoutCreate, validatePayoutStatusRead } from '../../shared/spec/field-rules';
import type { Commit, EndpointResult } from './pipeline';
import type { NewPayout } from '../domain/payout-service';
import { apiError, ok, okPlain } from './replies';
import type { ApiDeps } from './context';
import { injectedSystemError, merchantInactive, methodDisabled, rateLimited, str, validationFailed } from './common';

const maskEnd = (s: string, keep: number): string => (s.length <= keep ? '*'.repeat(s.length) : `${'*'.repeat(s.length - keep)}${s.slice(-keep)}`);

/** What the admin view may show of a payout's destination: nothing that could move money. */
export function maskDestination(details: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = { method: str(details.method) };
  const s = (k: string): string => str(details[k]);
  switch (details.method) {
    case 'credit_card':
      return { ...out, card: `${s('cardNum').slice(0, 6)}${'*'.repeat(Math.max(0, s('cardNum').length - 10))}${s('cardNum').slice(-4)}`, cardHolder: s('cardHolder') };
    case 'open_banking':
      return { ...out, iban: `${s('iban').replace(/\s/g, '').slice(0, 4)}…${s('iban').slice(-4)}`, bic: s('bic'), accountHolder: s('accountHolder') };
    case 'crypto':
      return { ...out, walletAddress: s('walletAddress'), network: s('network') };
    case 'fps':
      return { ...out, sortCode: s('sortCode'), accountNumber: maskEnd(s('accountNumber'), 4), accountHolder: s('accountHolder') };
    default:
      return out;
  }
}

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
      destination: maskDestination(isJsonObject(body.paymentDetails) ? body.paymentDetails : {}),
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
    const record = deps.payoutRepo.byId(str(body.payout_id));
    if (!record || record.merchant_id !== deps.merchant.id) {
      return apiError('payout', { http: 400, status_code: 'C402', reason_code: 'INVALID_PARAMS', error: 'unknown_payout', message: 'No payout of this merchant has this payout_id', details: { payout_id: 'no such payout' } });
    }
    return ok(deps.payouts.view(record));
  };
}
