// Request bodies as the field-rule tables define them: their zod schemas and TypeScript types are
// derived from the tables (field-rules.ts), so a field is written once and the validator, the
// client's body types and the contract's forms all follow it. A field required always is required
// here; a conditional or optional one is optional (the validator enforces it per method); a
// forbidden one is absent.
import { z } from 'zod';
import { LosslessNumber } from '../json';
import type { FieldRule } from './rule-engine';

/** A JSON number as produced by parseJson (exact) or a plain safe number. */
export const JsonNumberSchema = z.union([z.number(), z.instanceof(LosslessNumber)]);
type JsonNumber = z.infer<typeof JsonNumberSchema>;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The JSON value a rule's field holds: an exact number, `true` for consent, an enum's values, or text. */
type ValueOf<R extends FieldRule> = R['type'] extends 'number'
  ? JsonNumber
  : R['check'] extends 'consent'
    ? true
    : R['type'] extends 'boolean'
      ? boolean
      : R extends { readonly values: readonly (infer V extends string)[] }
        ? V
        : string;

/** The rules of top-level fields holding a value (not "customer.email", not the "customer" object itself). */
type TopLevel<R extends FieldRule> = R extends { readonly field: `${string}.${string}` } | { readonly type: 'object' } ? never : R;

/** The rules under `prefix`, renamed to their key in that object ("customer.email" → "email"). */
export type Under<R extends FieldRule, P extends string> = R extends { readonly field: `${P}.${infer Key}` } ? Omit<R, 'field'> & { readonly field: Key } : never;

/** A flat body: required-always fields required, conditional and optional ones optional, forbidden ones absent. */
export type BodyOf<R extends FieldRule> = Simplify<
  { -readonly [K in TopLevel<R> as K['required'] extends 'always' ? K['field'] : never]: ValueOf<K> } & {
    -readonly [K in TopLevel<R> as K['required'] extends 'always' | 'forbidden' ? never : K['field']]?: ValueOf<K>;
  }
>;

type MethodsOf<R extends FieldRule> = R['required'] extends { readonly methods: readonly (infer M)[] } ? M : never;

/** One variant per method, discriminated by `method`: exactly the fields that method requires. */
export type PerMethod<R extends FieldRule, M extends string> = {
  [Method in M]: Simplify<{ method: Method } & { -readonly [K in R as Method extends MethodsOf<K> ? K['field'] : never]: ValueOf<K> }>;
}[M];

function valueSchema(rule: FieldRule): z.ZodType {
  if (rule.type === 'number') return JsonNumberSchema;
  if (rule.check === 'consent') return z.literal(true);
  if (rule.type === 'boolean') return z.boolean();
  if (rule.values !== undefined) return z.enum(rule.values as readonly [string, ...string[]]);
  return z.string();
}

/** The rules of one nested object, renamed to their key in it. */
export function rulesUnder<R extends FieldRule, const P extends string>(rules: readonly R[], prefix: P): Under<R, P>[] {
  return rules.filter((r) => r.field.startsWith(`${prefix}.`)).map((r) => ({ ...r, field: r.field.slice(prefix.length + 1) })) as unknown as Under<R, P>[];
}

/**
 * The schema of a body whose top-level fields the rules name; nested objects ("customer") are given
 * as schemas of their own (`nested`), built from their rules with rulesUnder.
 */
export function bodySchema<R extends FieldRule, N extends Record<string, z.ZodType> = Record<never, never>>(
  rules: readonly R[],
  nested: N = {} as N,
): z.ZodType<Simplify<BodyOf<R> & { [K in keyof N]: z.infer<N[K]> }>> {
  const shape: Record<string, z.ZodType> = {};
  for (const rule of rules) {
    if (rule.required === 'forbidden' || rule.field.includes('.') || rule.type === 'object') continue;
    shape[rule.field] = rule.required === 'always' ? valueSchema(rule) : valueSchema(rule).optional();
  }
  return z.object({ ...shape, ...nested }) as unknown as z.ZodType<Simplify<BodyOf<R> & { [K in keyof N]: z.infer<N[K]> }>>;
}

/** The rules' fields as a zod shape, every one optional (claims read from a JWT whose op decides which are present). */
export function optionalShape<R extends FieldRule>(rules: readonly R[]): { [K in R as K['field']]: z.ZodOptional<z.ZodType<ValueOf<K>>> } {
  return Object.fromEntries(rules.map((rule) => [rule.field, valueSchema(rule).optional()])) as { [K in R as K['field']]: z.ZodOptional<z.ZodType<ValueOf<K>>> };
}

/** A union discriminated by `method`: for each method, `method` and exactly the fields it requires. */
export function perMethodSchema<R extends FieldRule, const M extends string>(rules: readonly R[], methods: readonly [M, ...M[]]): z.ZodType<PerMethod<R, M>> {
  const variants = methods.map((method) => {
    const shape: Record<string, z.ZodType> = { method: z.literal(method) };
    for (const rule of rules) if (typeof rule.required === 'object' && rule.required.methods.includes(method)) shape[rule.field] = valueSchema(rule);
    return z.object(shape);
  });
  return z.discriminatedUnion('method', variants as [(typeof variants)[number], ...(typeof variants)[number][]]) as unknown as z.ZodType<PerMethod<R, M>>;
}
