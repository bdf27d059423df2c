// Request bodies as exact JSON text. The amount goes out as a JSON number written with the
// caller's own decimal digits ("10.50" stays 10.50), never through a binary float. Keys are
// sorted, so the same request always gives the same bytes, however the object was built: a body
// re-entered after a restart (a CSV row, a form) then matches the first try byte for byte.
import { LosslessNumber, isJsonObject, isLosslessNumber, stringifyJson } from '../../shared/json';
import type { CreateEndpoint, CreateRequests, DecimalAmount } from './endpoints';

const JSON_DECIMAL = /^-?(0|[1-9]\d*)(\.\d+)?$/;

/** The amount as a JSON number that serialises to exactly this decimal text. */
export function jsonAmount(amount: DecimalAmount): LosslessNumber {
  const text = isLosslessNumber(amount) ? amount.value : amount;
  if (typeof text !== 'string' || !JSON_DECIMAL.test(text)) {
    // Only the shape is checked here; scale and range are the gateway's (and the forms') rules.
    throw new TypeError('amount must be decimal text such as "10.50"');
  }
  return new LosslessNumber(text);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isJsonObject(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .filter((k) => value[k] !== undefined)
      .map((k) => [k, sortKeys(value[k])]),
  );
}

/** JSON text with sorted keys and exact numbers. */
export function canonicalJson(value: unknown): string {
  return stringifyJson(sortKeys(value));
}

/** A create-call body with its amount as an exact JSON number (still an object). */
export function withJsonAmount<E extends CreateEndpoint>(body: CreateRequests[E]): Record<string, unknown> {
  return { ...body, amount: jsonAmount(body.amount) };
}

/** Serialises a create-call body; the result is the exact byte sequence every try sends. */
export function serializeCreateBody<E extends CreateEndpoint>(body: CreateRequests[E]): string {
  return canonicalJson(withJsonAmount<E>(body));
}

/** Serialises a body without amounts (status reads). */
export function serializeBody(body: object): string {
  return canonicalJson(body);
}
