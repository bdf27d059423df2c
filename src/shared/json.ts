// Exact JSON for money: amounts must be validated and stored from their source text, because
// JSON.parse turns 0.1 + 0.2-style values into binary floats and silently loses digits.
import { LosslessNumber, isLosslessNumber, parse, stringify } from 'lossless-json';

export { LosslessNumber, isLosslessNumber };

/** A JSON number as read by parseJson: a JS number when that is exact, else its source text. */
export type JsonNumber = number | LosslessNumber;

/**
 * Safe integers become plain numbers (status codes, counts stay ergonomic); every other number
 * (decimals, exponents, huge integers) keeps its source text so nothing is ever rounded.
 */
function parseNumber(text: string): JsonNumber {
  if (/^-?\d+$/.test(text)) {
    const n = Number(text);
    if (Number.isSafeInteger(n)) return n;
  }
  return new LosslessNumber(text);
}

/**
 * Parses JSON text; throws on malformed input and on a key repeated with a different value (which
 * value would win is parser-dependent, so such a body is ambiguous). An identical repeat is harmless.
 */
export function parseJson(text: string): unknown {
  return parse(text, null, { parseNumber, onDuplicateKey: duplicateKey });
}

function duplicateKey(info: { key: string }): never {
  throw new SyntaxError(`Duplicate key "${info.key}"`);
}

/** Serialises JSON, writing LosslessNumber values as their exact source text. */
export function stringifyJson(value: unknown, space?: number): string {
  return stringify(value, null, space) ?? 'null';
}

/** The exact decimal text of a JSON number value, or undefined when it is not a number. */
export function numberText(value: unknown): string | undefined {
  if (isLosslessNumber(value)) return value.value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/** True for a plain JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isLosslessNumber(value);
}
