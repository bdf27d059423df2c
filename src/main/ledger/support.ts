// Small helpers shared by the repositories: the clock, ISO times, canonical JSON and hashing.
import { createHash } from 'node:crypto';
import { isJsonObject, stringifyJson } from '../../shared/json';

export type Clock = () => Date;
export const systemClock: Clock = () => new Date();

/** Fixed-width ISO-8601 UTC with milliseconds: text order is time order in every index. */
export function isoTime(value: Date | string): string {
  const date = typeof value === 'string' ? new Date(value) : value;
  if (Number.isNaN(date.getTime())) throw new RangeError(`not a date: ${String(value)}`);
  return date.toISOString();
}

/** JSON with object keys sorted at every depth, so equal content always hashes equal. */
export function canonicalJson(value: unknown): string {
  return stringifyJson(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (isJsonObject(value)) {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortKeys(value[key])]),
    );
  }
  return value;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

export const toFlag = (value: boolean): number => (value ? 1 : 0);
