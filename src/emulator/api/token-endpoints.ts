// POST /payment/create/tokenization and POST /payment/create/token. Card data arrives only in
// merchant_jwt; the emulator keeps brand, first 6, last 4 and expiry, never the number or CVV.
import { validateTokenChargeCreate, validateTokenizationCreate } from '../../shared/spec/field-rules';
import { cardBrand, isExpired } from '../../shared/spec/field-checks';
import type { Request } from '../http/types';
import type { JwtFailure } from '../domain/jwt-verifier';
import { iso } from '../runtime';
import type { CardMetadata } from '../store/tokens';
import type { Commit, EndpointResult } from './pipeline';
import { apiError } from './replies';
import type { ApiDeps } from './context';
import { injectedSystemError, merchantInactive, str, validationFailed } from './common';
import { duplicateRequestId, insertPayin, payinInput, payinPreconditions } from './payin-endpoints';
import type { ErrorKey } from './error-codes';

function jwtRefused(f: JwtFailure, requestId: unknown): EndpointResult {
  return apiError('payin', { http: 400, status_code: f.status_code, reason_code: f.reason_code, error: f.error, message: f.message, details: f.details, request_id: requestId });
}

function tokenRefused(error: ErrorKey, message: string, requestId: unknown): EndpointResult {
  return apiError('payin', { http: 400, status_code: 512, reason_code: 'INVALID_OR_EXPIRED_TOKEN', error, message, details: { merchant_jwt: message }, request_id: requestId });
}

const jtiReplayed = (requestId: unknown): EndpointResult =>
  apiError('payin', { http: 400, status_code: 512, reason_code: 'INVALID_MERCHANT_JWT', error: 'jwt_jti', message: 'claim jti was already used', details: { merchant_jwt: 'claim jti was already used' }, request_id: requestId });

export function createTokenization(deps: ApiDeps) {
  return async (body: Record<string, unknown>, req: Request): Promise<EndpointResult | Commit> => {
    const early = injectedSystemError('payin', deps, body.request_id) ?? merchantInactive('payin', deps, body.request_id);
    if (early) return early;
    const v = validateTokenizationCreate(body, { now: deps.clock.now(), siteId: deps.merchant.siteId });
    if (!v.ok) return validationFailed('payin', v, body.request_id);
    const refused = payinPreconditions(deps, body);
    if (refused) return refused;
    const jwt = await deps.jwt.verify(str(body.merchant_jwt), 'tokenize', deps.merchant.id);
    if (!jwt.ok) return jwtRefused(jwt, body.request_id);

    const number = str(jwt.claims.cardholder_number);
    const card: CardMetadata = {
      brand: cardBrand(number),
      bin: number.slice(0, 6),
      last4: number.slice(-4),
      exp_month: str(jwt.claims.cardholder_exp_month),
      exp_year: str(jwt.claims.cardholder_exp_year),
    };
    // One synchronous transaction from here: the jti check-and-use and the insert cannot
    // interleave with another request.
    return () => {
      if (deps.payinRepo.byRequestId(deps.merchant.id, str(body.request_id))) return duplicateRequestId(str(body.request_id));
      if (!deps.keys.markJtiUsed(deps.merchant.id, jwt.jti, iso(deps.clock.now()))) return jtiReplayed(body.request_id);
      return insertPayin(deps, { ...payinInput(body, deps.merchant.id, 'tokenization'), card, token: null }, req.origin);
    };
  };
}

export function createTokenCharge(deps: ApiDeps) {
  return async (body: Record<string, unknown>, req: Request): Promise<EndpointResult | Commit> => {
    const early = injectedSystemError('payin', deps, body.request_id) ?? merchantInactive('payin', deps, body.request_id);
    if (early) return early;
    const v = validateTokenChargeCreate(body, { now: deps.clock.now(), siteId: deps.merchant.siteId });
    if (!v.ok) return validationFailed('payin', v, body.request_id);
    const refused = payinPreconditions(deps, body);
    if (refused) return refused;
    const jwt = await deps.jwt.verify(str(body.merchant_jwt), 'decrypt', deps.merchant.id);
    if (!jwt.ok) return jwtRefused(jwt, body.request_id);

    const stored = deps.tokens.find(str(jwt.claims.token));
    if (!stored || stored.merchant_id !== deps.merchant.id || stored.revoked) return tokenRefused('token_unknown', 'token is unknown, revoked or of another merchant', body.request_id);
    if (isExpired(stored.exp_month, stored.exp_year, deps.clock.now())) return tokenRefused('token_card_expired', 'the card behind this token has expired', body.request_id);

    const card: CardMetadata = { brand: stored.brand, bin: stored.bin, last4: stored.last4, exp_month: stored.exp_month, exp_year: stored.exp_year };
    return () => {
      if (deps.payinRepo.byRequestId(deps.merchant.id, str(body.request_id))) return duplicateRequestId(str(body.request_id));
      if (!deps.keys.markJtiUsed(deps.merchant.id, jwt.jti, iso(deps.clock.now()))) return jtiReplayed(body.request_id);
      return insertPayin(deps, { ...payinInput(body, deps.merchant.id, 'token_charge'), card, token: stored.token }, req.origin);
    };
  };
}
