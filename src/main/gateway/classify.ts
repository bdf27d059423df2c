// Turns an HTTP answer into a CallResult. Bodies are parsed with exact numbers (amounts keep
// their decimal text) and read through tolerant schemas: missing, extra and unknown-valued
// fields never fail a response.
import type { z } from 'zod';
import { isJsonObject, parseJson } from '../../shared/json';
import { ErrorResponseSchema, type ErrorResponse } from '../../shared/spec/schemas';
import type { CallResult } from './result';

/** Parses JSON text into an object, or undefined when it is not a JSON object. */
export function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value = parseJson(text);
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** An error body in the shape of 2.3; an empty one when the body is not JSON (a proxy's HTML page). */
export function parseErrorBody(text: string): ErrorResponse {
  const parsed = ErrorResponseSchema.safeParse(parseObject(text) ?? {});
  return parsed.success ? parsed.data : {};
}

/**
 * Retry-After in whole seconds: either delta-seconds or an HTTP date (RFC 9110 10.2.3).
 * Null when absent or unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | null {
  if (value === null || value === undefined) return null;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text);
  const at = Date.parse(text);
  if (Number.isNaN(at) || !/[A-Za-z]/.test(text)) return null;
  return Math.max(0, Math.ceil((at - nowMs) / 1000));
}

export function classifyAnswer<S extends z.ZodType>(
  answer: { status: number; text: string; retryAfter: string | null },
  schema: S,
  nowMs: number,
): CallResult<z.infer<S>> {
  const { status, text } = answer;
  if (status >= 200 && status < 300) {
    const object = parseObject(text);
    const parsed = object === undefined ? undefined : schema.safeParse(object);
    if (!parsed?.success) return { kind: 'unexpected_response', status, message: `HTTP ${status} without a JSON object body` };
    return { kind: 'ok', status, body: parsed.data as z.infer<S>, raw: text };
  }
  if (status === 429) return { kind: 'rate_limited', status, retryAfterSeconds: parseRetryAfter(answer.retryAfter, nowMs), body: parseErrorBody(text), raw: text };
  if (status >= 400 && status < 500) return { kind: 'rejected', status, body: parseErrorBody(text), raw: text };
  if (status >= 500 && status < 600) return { kind: 'server_error', status, body: parseErrorBody(text), raw: text, retryAfterSeconds: parseRetryAfter(answer.retryAfter, nowMs) };
  return { kind: 'unexpected_response', status, message: `unexpected HTTP ${status}` };
}
