// Raw material (notification bodies and headers, stored requests and answers) made fit to leave
// main: shown as received, except that card numbers are masked, secrets removed, and the value of
// any header that can carry a credential is replaced. The same rules serve the webhook inspector,
// the timeline and the evidence pack.
import { isJsonObject, parseJson, stringifyJson } from '../../../shared/json';
import { REDACTED, maskPansIn, redact } from '../../../shared/redact';

/** Headers whose value may be a credential (bearer tokens, cookies, API keys, signatures). */
const CREDENTIAL_HEADER = /^(authorization|proxy-authorization|cookie|set-cookie)$|token|secret|passw|api[-_]?key|auth|signature|session/i;

/** req.rawHeaders (name, value, name, value…) as pairs, credential-bearing values redacted. */
export function headerPairs(rawHeaders: readonly string[]): [string, string][] {
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] as string;
    const value = rawHeaders[i + 1] as string;
    pairs.push([name, CREDENTIAL_HEADER.test(name) ? REDACTED : maskPansIn(value)]);
  }
  return pairs;
}

/** A received body as text: as sent, unless it carries card data or a secret (then the redacted JSON). */
export function bodyText(body: Buffer | string): { text: string; redacted: boolean } {
  const raw = typeof body === 'string' ? body : body.toString('utf8');
  let value: unknown;
  try {
    value = parseJson(raw);
  } catch {
    const masked = maskPansIn(raw);
    return { text: masked, redacted: masked !== raw };
  }
  if (!isJsonObject(value) && !Array.isArray(value)) return { text: raw, redacted: false };
  const cleaned = stringifyJson(redact(value));
  return cleaned === stringifyJson(value) ? { text: raw, redacted: false } : { text: cleaned, redacted: true };
}

/** A stored JSON text (request, answer) for display: redacted JSON, or masked plain text. */
export function safeText(text: string | null): string | null {
  return text === null ? null : bodyText(text).text;
}
