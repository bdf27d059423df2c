// The spec's field lists are written once, in the rule tables: the request schemas,
// the contract's form schemas, main's body builder and the forms' inputs are all read off them, so
// a field added to a table appears everywhere and nowhere needs editing.
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { payinCreateInputSchema, payoutFormSchema, tokenChargeInputSchema, tokenizeInputSchema } from '../../../src/shared/contract';
import {
  PAYIN_FIELD_RULES,
  PAYOUT_FIELD_RULES,
  TOKEN_CHARGE_FIELD_RULES,
  TOKENIZATION_FIELD_RULES,
  type FieldRule,
} from '../../../src/shared/spec/field-rules';
import { CARD_FIELDS, PAYIN_FORM_FIELDS, PAYIN_PROFILE_FIELDS, PAYOUT_PROFILE_FIELDS, payinFormRules, payoutDetailFields, payoutFormRules } from '../../../src/shared/spec/form-fields';
import { PAYIN_METHODS, PAYOUT_METHODS } from '../../../src/shared/spec/methods';
import { bodySchema } from '../../../src/shared/spec/request-shapes';
import { PayinCreateRequestSchema, PayoutCreateRequestSchema, TokenChargeRequestSchema, TokenizationCreateRequestSchema } from '../../../src/shared/spec/schemas';
import { payoutFields } from '../../../src/renderer/features/payouts/form-fields';
import { payinFieldSpecs, payoutFieldSpecs } from '../../../src/renderer/features/playground/fields';

interface JsonSchema {
  properties?: Record<string, JsonSchema>;
  required?: string[];
  oneOf?: JsonSchema[];
  const?: unknown;
}
const json = (schema: z.ZodType) => z.toJSONSchema(schema, { unrepresentable: 'any' }) as JsonSchema;
const sorted = (values: Iterable<string>) => [...values].sort();
const fieldsOf = (rules: readonly FieldRule[], required: (r: FieldRule) => boolean) => sorted(rules.filter((r) => !r.field.includes('.') && required(r)).map((r) => r.field));

describe('request schemas derived from the rule tables', () => {
  it.each([
    ['pay-in (2.1)', PayinCreateRequestSchema, PAYIN_FIELD_RULES],
    ['tokenization', TokenizationCreateRequestSchema, TOKENIZATION_FIELD_RULES],
    ['token charge', TokenChargeRequestSchema, TOKEN_CHARGE_FIELD_RULES],
  ] as const)('%s: every field the table allows, required exactly when the table requires it always', (_, schema, rules) => {
    const shape = json(schema);
    expect(sorted(Object.keys(shape.properties ?? {}))).toEqual(fieldsOf(rules, (r) => r.required !== 'forbidden'));
    expect(sorted(shape.required ?? [])).toEqual(fieldsOf(rules, (r) => r.required === 'always'));
  });

  it('payout (2.7): the top level, customer and one paymentDetails variant per method with exactly its fields', () => {
    const shape = json(PayoutCreateRequestSchema);
    expect(sorted(Object.keys(shape.properties ?? {}))).toEqual(fieldsOf(PAYOUT_FIELD_RULES, () => true));
    expect(sorted(Object.keys(shape.properties?.customer?.properties ?? {}))).toEqual(['email', 'firstName', 'lastName', 'phone']);
    const variants = shape.properties?.paymentDetails?.oneOf ?? [];
    expect(variants.map((v) => v.properties?.method?.const)).toEqual([...PAYOUT_METHODS]);
    for (const variant of variants) {
      const method = String(variant.properties?.method?.const);
      expect(sorted(variant.required ?? []), method).toEqual(sorted(['method', ...payoutDetailFields(method)]));
    }
  });

  it('a field added to a table is in the schema built from it, with its type', () => {
    const extra = { ...PAYIN_FIELD_RULES[0], field: 'loyalty_number', required: 'optional' } as const;
    const schema = bodySchema([...PAYIN_FIELD_RULES, extra]);
    expect(json(schema).properties?.loyalty_number).toEqual({ type: 'string' });
    expect(schema.safeParse({ ...validBody(), loyalty_number: 7 }).success).toBe(false);
    expect(schema.safeParse({ ...validBody(), loyalty_number: 'L-7' }).success).toBe(true);
  });
});

function validBody(): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const rule of PAYIN_FIELD_RULES) if (rule.required === 'always') body[rule.field] = rule.type === 'number' ? 10 : rule.field === 'payment_method' ? 'blik' : 'x';
  return body;
}

describe('the contract’s forms and the forms’ inputs, from the same tables', () => {
  it('a pay-in form takes every field of 2.1 but the profile’s, plus profileId', () => {
    const keys = Object.keys(payinCreateInputSchema.shape);
    expect(sorted(keys)).toEqual(sorted(['profileId', ...PAYIN_FIELD_RULES.map((r) => r.field).filter((f) => !(PAYIN_PROFILE_FIELDS as readonly string[]).includes(f))]));
    expect(sorted(Object.keys(tokenizeInputSchema.shape))).toEqual(sorted(['profileId', 'consent', ...PAYIN_FORM_FIELDS, ...CARD_FIELDS]));
    expect(sorted(Object.keys(tokenChargeInputSchema.shape))).toEqual(sorted(['profileId', 'tokenId', 'cardCvv', ...PAYIN_FORM_FIELDS]));
  });

  it('a payout form takes every field of 2.7 but the profile’s, nested as the body nests them', () => {
    const shape = payoutFormSchema.shape;
    const nested = (key: 'customer' | 'paymentDetails') => Object.keys((shape[key].unwrap() as z.ZodObject).shape).map((k) => `${key}.${k}`);
    const given = ['profileId', ...Object.keys(shape).filter((k) => k !== 'customer' && k !== 'paymentDetails' && k !== 'profileId'), ...nested('customer'), ...nested('paymentDetails')];
    const expected = PAYOUT_FIELD_RULES.filter((r) => r.type !== 'object' && r.field !== 'paymentDetails.method' && !(PAYOUT_PROFILE_FIELDS as readonly string[]).includes(r.field)).map((r) => r.field);
    expect(sorted(given)).toEqual(sorted(['profileId', ...expected]));
  });

  it('the payout form and the playground show the same inputs for every method, as the table orders them', () => {
    for (const method of PAYOUT_METHODS) {
      const paths = payoutFormRules(method).map((r) => r.field);
      expect(payoutFields(method).map((f) => f.path), method).toEqual(paths);
      expect(payoutFieldSpecs(method).map((f) => f.path), method).toEqual(paths);
    }
    for (const method of PAYIN_METHODS) expect(payinFieldSpecs(method).map((f) => f.path), method).toEqual(payinFormRules(method).map((r) => r.field));
  });
});
