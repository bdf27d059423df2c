// The developer view's JWT decoder. Input is anything pasted or received, so it must never
// throw, never run unbounded, and never hand back a full card number: header and claims go
// through the shared masker (card numbers to first 6 / last 4, CVV-like claims removed, nesting
// cut off), which leaves ids such as a UUID jti as they are.
import type { CryptoKey } from 'jose';
import { loadJose } from '../../shared/lazy-jose';
import { redact } from '../../shared/redact';

/** The gateway's own limit for merchant_jwt (field check "jwt"). */
export const MAX_JWT_LENGTH = 16_384;
/** Spec 5.4: iat within 120 s of server time. */
export const IAT_TOLERANCE_SECONDS = 120;

/**
 * Whether the signature verifies. A JWT that is not well-formed has no signature anyone could check
 * (with or without a key): it is `malformed`, never `invalid`, which says a check was made and failed.
 */
export type SignatureCheck =
  | { status: 'valid' }
  | { status: 'invalid'; why: 'bad_alg' | 'bad_kid' | 'bad_signature'; message: string }
  | { status: 'malformed'; message: string }
  | { status: 'not_checked'; message: string };

export interface DecodedJwt {
  header: Record<string, unknown> | null;
  /** The payload with card numbers masked. */
  claims: Record<string, unknown> | null;
  /** iat minus now, in whole seconds (positive: issued in the future); null without a numeric iat. */
  iatSkewSeconds: number | null;
  iatWithinTolerance: boolean | null;
  signature: SignatureCheck;
  /** Everything the gateway would object to, in words. */
  problems: string[];
}

export interface VerificationKey {
  kid: string;
  publicKey: CryptoKey;
}

function decodeSegment(segment: string): Record<string, unknown> | null {
  if (segment === '' || !/^[A-Za-z0-9_-]+$/.test(segment)) return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const malformed = (message: string): DecodedJwt => ({
  header: null,
  claims: null,
  iatSkewSeconds: null,
  iatWithinTolerance: null,
  signature: { status: 'malformed', message },
  problems: [message],
});

function claimProblems(header: Record<string, unknown>, claims: Record<string, unknown> | null, skew: number | null): string[] {
  const problems: string[] = [];
  if (header.alg !== 'EdDSA') problems.push('header alg must be EdDSA');
  if (typeof header.kid !== 'string' || header.kid === '') problems.push('header has no kid');
  if (!claims) return [...problems, 'payload is not a JSON object'];
  if (typeof claims.jti !== 'string' || claims.jti === '') problems.push('claim jti is missing');
  if (claims.op !== 'tokenize' && claims.op !== 'decrypt') problems.push('claim op must be tokenize or decrypt');
  if (typeof claims.sub !== 'string' || claims.sub === '') problems.push('claim sub (merchant id) is missing');
  if (skew === null) problems.push('claim iat is missing or not a number');
  else if (Math.abs(skew) > IAT_TOLERANCE_SECONDS) problems.push(`claim iat is ${skew} s from now (limit ${IAT_TOLERANCE_SECONDS} s)`);
  return problems;
}

async function checkSignature(jwt: string, header: Record<string, unknown>, key: VerificationKey | undefined): Promise<SignatureCheck> {
  if (!key) return { status: 'not_checked', message: 'no public key given' };
  if (header.alg !== 'EdDSA') return { status: 'invalid', why: 'bad_alg', message: 'alg is not EdDSA' };
  if (header.kid !== key.kid) return { status: 'invalid', why: 'bad_kid', message: 'kid does not name the given key' };
  const { compactVerify } = await loadJose();
  try {
    await compactVerify(jwt, key.publicKey, { algorithms: ['EdDSA'] });
    return { status: 'valid' };
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED') return { status: 'invalid', why: 'bad_signature', message: 'signature does not verify with the given key' };
    return { status: 'malformed', message: 'not a verifiable JWS' };
  }
}

export async function decodeJwt(input: unknown, options: { nowMs: number; key?: VerificationKey }): Promise<DecodedJwt> {
  if (typeof input !== 'string') return malformed('not a string');
  const jwt = input.trim();
  if (jwt.length > MAX_JWT_LENGTH) return malformed(`longer than ${MAX_JWT_LENGTH} characters`);
  const parts = jwt.split('.');
  if (parts.length !== 3) return malformed('not three dot-separated parts (header.payload.signature)');
  const header = decodeSegment(parts[0] as string);
  if (!header) return malformed('header is not base64url JSON object');
  const payload = decodeSegment(parts[1] as string);
  const iat = payload?.iat;
  const skew = typeof iat === 'number' && Number.isFinite(iat) ? Math.round(iat - options.nowMs / 1000) : null;
  const signature = payload ? await checkSignature(jwt, header, options.key) : ({ status: 'malformed', message: 'payload is not a base64url JSON object' } as const);
  return {
    header: redact(header) as Record<string, unknown>,
    claims: payload ? (redact(payload) as Record<string, unknown>) : null,
    iatSkewSeconds: skew,
    iatWithinTolerance: skew === null ? null : Math.abs(skew) <= IAT_TOLERANCE_SECONDS,
    signature,
    problems: claimProblems(header, payload, skew),
  };
}
