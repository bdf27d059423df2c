// Hostile values for the property-based suites: anything a compromised renderer can put into IPC
// (structured clone: BigInt, Date, Map, Set, typed arrays, sparse arrays, null-prototype objects)
// or into a JSON body (deep nesting, huge strings, "__proto__" keys, lone surrogates, numbers at
// the edges), plus near-misses of the real values. PAYDESK_LONG=1 multiplies the run counts.
import fc from 'fast-check';
import { LosslessNumber } from '../../../src/shared/json';

export const LONG = process.env.PAYDESK_LONG === '1';

/** Runs per property: `n` by default, ten times more in the long mode. PAYDESK_SEED fixes the seed. */
export function propertyRuns(n: number): number {
  return LONG ? n * 10 : n;
}

/** fast-check parameters for every property: the suite seed when one is given, so a failure replays. */
export function checkParams(numRuns: number): fc.Parameters<unknown> {
  const seed = process.env.PAYDESK_SEED;
  return { numRuns: propertyRuns(numRuns), ...(seed ? { seed: Number(seed) } : {}) };
}

const edgeStrings = fc.constantFrom(
  '',
  ' ',
  '\u0000',
  '\ud800',
  '__proto__',
  'constructor',
  'prototype',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '../../etc/passwd',
  '%00',
  '4111111111111111',
  '4111 1111 1111 1111',
  '0.1',
  '1e309',
  '-0',
  'NaN',
  '10.505',
  '99999999999999999999.99',
  'x'.repeat(70_000),
);

const edgeNumbers = fc.constantFrom(0, -0, 1, -1, 0.1, 1e-7, 1e21, Number.MAX_SAFE_INTEGER + 2, Number.MAX_VALUE, Number.MIN_VALUE, NaN, Infinity, -Infinity);

export function scalar(): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.string(),
    fc.string({ unit: 'binary' }),
    edgeStrings,
    fc.integer(),
    fc.double(),
    edgeNumbers,
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.bigInt(),
    fc.date({ noInvalidDate: false }),
    fc.stringMatching(/^(0|[1-9]\d{0,19})(\.\d{1,12})?$/).map((text) => new LosslessNumber(text)),
  );
}

/** Any value at all, structured-clone exotica included. */
export function hostileValue(): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 3, arbitrary: scalar() },
    {
      weight: 3,
      arbitrary: fc.anything({
        withBigInt: true,
        withBoxedValues: true,
        withDate: true,
        withMap: true,
        withSet: true,
        withTypedArray: true,
        withNullPrototype: true,
        withSparseArray: true,
        withObjectString: true,
        maxDepth: 4,
      }),
    },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 6 }) },
    { weight: 1, arbitrary: deepNesting() },
    { weight: 1, arbitrary: fc.constant(JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}') as unknown) },
  );
}

/** [[[…]]] and {"a":{"a":…}} far deeper than any real input. */
function deepNesting(): fc.Arbitrary<unknown> {
  return fc.tuple(fc.integer({ min: 50, max: 2_000 }), fc.boolean()).map(([depth, asArray]) => {
    let value: unknown = 'bottom';
    for (let i = 0; i < depth; i++) value = asArray ? [value] : { a: value };
    return value;
  });
}

/** An object with (some of) the given keys, each holding a hostile value, sometimes with extra keys. */
export function objectWithKeys(keys: readonly string[]): fc.Arbitrary<Record<string, unknown>> {
  if (keys.length === 0) return fc.dictionary(fc.string(), scalar(), { maxKeys: 3 });
  return fc
    .tuple(fc.subarray([...keys]), fc.array(hostileValue(), { minLength: keys.length, maxLength: keys.length }), fc.option(fc.dictionary(fc.string(), scalar(), { maxKeys: 2 }), { nil: undefined }))
    .map(([chosen, values, extra]) => {
      const out: Record<string, unknown> = {};
      chosen.forEach((key, i) => {
        out[key] = values[i];
      });
      return extra ? { ...extra, ...out } : out;
    });
}

/** Object.prototype must come out of a property run as it went in. */
export function prototypePollution(): string[] {
  const found: string[] = [];
  const probe = {} as Record<string, unknown>;
  for (const key of ['polluted', 'isAdmin', 'admin']) if (probe[key] !== undefined) found.push(`Object.prototype.${key}`);
  for (const key of Object.getOwnPropertyNames(Object.prototype)) {
    if (!['constructor', '__defineGetter__', '__defineSetter__', 'hasOwnProperty', '__lookupGetter__', '__lookupSetter__', 'isPrototypeOf', 'propertyIsEnumerable', 'toString', 'valueOf', '__proto__', 'toLocaleString'].includes(key)) {
      found.push(`Object.prototype.${key}`);
    }
  }
  return found;
}

/** A short printable form of any value, for assertion messages (never throws). */
export function show(value: unknown, max = 200): string {
  let text: string;
  try {
    text = fc.stringify(value);
  } catch {
    text = `[${typeof value} that cannot be printed]`;
  }
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
