// The six endpoints of spec section 4 under /api/v2, all POST + JSON.
import type { Router } from '../http/router';
import type { IdempotencyGate } from '../domain/idempotency-gate';
import type { ApiDeps } from './context';
import { endpoint, type EndpointSpec } from './pipeline';
import { createPayin, payinStatus } from './payin-endpoints';
import { createPayout, payoutStatus } from './payout-endpoints';
import { createTokenCharge, createTokenization } from './token-endpoints';

export const API_PREFIX = '/api/v2';

export function registerApi(router: Router, deps: ApiDeps, gate: IdempotencyGate): void {
  const endpoints: EndpointSpec[] = [
    { name: '/payment/create', flavor: 'payin', create: true, handle: createPayin(deps) },
    { name: '/payment/get-status', flavor: 'payin', create: false, handle: payinStatus(deps) },
    { name: '/payment/create/tokenization', flavor: 'payin', create: true, handle: createTokenization(deps) },
    { name: '/payment/create/token', flavor: 'payin', create: true, handle: createTokenCharge(deps) },
    { name: '/payouts/create', flavor: 'payout', create: true, handle: createPayout(deps) },
    { name: '/payouts/get-status', flavor: 'payout', create: false, handle: payoutStatus(deps) },
  ];
  for (const spec of endpoints) {
    router.add('POST', `${API_PREFIX}${spec.name}`, endpoint(spec, { merchant: deps.merchant, gate }));
  }
}
