// Verifies merchant_jwt (spec 2.6, 5): EdDSA only, a registered kid of this merchant, a valid
// signature, iat within 120 s of server time either way, a jti never used before, an op that
// fits the endpoint and the claims of that op. The jti is only consumed when the caller
// commits, i.e. when the request succeeded.
import type { JWK, ProtectedHeaderParameters } from 'jose';
import { loadJose } from '../../shared/lazy-jose';
import { isJsonObject } from '../../shared/json';
import { validateTokenizeClaims } from '../../shared/spec/field-rules';
import type { ReasonCode } from '../../shared/spec/codes';
import type { Clock } from '../runtime';
import type { KeyRepo } from '../store/keys';

export const IAT_TOLERANCE_SECONDS = 120;

export type JwtOp = 'tokenize' | 'decrypt';

export interface JwtFailure {
  ok: false;
  status_code: number;
  reason_code: ReasonCode;
  /** Key of the error-code table. */
  error: JwtErrorKey;
  message: string;
  details: Record<string, string>;
}

export interface JwtSuccess {
  ok: true;
  claims: Record<string, unknown>;
  jti: string;
}

export type JwtErrorKey =
  | 'jwt_malformed'
  | 'jwt_alg'
  | 'jwt_kid'
  | 'jwt_signature'
  | 'jwt_iat'
  | 'jwt_jti'
  | 'jwt_op'
  | 'jwt_sub'
  | 'jwt_claims'
  | 'jwt_card';

const fail = (error: JwtErrorKey, message: string, details: Record<string, string> = {}, status_code = 512, reason_code: ReasonCode = 'INVALID_MERCHANT_JWT'): JwtFailure => ({
  ok: false,
  status_code,
  reason_code,
  error,
  message,
  details: { merchant_jwt: message, ...details },
});

const CARD_CLAIMS = ['cardholder_number', 'cardholder_name', 'cardholder_exp_month', 'cardholder_exp_year'];

export class JwtVerifier {
  constructor(
    private readonly keys: KeyRepo,
    private readonly clock: Clock,
  ) {}

  async verify(jwt: string, op: JwtOp, merchantId: string): Promise<JwtSuccess | JwtFailure> {
    const { compactVerify, decodeProtectedHeader, importJWK } = await loadJose();
    let header: ProtectedHeaderParameters;
    try {
      header = decodeProtectedHeader(jwt);
    } catch {
      return fail('jwt_malformed', 'merchant_jwt is not a compact JWS');
    }
    if (header.alg !== 'EdDSA') return fail('jwt_alg', 'merchant_jwt must be signed with alg EdDSA');
    if (typeof header.kid !== 'string' || header.kid === '') return fail('jwt_kid', 'merchant_jwt header has no kid');
    const key = this.keys.find(header.kid);
    if (!key || key.merchant_id !== merchantId) return fail('jwt_kid', 'kid is not a key registered for this merchant');

    let payloadBytes: Uint8Array;
    try {
      const publicKey = await importJWK(key.public_jwk as JWK, 'EdDSA');
      ({ payload: payloadBytes } = await compactVerify(jwt, publicKey, { algorithms: ['EdDSA'] }));
    } catch {
      return fail('jwt_signature', 'merchant_jwt signature does not verify with the registered key');
    }
    let claims: unknown;
    try {
      claims = JSON.parse(new TextDecoder().decode(payloadBytes));
    } catch {
      return fail('jwt_malformed', 'merchant_jwt payload is not JSON');
    }
    if (!isJsonObject(claims)) return fail('jwt_malformed', 'merchant_jwt payload is not a JSON object');
    return this.checkClaims(claims, op, key.merchant_id);
  }

  private checkClaims(claims: Record<string, unknown>, op: JwtOp, keyMerchant: string): JwtSuccess | JwtFailure {
    const nowSeconds = this.clock.now() / 1000;
    const { jti, iat, sub, exp } = claims;
    if (typeof jti !== 'string' || jti.trim() === '' || jti.length > 255) return fail('jwt_claims', 'claim jti must be a non-empty string');
    if (claims.op !== op) return fail('jwt_op', `claim op must be "${op}" on this endpoint`);
    if (sub !== keyMerchant) return fail('jwt_sub', 'claim sub must be the merchant_id the key was registered for');
    if (typeof iat !== 'number' || !Number.isFinite(iat)) return fail('jwt_iat', 'claim iat must be a number (seconds)');
    if (Math.abs(nowSeconds - iat) > IAT_TOLERANCE_SECONDS) return fail('jwt_iat', `claim iat must be within ${IAT_TOLERANCE_SECONDS} s of server time`);
    if (exp !== undefined && (typeof exp !== 'number' || exp <= nowSeconds)) return fail('jwt_iat', 'merchant_jwt has expired (exp)');
    if (this.keys.isJtiUsed(keyMerchant, jti)) return fail('jwt_jti', 'claim jti was already used');

    const cardPresent = CARD_CLAIMS.filter((c) => claims[c] !== undefined);
    if (op === 'decrypt') {
      if (cardPresent.length > 0) return fail('jwt_claims', `op=decrypt must not carry card claims (${cardPresent.join(', ')})`);
      if (typeof claims.token !== 'string' || claims.token.trim() === '') return fail('jwt_claims', 'op=decrypt needs claim token');
      return { ok: true, claims, jti };
    }
    if (claims.token !== undefined) return fail('jwt_claims', 'op=tokenize must not carry claim token');
    const card = validateTokenizeClaims(claims, { now: this.clock.now() });
    if (!card.ok && card.primary) {
      const p = card.primary;
      return fail('jwt_card', `card data in merchant_jwt: ${card.issues.map((i) => `${i.field} ${i.message}`).join('; ')}`, card.details, Number(p.status_code), p.reason_code);
    }
    return { ok: true, claims, jti };
  }
}
