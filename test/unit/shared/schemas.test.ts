// Response and notification schemas are tolerant (unknown codes and fields kept, wrong-typed
// fields dropped); request schemas are strict enough to build bodies with exact amounts.
import { describe, expect, test } from 'vitest';
import { LosslessNumber, parseJson, stringifyJson } from '../../../src/shared/json';
import {
  ErrorResponseSchema,
  PayinNotificationSchema,
  PayinStatusResponseSchema,
  PayoutCreateRequestSchema,
  PayinCreateRequestSchema,
  TokenizationNotificationSchema,
} from '../../../src/shared/spec/schemas';

describe('tolerant responses', () => {
  test('unknown status and reason codes and extra fields are kept', () => {
    const parsed = PayinNotificationSchema.parse(parseJson('{"event":"v2_payin_notification","status_code":777,"reason_code":"BRAND_NEW","amount":10.50,"future_field":{"x":1}}'));
    expect(parsed.status_code).toBe(777);
    expect(parsed.reason_code).toBe('BRAND_NEW');
    expect((parsed as Record<string, unknown>).future_field).toEqual({ x: 1 });
    expect(stringifyJson({ amount: parsed.amount })).toBe('{"amount":10.50}');
  });

  test('missing fields, nulls and wrong types do not fail the parse', () => {
    expect(PayinStatusResponseSchema.parse({}).status_code).toBeUndefined();
    const odd = PayinStatusResponseSchema.parse({ status_code: true, payin_id: 5, currency: null });
    expect(odd.status_code).toBeUndefined();
    expect(odd.payin_id).toBeUndefined();
    expect(ErrorResponseSchema.parse({ details: 'not an object', status_code: 'C402' })).toMatchObject({ details: undefined, status_code: 'C402' });
    expect(TokenizationNotificationSchema.parse({ card: { brand: 'visa', extra: 1 } }).card).toEqual({ brand: 'visa', extra: 1 });
  });
});

describe('requests', () => {
  test('amounts are exact JSON numbers', () => {
    const body = PayoutCreateRequestSchema.parse({
      merchant_id: 'm', site_id: 's', method: 'fps', amount: new LosslessNumber('0.10'), currency: 'GBP', merchantReference: 'r', country: 'GBR',
      notificationUrl: 'https://x', customer: { firstName: 'a', lastName: 'b', email: 'a@b.co' },
      paymentDetails: { method: 'fps', sortCode: '123456', accountNumber: '12345678', accountHolder: 'A' },
    });
    expect(stringifyJson(body)).toContain('"amount":0.10');
  });

  test('an unknown payment_method is refused when building a request', () => {
    expect(PayinCreateRequestSchema.safeParse({ payment_method: 'paypal' }).success).toBe(false);
  });
});
