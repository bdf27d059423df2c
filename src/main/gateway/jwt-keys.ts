// The merchant's Ed25519 signing key (spec 2.6, 5.3): generate with a kid, export the public
// half for onboarding (JWK and PEM), import an existing private key, and fingerprint it. The
// private key lives in the OS keychain as PKCS#8 PEM; error messages never quote key material.
import type { CryptoKey, JWK } from 'jose';
import { loadJose } from '../../shared/lazy-jose';

export interface PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid?: string;
  alg?: 'EdDSA';
  use?: 'sig';
}

export interface MerchantKeyPair {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  /** The public key as a bare JWK {kty, crv, x}. */
  publicJwk: PublicJwk;
}

/** The emulator's rule for kids, which also keeps them safe in headers and file names. */
const KID = /^[\x21-\x7e]{1,128}$/;

export class KeyFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyFormatError';
  }
}

function checkKid(kid: string): string {
  if (!KID.test(kid)) throw new KeyFormatError('kid must be 1-128 printable ASCII characters');
  return kid;
}

function bareJwk(jwk: JWK): PublicJwk {
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string') throw new KeyFormatError('not an Ed25519 key');
  return { kty: 'OKP', crv: 'Ed25519', x: jwk.x };
}

/** RFC 7638 JWK thumbprint (SHA-256, base64url) of the public key: what the UI shows as its fingerprint. */
export async function publicKeyFingerprint(key: PublicJwk): Promise<string> {
  const { calculateJwkThumbprint } = await loadJose();
  return calculateJwkThumbprint(bareJwk(key as JWK), 'sha256');
}

async function pairFromPrivate(privateKey: CryptoKey, kid: string | undefined): Promise<MerchantKeyPair> {
  const { exportJWK, importJWK } = await loadJose();
  // An Ed25519 private JWK carries its public point x, so the public key needs no extra input.
  const publicJwk = bareJwk(await exportJWK(privateKey));
  const publicKey = (await importJWK(publicJwk as JWK, 'EdDSA', { extractable: true })) as CryptoKey;
  return { kid: checkKid(kid ?? (await publicKeyFingerprint(publicJwk))), privateKey, publicKey, publicJwk };
}

/** A new key pair; the kid defaults to the key's thumbprint, so it is unique and stable. */
export async function generateMerchantKeyPair(kid?: string): Promise<MerchantKeyPair> {
  if (kid !== undefined) checkKid(kid);
  const { generateKeyPair } = await loadJose();
  const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  return pairFromPrivate(privateKey, kid);
}

/** Imports a private key from PKCS#8 PEM, a JWK object or JWK JSON text; a JWK's own kid is kept unless one is given. */
export async function importMerchantPrivateKey(input: string | JWK, kid?: string): Promise<MerchantKeyPair> {
  const { importJWK, importPKCS8 } = await loadJose();
  let privateKey: CryptoKey;
  let jwkKid: string | undefined;
  try {
    if (typeof input === 'string' && input.includes('-----BEGIN PRIVATE KEY-----')) {
      privateKey = await importPKCS8(input.trim(), 'EdDSA', { extractable: true });
    } else {
      const jwk = (typeof input === 'string' ? JSON.parse(input) : input) as JWK;
      if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.d !== 'string' || typeof jwk.x !== 'string') throw new Error('wrong key type');
      privateKey = (await importJWK({ kty: 'OKP', crv: 'Ed25519', x: jwk.x, d: jwk.d }, 'EdDSA', { extractable: true })) as CryptoKey;
      jwkKid = typeof jwk.kid === 'string' ? jwk.kid : undefined;
    }
  } catch {
    throw new KeyFormatError('not an Ed25519 private key (expected PKCS#8 PEM or a JWK with d)');
  }
  return pairFromPrivate(privateKey, kid ?? jwkKid);
}

/** Imports a public key from SPKI PEM, a JWK object or JWK JSON text (for the JWT decoder). */
export async function importPublicKey(input: string | JWK): Promise<CryptoKey> {
  const { importJWK, importSPKI } = await loadJose();
  try {
    if (typeof input === 'string' && input.includes('-----BEGIN PUBLIC KEY-----')) return await importSPKI(input.trim(), 'EdDSA');
    const jwk = bareJwk((typeof input === 'string' ? JSON.parse(input) : input) as JWK);
    return (await importJWK(jwk as JWK, 'EdDSA')) as CryptoKey;
  } catch {
    throw new KeyFormatError('not an Ed25519 public key (expected SPKI PEM or a JWK)');
  }
}

/** The public key for onboarding: {kty, crv, x, kid, alg, use}. Never contains "d". */
export function exportPublicJwk(pair: MerchantKeyPair): PublicJwk {
  return { ...pair.publicJwk, kid: pair.kid, alg: 'EdDSA', use: 'sig' };
}

export async function exportPublicPem(pair: MerchantKeyPair): Promise<string> {
  const { exportSPKI } = await loadJose();
  return exportSPKI(pair.publicKey);
}

/** PKCS#8 PEM of the private key: only for the keychain, never for files, logs or the renderer. */
export async function exportPrivatePem(pair: MerchantKeyPair): Promise<string> {
  const { exportPKCS8 } = await loadJose();
  return exportPKCS8(pair.privateKey);
}
