// The request editor's JSON view. The form holds text (amounts are decimal strings); the JSON
// view shows the amount as a JSON number, as the gateway receives it. Numbers are read and
// written losslessly, so "0.1000000001" never passes through a binary float.
import { isJsonObject, LosslessNumber, numberText, parseJson, stringifyJson } from '../../../shared/json';
import { parseDecimal } from '../../../shared/money';

/** A form value: text, or one level of nested text fields (payout customer / paymentDetails). */
export type FormValue = string | { [key: string]: string | undefined } | undefined;
export type FormObject = { [key: string]: FormValue };

/** The form as JSON text, `omit` left out (the CVV is entered apart and never shown). */
export function formToJson(form: FormObject, omit: readonly string[] = []): string {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(form)) {
    if (value === undefined || omit.includes(key)) continue;
    out[key] = key === 'amount' && typeof value === 'string' && parseDecimal(value) !== undefined ? new LosslessNumber(value.trim()) : value;
  }
  return stringifyJson(out, 2);
}

export type JsonParse = { ok: true; form: FormObject } | { ok: false; message: string };

function asText(value: unknown, path: string): string | undefined | Error {
  if (value === null) return undefined;
  if (typeof value === 'string') return value;
  const number = numberText(value);
  if (number !== undefined) return number;
  return new Error(`${path} must be text or a number`);
}

/** Reads JSON typed by the user back into a form; the message names the offending field. */
export function jsonToForm(text: string): JsonParse {
  let value: unknown;
  try {
    value = parseJson(text);
  } catch (error) {
    return { ok: false, message: `Not valid JSON: ${(error as Error).message}` };
  }
  if (!isJsonObject(value)) return { ok: false, message: 'The request must be a JSON object ({ … }).' };
  const form: FormObject = {};
  for (const [key, raw] of Object.entries(value)) {
    if (isJsonObject(raw)) {
      const nested: Record<string, string | undefined> = {};
      for (const [inner, innerRaw] of Object.entries(raw)) {
        const text = asText(innerRaw, `${key}.${inner}`);
        if (text instanceof Error) return { ok: false, message: text.message };
        nested[inner] = text;
      }
      form[key] = nested;
      continue;
    }
    const text = asText(raw, key);
    if (text instanceof Error) return { ok: false, message: text.message };
    form[key] = text;
  }
  return { ok: true, form };
}

/** Reads a dotted path ("customer.email") of a form. */
export function getField(form: FormObject, path: string): string {
  const [head = '', inner] = path.split('.');
  const value = form[head];
  if (inner === undefined) return typeof value === 'string' ? value : '';
  return typeof value === 'object' ? (value[inner] ?? '') : '';
}

/** A copy of the form with a dotted path set. */
export function setField<T extends FormObject>(form: T, path: string, text: string): T {
  const [head = '', inner] = path.split('.');
  if (inner === undefined) return { ...form, [head]: text };
  const current = form[head];
  return { ...form, [head]: { ...(typeof current === 'object' ? current : {}), [inner]: text } };
}
