import { decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  KeyFormatError,
  exportPrivatePem,
  exportPublicJwk,
  exportPublicPem,
  generateMerchantKeyPair,
  importMerchantPrivateKey,
  importPublicKey,
  publicKeyFingerprint,
} from '../../../src/main/gateway/jwt-keys';
import { signMerchantJwt } from '../../../src/main/gateway/merchant-jwt';
import { MerchantJwtClaimsSchema } from '../../../src/shared/spec/schemas';

const NOW = Date.UTC(2030, 0, 2, 3, 4, 5, 678);
const fixed = (ids: string[]) => ({ clock: { now: () => NOW }, ids: { uuid: () => ids.shift() ?? 'exhausted' } });
const card = { number: '4111111111111111', name: 'Ana Lima', expMonth: '12', expYear: '2031' };

describe('signMerchantJwt', () => {
  it('signs op=tokenize with EdDSA, the kid and typ JWT, and the card claims of spec 2.6', async () => {
    const key = await generateMerchantKeyPair('kid-1');
    const jwt = await signMerchantJwt(key, { op: 'tokenize', merchantId: 'mer_1', card }, fixed(['jti-a']));

    expect(decodeProtectedHeader(jwt)).toEqual({ alg: 'EdDSA', kid: 'kid-1', typ: 'JWT' });
    const { payload } = await jwtVerify(jwt, key.publicKey, { algorithms: ['EdDSA'], currentDate: new Date(NOW) });
    expect(payload).toEqual({
      jti: 'jti-a',
      op: 'tokenize',
      sub: 'mer_1',
      iat: Math.floor(NOW / 1000),
      cardholder_number: card.number,
      cardholder_name: card.name,
      cardholder_exp_month: '12',
      cardholder_exp_year: '2031',
    });
    expect(MerchantJwtClaimsSchema.safeParse(payload).success).toBe(true);
  });

  it('signs op=decrypt with the token and no card claims', async () => {
    const key = await generateMerchantKeyPair('kid-1');
    const jwt = await signMerchantJwt(key, { op: 'decrypt', merchantId: 'mer_1', token: 'tok_abc' }, fixed(['jti-b']));
    const { payload } = await jwtVerify(jwt, key.publicKey);
    expect(payload).toEqual({ jti: 'jti-b', op: 'decrypt', sub: 'mer_1', iat: Math.floor(NOW / 1000), token: 'tok_abc' });
  });

  it('uses a fresh jti for every signature', async () => {
    const key = await generateMerchantKeyPair('kid-1');
    const deps = fixed(['one', 'two']);
    const a = await signMerchantJwt(key, { op: 'decrypt', merchantId: 'm', token: 't' }, deps);
    const b = await signMerchantJwt(key, { op: 'decrypt', merchantId: 'm', token: 't' }, deps);
    const jti = async (jwt: string) => (await jwtVerify(jwt, key.publicKey)).payload.jti;
    expect([await jti(a), await jti(b)]).toEqual(['one', 'two']);
  });

  it('defaults to a random uuid jti and the system clock', async () => {
    const key = await generateMerchantKeyPair();
    const jwt = await signMerchantJwt(key, { op: 'decrypt', merchantId: 'm', token: 't' });
    const { payload } = await jwtVerify(jwt, key.publicKey);
    expect(payload.jti).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(Math.abs((payload.iat as number) - Date.now() / 1000)).toBeLessThan(5);
  });
});

describe('merchant key helpers', () => {
  it('defaults the kid to the RFC 7638 thumbprint, which is the fingerprint', async () => {
    const key = await generateMerchantKeyPair();
    expect(key.kid).toBe(await publicKeyFingerprint(key.publicJwk));
    expect(key.kid).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('exports the public key as a JWK without private material and as SPKI PEM', async () => {
    const key = await generateMerchantKeyPair('k');
    const jwk = exportPublicJwk(key);
    expect(jwk).toEqual({ kty: 'OKP', crv: 'Ed25519', x: key.publicJwk.x, kid: 'k', alg: 'EdDSA', use: 'sig' });
    expect(jwk).not.toHaveProperty('d');
    const pem = await exportPublicPem(key);
    expect(pem).toMatch(/^-----BEGIN PUBLIC KEY-----\n[\s\S]+\n-----END PUBLIC KEY-----\n?$/);
    const fromPem = await importPublicKey(pem);
    const jwt = await signMerchantJwt(key, { op: 'decrypt', merchantId: 'm', token: 't' });
    await expect(jwtVerify(jwt, fromPem)).resolves.toBeTruthy();
  });

  it('round-trips the private key through PKCS#8 PEM and JWK with the same fingerprint', async () => {
    const key = await generateMerchantKeyPair('k');
    const fromPem = await importMerchantPrivateKey(await exportPrivatePem(key), 'k');
    expect(fromPem.publicJwk).toEqual(key.publicJwk);
    const { exportJWK } = await import('jose');
    const privateJwk = await exportJWK(key.privateKey);
    const fromJwk = await importMerchantPrivateKey(JSON.stringify({ ...privateJwk, kid: 'from-jwk' }));
    expect(fromJwk.kid).toBe('from-jwk');
    expect(await publicKeyFingerprint(fromJwk.publicJwk)).toBe(await publicKeyFingerprint(key.publicJwk));
    // A signature by the imported key verifies with the original public key.
    const jwt = await signMerchantJwt(fromPem, { op: 'decrypt', merchantId: 'm', token: 't' });
    await expect(jwtVerify(jwt, key.publicKey)).resolves.toBeTruthy();
  });

  it('refuses non-Ed25519 or garbage keys without echoing the input', async () => {
    const secretish = 'MC4CAQAwBQYDK2VwBCIEIDEADBEEF-super-secret';
    for (const input of [`-----BEGIN PRIVATE KEY-----\n${secretish}\n-----END PRIVATE KEY-----`, '{"kty":"RSA"}', 'not json', { kty: 'OKP', crv: 'Ed25519', x: 'AAAA' }]) {
      const error = await importMerchantPrivateKey(input as string).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(KeyFormatError);
      expect(String((error as Error).message)).not.toContain('secret');
    }
    await expect(importPublicKey('{"kty":"OKP","crv":"X25519","x":"abc"}')).rejects.toBeInstanceOf(KeyFormatError);
  });

  it('refuses a kid the gateway would refuse', async () => {
    await expect(generateMerchantKeyPair('with space')).rejects.toBeInstanceOf(KeyFormatError);
    await expect(generateMerchantKeyPair('x'.repeat(129))).rejects.toBeInstanceOf(KeyFormatError);
  });
});
