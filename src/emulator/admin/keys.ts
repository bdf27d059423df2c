// POST /_emulator/keys (fixed interface): registers a merchant's Ed25519 public key under a kid,
// as onboarding would. Private key material is refused outright.
import type { JWK } from 'jose';
import { loadJose } from '../../shared/lazy-jose';
import { isJsonObject } from '../../shared/json';
import type { Reply, Request } from '../http/types';
import type { MerchantAccount } from '../domain/merchant';
import { iso, type Clock } from '../runtime';
import type { KeyRepo } from '../store/keys';
import { adminBody, adminError, adminReply } from './json-body';

export function registerKey(keys: KeyRepo, merchant: MerchantAccount, clock: Clock) {
  return async (req: Request): Promise<Reply> => {
    const parsed = adminBody(req);
    if (!parsed.ok) return parsed.reply;
    const { merchant_id, kid, public_jwk } = parsed.body;
    if (typeof merchant_id !== 'string' || merchant_id !== merchant.id) return adminError(404, 'merchant_id is not the merchant of this emulator');
    if (typeof kid !== 'string' || !/^[\x21-\x7e]{1,128}$/.test(kid)) return adminError(400, 'kid must be 1-128 printable ASCII characters');
    if (!isJsonObject(public_jwk)) return adminError(400, 'public_jwk must be a JWK object');
    if ('d' in public_jwk) return adminError(400, 'public_jwk holds private key material ("d"); send the public key only');
    if (public_jwk.kty !== 'OKP' || public_jwk.crv !== 'Ed25519' || typeof public_jwk.x !== 'string') return adminError(400, 'public_jwk must be an Ed25519 key: {"kty":"OKP","crv":"Ed25519","x":...}');
    const { importJWK } = await loadJose();
    try {
      await importJWK({ kty: 'OKP', crv: 'Ed25519', x: public_jwk.x } as JWK, 'EdDSA');
    } catch {
      return adminError(400, 'public_jwk.x is not a valid Ed25519 public key');
    }
    const jwk = { kty: 'OKP', crv: 'Ed25519', x: public_jwk.x };
    keys.upsert({ kid, merchant_id, public_jwk: jwk, created_at: iso(clock.now()) });
    return adminReply(200, { status: 'registered', merchant_id, kid });
  };
}
