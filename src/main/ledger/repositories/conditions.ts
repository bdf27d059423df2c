// The WHERE terms of a filter whose parts are each optional: a term joins only when its value is
// given (not undefined, null or empty), with its one `?` value.
import type { SqlValue } from '../engine/types';

export interface Conditions {
  terms: string[];
  params: SqlValue[];
}

export function conditions(parts: readonly (readonly [term: string, value: SqlValue | undefined])[]): Conditions {
  const given = parts.filter(([, value]) => value !== undefined && value !== null && value !== '');
  return { terms: given.map(([term]) => term), params: given.map(([, value]) => value as SqlValue) };
}

/** `WHERE a AND b` (or nothing) of these conditions and fixed terms. */
export function whereOf(c: Conditions, fixed: readonly string[] = []): string {
  const all = [...fixed, ...c.terms];
  return all.length > 0 ? `WHERE ${all.join(' AND ')}` : '';
}
