// The body parser of the V2 API and the listener answers exactly as parseJson does — the same value (numbers as exact
// text, own keys, key order) or the same error — for usual bodies, edge cases and garbage.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { isLosslessNumber, parseJson } from '../../../src/shared/json';
import { parseBody } from '../../../src/shared/json-body';

type Outcome = { value: unknown } | { error: string; name: string };

function outcome(parse: (text: string) => unknown, text: string): Outcome {
  try {
    return { value: parse(text) };
  } catch (err) {
    return { error: (err as Error).message, name: (err as Error).name };
  }
}

const expectSame = (text: string): void => {
  expect(outcome(parseBody, text)).toStrictEqual(outcome(parseJson, text));
};

describe('parseBody', () => {
  test('a pay-in body: decimals keep their text, safe integers are numbers, key order kept', () => {
    const text = '{"merchant_id":"m","amount":25.50,"code":200,"big":12345678901234567890,"neg":-0,"exp":1E2,"tiny":1e-11,"nested":{"a":[1,2.0,{"b":null}]},"ok":true}';
    const body = parseBody(text) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['merchant_id', 'amount', 'code', 'big', 'neg', 'exp', 'tiny', 'nested', 'ok']);
    expect(isLosslessNumber(body.amount) && body.amount.value).toBe('25.50');
    expect(body.code).toBe(200);
    expect(Object.is(body.neg, -0)).toBe(true);
    expectSame(text);
  });

  test.each([
    ['', 'empty text'],
    ['   ', 'only white space'],
    ['{"a":1', 'unterminated object'],
    ['{"a":1,}', 'trailing comma'],
    ['[1,]', 'trailing comma in an array'],
    ['{"a":01}', 'leading zero'],
    ['{"a":1.}', 'dot without digits'],
    ['{"a":"\u0001"}', 'raw control character'],
    ['{"a":"\\x"}', 'bad escape'],
    ["{'a':1}", 'single quotes'],
    ['\ufeff{}', 'byte order mark'],
    ['{"a":1,"a":2}', 'a key repeated with another value'],
    ['{"a":1,"a":1}', 'a key repeated with the same value'],
    ['{"a":{"x":[1]},"a":{"x":[1]}}', 'a key repeated with an equal object'],
    ['{"a":{"x":1},"a":2}', 'a repeated key whose first value had members'],
    ['{"__proto__":1}', '__proto__ with a number'],
    ['{"__proto__":{"x":1.5}}', '__proto__ with an object'],
    ['{"2":1.5,"1":2.5,"b":3.5}', 'array-index keys'],
    ['{"a\\"b":"c\\\\d\\u00e9\\n","e":"\\ud83d\\ude00"}', 'escapes in keys and values'],
    ['"just a string"', 'a top-level string'],
    ['12.30', 'a top-level decimal'],
    ['-12', 'a top-level integer'],
    ['9007199254740993', 'an unsafe integer'],
    ['[[[[[[[[[[1.5]]]]]]]]]]', 'nesting'],
    [' \n\t\r{ "a" : [ 1 , 2.5 ] } \n', 'white space everywhere'],
    ['{"a":1}x', 'text after the value'],
    ['nul', 'a partial keyword'],
    ['{"a":-}', 'a lone minus'],
    ['{"a":1e}', 'an exponent without digits'],
  ])('%s (%s): same as parseJson', (text) => {
    expectSame(text);
  });

  test('deep nesting gives parseJson’s answer, whatever it is', () => {
    expectSame(`${'['.repeat(20_000)}1.5${']'.repeat(20_000)}`);
  });

  test('any JSON text, compact or spaced (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(undefined, 1, '\t'), (value, space) => {
        expectSame(JSON.stringify(value, null, space));
      }),
      { numRuns: 500 },
    );
  });

  test('objects with repeated keys and numbers in every JSON form (property)', () => {
    const number = fc.oneof(
      fc.integer().map(String),
      fc.bigInt({ min: -(10n ** 25n), max: 10n ** 25n }).map(String),
      fc.tuple(fc.integer({ min: -999, max: 999 }), fc.nat({ max: 999_999 }), fc.constantFrom('', 'e5', 'E-3', 'e+0')).map(([i, f, e]) => `${i}.${f}${e}`),
      fc.constantFrom('-0', '0', '0.0', '1e400', '-1e-400', '5e-324', '25.50'),
    );
    const leaf = fc.oneof(number, fc.string().map((s) => JSON.stringify(s)), fc.constantFrom('true', 'false', 'null', '{}', '[]'));
    const key = fc.oneof(fc.constantFrom('a', 'b', 'amount', '0', '1', '__proto__', 'é', ''), fc.string());
    const object = fc.array(fc.tuple(key, leaf), { maxLength: 8 }).map((members) => `{${members.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`);
    const text = fc.oneof(object, fc.array(object, { maxLength: 4 }).map((objects) => `{"items":[${objects.join(',')}],"n":1.5}`));
    fc.assert(
      fc.property(text, (t) => expectSame(t)),
      { numRuns: 1000 },
    );
  });

  test('JSON text with one character inserted, removed or changed (property)', () => {
    const edit = fc.tuple(fc.jsonValue(), fc.nat(), fc.constantFrom('insert', 'remove', 'replace'), fc.constantFrom('"', ',', ':', '{', '}', '[', ']', '1', '.', 'e', '-', ' ', '\\', 'x', '\u0000'));
    fc.assert(
      fc.property(edit, ([value, at, how, ch]) => {
        const text = JSON.stringify(value);
        const i = at % (text.length + 1);
        const edited = how === 'insert' ? text.slice(0, i) + ch + text.slice(i) : how === 'remove' ? text.slice(0, i) + text.slice(i + 1) : text.slice(0, i) + ch + text.slice(i + 1);
        expectSame(edited);
      }),
      { numRuns: 1000 },
    );
  });
});
