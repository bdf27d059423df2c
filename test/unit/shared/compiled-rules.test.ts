// The compiled form of a field-rule table (what the validators run) means exactly what the table
// means read plainly by applyRules: the same issues, in the same order, with the same messages
// and codes, for good, bad and strange bodies alike.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { LosslessNumber } from '../../../src/shared/json';
import { compileRules } from '../../../src/shared/spec/compiled-rules';
import {
  PAYIN_FIELD_RULES,
  PAYIN_STATUS_FIELD_RULES,
  PAYOUT_FIELD_RULES,
  PAYOUT_STATUS_FIELD_RULES,
  TOKEN_CHARGE_FIELD_RULES,
  TOKENIZATION_FIELD_RULES,
  TOKENIZE_CLAIM_RULES,
  type FieldRule,
} from '../../../src/shared/spec/field-rules';
import { PAYIN_METHODS, PAYOUT_METHODS } from '../../../src/shared/spec/methods';
import { applyRules, type ValidationOptions } from '../../../src/shared/spec/rule-engine';

const NOW = Date.parse('2030-06-15T12:00:00Z');

const TABLES: Record<string, readonly FieldRule[]> = {
  payin: PAYIN_FIELD_RULES,
  tokenization: TOKENIZATION_FIELD_RULES,
  tokenCharge: TOKEN_CHARGE_FIELD_RULES,
  payinStatus: PAYIN_STATUS_FIELD_RULES,
  tokenizeClaims: TOKENIZE_CLAIM_RULES,
  payout: PAYOUT_FIELD_RULES,
  payoutStatus: PAYOUT_STATUS_FIELD_RULES,
};

/** Values that pass some check, fail others, or are of no JSON type at all. */
const VALUES: readonly unknown[] = [
  null, '', '   ', '\t\n', 'x', 'Ana Lima', 'Ána Łima', '  padded  ', 'a\u0001b', 'tab\there', 'del\u007f', 'x'.repeat(255), 'x'.repeat(256),
  '😀 emoji', '\ud800lone', 'm', 's', 'other-site', 'credit_card', 'credit_card_ftd', 'crypto', 'fps', 'open_banking', 'blik', 'interac', 'nope',
  'EUR', 'eur', 'XXX', 'GBP', 'DEU', 'PRT', 'GBR', 'DE', 'a@b.co', 'not-an-email', `${'a'.repeat(250)}@b.co`,
  'https://m.example/n', 'http://127.0.0.1:9/n', 'ftp://m.example', 'https://', 'https://m.example/has space', '198.51.100.4', '256.1.1.1',
  '01.2.3.4', '::1', '2001:db8::1', ':::', '+351 912 345 678', '+4915112345678', '0049151', '1991-02-28', '1991-02-30', '2031-01-01',
  '1899-12-31', '4111111111111111', '4111111111111112', '5555555555554444', '411111111111', '01', '06', '05', '07', '12', '13', '0', '1',
  '2030', '2029', '2050', '2051', '123', '1234', '12345', '12', 'a.b.c', 'eyJhbGciOiJFZERTQSJ9.eyJ9.c2ln', 'bad jwt', 'DE89370400440532013000',
  'DE89 3704 0044 0532 0130 00', 'DE89370400440532013001', 'DEUTDEFF', 'DEUTDEFF500', 'deutdeff', '123456', '12345678', '1234567',
  '0x52908400098527886E0F7030069857D2E4169EE7', 'short', '3b241101-e2bb-4255-8caf-4136c566a962', '3B241101-E2BB-4255-8CAF-4136C566A962',
  'not-a-uuid', true, false, 0, 1, -1, 25, 25.5, 0.1, NaN, Infinity, -0, 2 ** 60, new LosslessNumber('10.50'), new LosslessNumber('10.500'),
  new LosslessNumber('10.505'), new LosslessNumber('0.0000000001'), new LosslessNumber('0.00000000001'), new LosslessNumber('0'),
  new LosslessNumber('-5.5'), new LosslessNumber('1e20'), new LosslessNumber('123456789012345.5'), new LosslessNumber('1234567890123456'),
  [], ['x'], {}, { method: 'fps' }, { firstName: 'A', lastName: 'B', email: 'a@b.co' },
];

const value = fc.constantFrom(...VALUES);
const absent = Symbol('absent');

