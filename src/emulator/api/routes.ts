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
  const routes: [string, Omit<EndpointSpec, 'name'>][] = [
    ['/payment/create', { flavor: 'payin', create: true, handle: createPayin(deps) }],
    ['/payment/get-status', { flavor: 'payin', create: false, handle: payinStatus(deps) }],
    ['/payment/create/tokenization', { flavor: 'payin', create: true, handle: createTokenization(deps) }],
    ['/payment/create/token', { flavor: 'payin', create: true, handle: createTokenCharge(deps) }],
    ['/payouts/create', { flavor: 'payout', create: true, handle: createPayout(deps) }],
    ['/payouts/get-status', { flavor: 'payout', create: false, handle: payoutStatus(deps) }],
  ];
  for (const [path, spec] of routes) {
    router.add('POST', `${API_PREFIX}${path}`, endpoint({ ...spec, name: path }, { merchant: deps.merchant, gate }));
  }
}
