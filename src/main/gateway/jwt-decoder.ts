// The developer view's JWT decoder. Input is anything pasted or received, so it must never
// throw, never run unbounded, and never hand back a full card number: every digit run that
// could be a PAN is masked to first 6 / last 4, and CVV-like claims are removed.
import type { CryptoKey } from 'jose';
import { loadJose } from '../../shared/lazy-jose';
import { REDACTED, maskPan } from '../../shared/redact';

/** The gateway's own limit for merchant_jwt (field check "jwt"). */
export const MAX_JWT_LENGTH = 16_384;
/** Spec 5.4: iat within 120 s of server time. */
export const IAT_TOLERANCE_SECONDS = 120;
const MAX_DEPTH = 32;

export type SignatureCheck =
  | { status: 'valid' }
  | { status: 'invalid'; why: 'malformed' | 'bad_alg' | 'bad_kid' | 'bad_signature'; message: string }
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

const PAN_RUN = /\d(?:[ -]?\d){11,18}/g;
const CVV_KEY = /cvv|cvc|cvn|csc/i;

function maskValue(value: unknown, key: string, depth: number): unknown {
  if (CVV_KEY.test(key)) return REDACTED;
  if (typeof value === 'string') return value.replace(PAN_RUN, (run) => maskPan(run));
  if (typeof value === 'number' && Number.isInteger(Math.abs(value)) && Math.abs(value) >= 1e11) return maskPan(String(Math.abs(value)));
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[nested too deep]';
  if (Array.isArray(value)) return value.map((v) => maskValue(v, '', depth + 1));
  // fromEntries defines own properties, so a "__proto__" key stays data and never becomes a prototype.
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [maskValue(k, '', depth + 1) as string, maskValue(v, k, depth + 1)]));
}

/** Masks card numbers anywhere in a decoded JSON value. */
export function maskCardData(value: unknown): unknown {
  return maskValue(value, '', 0);
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
  signature: { status: 'invalid', why: 'malformed', message },
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
    return { status: 'invalid', why: 'malformed', message: 'not a verifiable JWS' };
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
  const signature = payload ? await checkSignature(jwt, header, options.key) : ({ status: 'invalid', why: 'malformed', message: 'payload is not a base64url JSON object' } as const);
  return {
    header: maskCardData(header) as Record<string, unknown>,
    claims: payload ? (maskCardData(payload) as Record<string, unknown>) : null,
    iatSkewSeconds: skew,
    iatWithinTolerance: skew === null ? null : Math.abs(skew) <= IAT_TOLERANCE_SECONDS,
    signature,
    problems: claimProblems(header, payload, skew),
  };
}
