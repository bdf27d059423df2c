// merchant_jwt (spec 2.6): an EdDSA (Ed25519) compact JWS, header {alg, kid, typ}, with a fresh
// jti and iat = now on every signature. Card data travels only inside it (PRODUCT.md cap. 3),
// so callers must never log the token they get back: its payload is readable base64.
import { loadJose } from '../../shared/lazy-jose';
import type { MerchantJwtClaims } from '../../shared/spec/schemas';
import type { MerchantKeyPair } from './jwt-keys';
import { randomIds, systemClock, type Clock, type IdSource } from './runtime';

export interface CardForJwt {
  number: string;
  name: string;
  /** "MM" */
  expMonth: string;
  /** "YYYY" */
  expYear: string;
}

export type MerchantJwtRequest =
  /** For /payment/create/tokenization: vault this card. */
  | { op: 'tokenize'; merchantId: string; card: CardForJwt }
  /** For /payment/create/token: charge this stored token. */
  | { op: 'decrypt'; merchantId: string; token: string };

export interface JwtSigningDeps {
  clock: Clock;
  ids: IdSource;
}

export function merchantJwtClaims(request: MerchantJwtRequest, deps: JwtSigningDeps): MerchantJwtClaims {
  const common = { jti: deps.ids.uuid(), op: request.op, sub: request.merchantId, iat: Math.floor(deps.clock.now() / 1000) };
  if (request.op === 'decrypt') return { ...common, token: request.token };
  const { card } = request;
  return {
    ...common,
    cardholder_number: card.number,
    cardholder_name: card.name,
    cardholder_exp_month: card.expMonth,
    cardholder_exp_year: card.expYear,
  };
}

export async function signMerchantJwt(
  key: Pick<MerchantKeyPair, 'kid' | 'privateKey'>,
  request: MerchantJwtRequest,
  deps: JwtSigningDeps = { clock: systemClock, ids: randomIds },
): Promise<string> {
  const claims = merchantJwtClaims(request, deps);
  const { SignJWT } = await loadJose();
  return new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ: 'JWT' }).sign(key.privateKey);
}
