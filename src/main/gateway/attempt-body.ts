// The three forms of a create-call body: the exact bytes that go out, the sanitized text that
// may be stored, and the hash that ties them together.
import { createHash } from 'node:crypto';
import type { CreateEndpoint, CreateRequests } from './endpoints';
import { canonicalJson, withJsonAmount } from './serialize';
import { sanitizeRequest } from '../../shared/redact';

export interface PreparedBody {
  /** Sent on every try of the attempt, byte for byte. */
  bodyText: string;
  /** Canonical JSON of the sanitized body; equal to bodyText when nothing had to be removed. */
  sanitizedText: string;
  requestHash: string;
  replayable: boolean;
}

/**
 * SHA-256 (hex) of the sanitized text, the same rule as the ledger's storedRequest(). Not of the
 * raw bytes: with the sanitized body in the ledger, a hash of the raw bytes would let anyone
 * holding the ledger recover the masked card digits and the CVV by trying ~10^8 candidates.
 */
export function requestHash(sanitizedText: string): string {
  return createHash('sha256').update(sanitizedText, 'utf8').digest('hex');
}

export function prepareBody<E extends CreateEndpoint>(body: CreateRequests[E]): PreparedBody {
  const exact = withJsonAmount<E>(body);
  const bodyText = canonicalJson(exact);
  const sanitized = sanitizeRequest(exact);
  const sanitizedText = sanitized.replayable ? bodyText : canonicalJson(sanitized.body);
  return { bodyText, sanitizedText, requestHash: requestHash(sanitizedText), replayable: sanitized.replayable };
}
