// A status badge's hint says its category once. "Success: Success" (200), "Pending:
// Pending" (101) and "System: System error" (501) said it twice.
import { describe, expect, it } from 'vitest';
import { categoryAndMeaning } from '../../../src/renderer/features/codes/category';
import { PAYIN_STATUS_CATALOGUE, PAYOUT_STATUS_CATALOGUE } from '../../../src/shared/spec/codes';

describe("a status code's category and meaning", () => {
  it.each([...PAYIN_STATUS_CATALOGUE, ...PAYOUT_STATUS_CATALOGUE].map((entry) => [String(entry.code), entry] as const))('%s says its category once', (_code, entry) => {
    const text = categoryAndMeaning(entry.category, entry.meaning);
    const [before, after] = text.split(': ');
    if (after !== undefined) expect(after.toLowerCase().startsWith((before ?? '').toLowerCase().replace(/e$/, '')), text).toBe(false);
    expect(text).toContain(entry.meaning);
  });

  it('reads 200, 101 and 302 as their meaning alone, and another code with its category first', () => {
    expect(categoryAndMeaning('success', 'Success')).toBe('Success');
    expect(categoryAndMeaning('pending', 'Pending')).toBe('Pending');
    expect(categoryAndMeaning('decline', 'Declined due to risk decision')).toBe('Declined due to risk decision');
    expect(categoryAndMeaning('customer_error', 'Customer cancelled')).toBe('Customer error: Customer cancelled');
    expect(categoryAndMeaning('validation', 'Invalid amount')).toBe('Validation: Invalid amount');
  });
});
