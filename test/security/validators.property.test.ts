// The shared validators (src/shared/spec/field-rules.ts) take anything a
// renderer, a merchant or a gateway could send. Property: they never throw, always return a
// well-formed result, and every problem names a field of the spec's table; a valid body with one
// field broken is refused naming that field (and only it, or its expiry twin).
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { LosslessNumber } from '../../src/shared/json';
import {
  PAYIN_FIELD_RULES,
  PAYIN_STATUS_FIELD_RULES,
  PAYOUT_FIELD_RULES,
  PAYOUT_STATUS_FIELD_RULES,
  TOKEN_CHARGE_FIELD_RULES,
  TOKENIZATION_FIELD_RULES,
  TOKENIZE_CLAIM_RULES,
  validatePayinCreate,
  validatePayinStatusRead,
  validatePayoutCreate,
  validatePayoutStatusRead,
  validateTokenChargeCreate,
  validateTokenizationCreate,
  validateTokenizeClaims,
  type FieldRule,
  type ValidationResult,
} from '../../src/shared/spec/field-rules';
import { PAYIN_METHODS, PAYOUT_METHODS } from '../../src/shared/spec/methods';
import { payinBody, payoutBody, tokenChargeBody, tokenizationBody } from '../helpers/fixtures';
import { checkParams, hostileValue, prototypePollution, show } from './helpers/arbitraries';

const NOW = Date.now();
const merchant = { merchant_id: 'm-1', merchant_site_id: 's-1' };
const exact = <T extends object>(body: T): T => ({ ...body, amount: new LosslessNumber(String((body as { amount: unknown }).amount)) });

interface Subject {
  name: string;
  rules: readonly FieldRule[];
  validate: (body: unknown) => ValidationResult;
  /** Valid bodies to break one field of. */
  valid: Record<string, unknown>[];
  /** Fields that stand for one fact and are named together. */
  twins?: Record<string, string[]>;
}

const subjects: Subject[] = [
  { name: 'validatePayinCreate', rules: PAYIN_FIELD_RULES, validate: (b) => validatePayinCreate(b, { now: NOW }), valid: PAYIN_METHODS.map((m) => exact(payinBody(merchant, m, `r-${m}`)) as unknown as Record<string, unknown>) },
  { name: 'validateTokenizationCreate', rules: TOKENIZATION_FIELD_RULES, validate: (b) => validateTokenizationCreate(b, { now: NOW }), valid: [exact(tokenizationBody(merchant, 'r-t', 'a.b.c', 'https://shop.example/n')) as unknown as Record<string, unknown>] },
  { name: 'validateTokenChargeCreate', rules: TOKEN_CHARGE_FIELD_RULES, validate: (b) => validateTokenChargeCreate(b, { now: NOW }), valid: [exact(tokenChargeBody(merchant, 'r-c', 'a.b.c')) as unknown as Record<string, unknown>] },
  { name: 'validatePayoutCreate', rules: PAYOUT_FIELD_RULES, validate: (b) => validatePayoutCreate(b, { now: NOW }), valid: PAYOUT_METHODS.map((m) => exact(payoutBody(merchant, m, `p-${m}`)) as unknown as Record<string, unknown>) },
  { name: 'validatePayinStatusRead', rules: PAYIN_STATUS_FIELD_RULES, validate: validatePayinStatusRead, valid: [{ merchant_id: 'm-1', request_id: 'r-1' }], twins: { request_id: ['payin_id'] } },
  { name: 'validatePayoutStatusRead', rules: PAYOUT_STATUS_FIELD_RULES, validate: validatePayoutStatusRead, valid: [{ merchant_id: 'm-1', payout_id: '0b6f4d1e-2f7a-4c1e-9a57-3f1d2c4b5a69' }, { merchant_id: 'm-1', merchantReference: 'po-ref-1' }], twins: { payout_id: ['merchantReference'], merchantReference: ['payout_id'] } },
  {
    name: 'validateTokenizeClaims',
    rules: TOKENIZE_CLAIM_RULES,
    validate: (b) => validateTokenizeClaims(b, { now: NOW }),
    valid: [{ cardholder_number: '4111111111111111', cardholder_name: 'Ana Lima', cardholder_exp_month: '12', cardholder_exp_year: '2031' }],
  },
];

/** The result is well-formed, and every problem names a field of this validator's table. */
function checkResult(subject: Subject, result: ValidationResult): void {
  const known = new Set([...subject.rules.map((r) => r.field), '(body)']);
  expect(typeof result.ok).toBe('boolean');
  expect(result.ok).toBe(result.issues.length === 0);
  expect(result.primary === null).toBe(result.ok);
  for (const issue of result.issues) {
    expect(known.has(issue.field), `${subject.name}: unknown field ${issue.field}`).toBe(true);
    expect(typeof issue.message === 'string' && issue.message.length > 0).toBe(true);
    expect(issue.status_code).toBeDefined();
    expect(issue.reason_code).toMatch(/^[A-Z_]+$/);
    expect(result.details[issue.field]).toBeTypeOf('string');
  }
  expect(Object.keys(result.details).sort()).toEqual([...new Set(result.issues.map((i) => i.field))].sort());
}

function setPath(body: Record<string, unknown>, field: string, value: unknown): Record<string, unknown> {
  // Copies only the objects on the path (structuredClone would turn LosslessNumber into a plain object).
  const copy = { ...body };
  const parts = field.split('.');
  let parent = copy;
  for (const part of parts.slice(0, -1)) {
    if (typeof parent[part] !== 'object' || parent[part] === null) return copy;
    parent[part] = { ...(parent[part] as Record<string, unknown>) };
    parent = parent[part] as Record<string, unknown>;
  }
  const last = parts.at(-1) as string;
  if (value === undefined) delete parent[last];
  else parent[last] = value;
  return copy;
}

/** Fields whose change alters which other fields are required or checked. */
const STRUCTURAL = new Set(['payment_method', 'method', 'paymentDetails', 'customer', 'paymentDetails.method']);

describe('shared validators under hostile input', () => {
  afterAll(() => {
    expect(prototypePollution()).toEqual([]);
  });

  for (const subject of subjects) {
    describe(subject.name, () => {
      it('accepts its valid bodies (control)', () => {
        for (const body of subject.valid) expect(subject.validate(body).issues).toEqual([]);
      });

      it('never throws on any value and always answers with issues naming its fields', () => {
        fc.assert(
          fc.property(hostileValue(), (value) => {
            checkResult(subject, subject.validate(value));
          }),
          checkParams(300),
        );
      });

      it('names the broken field when one field of a valid body is replaced or removed', () => {
        const fields = subject.rules.map((r) => r.field).filter((f) => !STRUCTURAL.has(f));
        fc.assert(
          fc.property(fc.constantFrom(...subject.valid), fc.constantFrom(...fields), fc.option(hostileValue(), { nil: undefined }), (body, field, value) => {
            const result = subject.validate(setPath(body, field, value));
            checkResult(subject, result);
            if (result.ok) return;
            const rule = subject.rules.find((r) => r.field === field) as FieldRule;
            const twins = new Set([field, rule.pairedMonth, ...subject.rules.filter((r) => r.pairedMonth === field).map((r) => r.field), ...(subject.twins?.[field] ?? [])]);
            expect(result.details, `${field} = ${show(value)}`).toHaveProperty([field]);
            for (const named of Object.keys(result.details)) expect(twins.has(named), `${field} broken, ${named} named`).toBe(true);
          }),
          checkParams(400),
        );
      });
    });
  }
});