/** A body over the table's fields: each one absent, some value, or (nested) under a strange parent. */
function bodyFor(rules: readonly FieldRule[]): fc.Arbitrary<Record<string, unknown>> {
  const fields = [...new Set(rules.map((r) => r.field))];
  const slots = fields.map((field) => fc.tuple(fc.constant(field), fc.oneof(fc.constant<unknown>(absent), value, fc.string(), fc.integer())));
  const parents = [...new Set(fields.filter((f) => f.includes('.')).map((f) => f.split('.')[0] as string))];
  const parentShapes = parents.map((parent) => fc.tuple(fc.constant(parent), fc.constantFrom<unknown>('object', absent, null, 'x', [], 0)));
  // Expiry pairs: often a real month and year around NOW, so "expired" and "this month" come up.
  const pairs = rules.filter((r) => r.pairedMonth !== undefined).map((r) => [r.pairedMonth as string, r.field] as const);
  const expiry = fc.constantFrom<readonly [string, string] | null>(null, ['05', '2030'], ['06', '2030'], ['07', '2030'], ['12', '2029'], ['01', '2031']);
  return fc.tuple(fc.tuple(...slots), fc.tuple(...parentShapes), fc.boolean(), expiry).map(([values, shapes, unknownExtra, monthYear]) => {
    const body: Record<string, unknown> = {};
    for (const [parent, shape] of shapes) {
      if (shape === 'object') body[parent] = {};
      else if (shape !== absent) body[parent] = shape;
    }
    const chosen = new Map<string, unknown>(values);
    if (monthYear !== null) {
      for (const [month, year] of pairs) {
        chosen.set(month, monthYear[0]);
        chosen.set(year, monthYear[1]);
      }
    }
    for (const [field, v] of chosen) {
      if (v === absent) continue;
      const parts = field.split('.');
      const key = parts.pop() as string;
      let holder: unknown = body;
      for (const part of parts) holder = (holder as Record<string, unknown>)[part];
      if (typeof holder === 'object' && holder !== null && !Array.isArray(holder)) (holder as Record<string, unknown>)[key] = v;
      // A field under a non-object parent cannot be set: that is one of the cases under test.
    }
    if (unknownExtra) body.unexpected_field = 'ignored';
    return body;
  });
}

const method = fc.constantFrom<string | undefined>(undefined, ...PAYIN_METHODS, ...PAYOUT_METHODS, 'nope');
const options = fc.record(
  {
    now: fc.constantFrom<number | Date>(NOW, new Date(NOW), Date.parse('2030-07-01T00:00:00Z'), Date.parse('2029-12-31T23:59:59Z')),
    siteId: fc.constantFrom<string | undefined>(undefined, 's', 'other-site'),
  },
  { requiredKeys: [] },
) as fc.Arbitrary<ValidationOptions>;

describe('compiled rule tables', () => {
  for (const [name, rules] of Object.entries(TABLES)) {
    test(`${name}: the same issues as applyRules for any body (property)`, () => {
      const compiled = compileRules(rules);
      fc.assert(
        fc.property(bodyFor(rules), method, options, (body, m, opts) => {
          expect(compiled.apply(body, m, opts)).toStrictEqual(applyRules(rules, body, m, opts));
        }),
        { numRuns: 400 },
      );
    });
  }

  test('an expired card names year and month, after every other issue, as applyRules does', () => {
    const compiled = compileRules(PAYIN_FIELD_RULES);
    const body = { payment_method: 'credit_card', cardExpireMonth: '05', cardExpireYear: '2030', cardCvv: '1' };
    const issues = compiled.apply(body, 'credit_card', { now: NOW });
    expect(issues).toStrictEqual(applyRules(PAYIN_FIELD_RULES, body, 'credit_card', { now: NOW }));
    expect(issues.slice(-2).map((i) => [i.field, i.message, i.reason_code])).toEqual([
      ['cardExpireYear', 'the card has expired', 'INVALID_EXPIRY'],
      ['cardExpireMonth', 'the card has expired', 'INVALID_EXPIRY'],
    ]);
  });

  test('a table is compiled once and can be applied any number of times', () => {
    const compiled = compileRules(PAYOUT_STATUS_FIELD_RULES);
    const first = compiled.apply({ payout_id: 'not-a-uuid' }, undefined);
    expect(compiled.apply({ payout_id: 'not-a-uuid' }, undefined)).toStrictEqual(first);
    expect(first.map((i) => i.field)).toEqual(['merchant_id', 'payout_id']);
  });
});
