// Inputs for every contract entry, derived from its own zod schema: mostly values of the right
// shape (the schema's keys, enum members and literals, plausible ids taken from a real ledger)
// with hostile values mixed in at every level, so the fuzz gets past the first type check and
// reaches the handlers and services behind it, not only the schema.
import fc from 'fast-check';
import type { z } from 'zod';
import { hostileValue } from './arbitraries';

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  options?: z.ZodType[];
  entries?: Record<string, string>;
  values?: unknown[];
  element?: z.ZodType;
  in?: z.ZodType;
  valueType?: z.ZodType;
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

export function fromSchema(schema: z.ZodType, plausible: fc.Arbitrary<string>, depth = 0): fc.Arbitrary<unknown> {
  const shaped = shapedFrom(schema, plausible, depth);
  return fc.oneof({ weight: 5, arbitrary: shaped }, { weight: 1, arbitrary: hostileValue() });
}

function shapedFrom(schema: z.ZodType, plausible: fc.Arbitrary<string>, depth: number): fc.Arbitrary<unknown> {
  const def = defOf(schema);
  if (depth > 4) return hostileValue();
  switch (def.type) {
    case 'object': {
      const shape = def.shape ?? {};
      const keys = Object.keys(shape);
      const fields = Object.fromEntries(keys.map((key) => [key, fromSchema(shape[key] as z.ZodType, plausible, depth + 1)]));
      return fc.tuple(fc.record(fields, { requiredKeys: [] }), fc.option(fc.dictionary(fc.string({ maxLength: 12 }), hostileValue(), { maxKeys: 2 }), { freq: 6, nil: undefined })).map(([record, extra]) =>
        extra ? { ...extra, ...record } : record,
      );
    }
    case 'optional':
      return fc.oneof(fc.constant(undefined), fromSchema(def.innerType as z.ZodType, plausible, depth + 1));
    case 'nullable':
      return fc.oneof(fc.constant(null), fromSchema(def.innerType as z.ZodType, plausible, depth + 1));
    case 'default':
    case 'readonly':
    case 'catch':
      return fromSchema(def.innerType as z.ZodType, plausible, depth + 1);
    case 'union':
      return fc.oneof(...(def.options ?? []).map((option) => fromSchema(option, plausible, depth + 1)));
    case 'pipe':
      return fromSchema(def.in as z.ZodType, plausible, depth + 1);
    case 'enum':
      return fc.constantFrom(...Object.values(def.entries ?? { x: 'x' }));
    case 'literal':
      return fc.constantFrom(...(def.values ?? [null]));
    case 'string':
      return fc.oneof(plausible, fc.string({ maxLength: 40 }), fc.constantFrom('', ' ', 'x'.repeat(5_000)));
    case 'number':
    case 'int':
      return fc.oneof(fc.integer({ min: 0, max: 5 }), fc.integer(), fc.double(), fc.constantFrom(NaN, Infinity, -1, 2 ** 31, 1e20));
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(fromSchema(def.element as z.ZodType, plausible, depth + 1), { maxLength: 3 });
    case 'record':
      return fc.dictionary(plausible, fromSchema(def.valueType as z.ZodType, plausible, depth + 1), { maxKeys: 3 });
    case 'undefined':
    case 'void':
      return fc.oneof(fc.constant(undefined), fc.constant(null), fc.constant({}));
    default:
      return hostileValue();
  }
}
