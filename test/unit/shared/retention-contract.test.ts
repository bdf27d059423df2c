// The retention policy's bounds, with the message a person sees for a value outside them.
import { describe, expect, test } from 'vitest';
import { retentionPolicySchema } from '../../../src/shared/contract/retention';

describe('retention policy', () => {
  test('accepts whole numbers within bounds and names the bounds of one outside them', () => {
    expect(retentionPolicySchema.safeParse({ maxCount: 10, maxMiB: 102_400, maxAgeDays: 3_650 }).success).toBe(true);
    const refused = retentionPolicySchema.safeParse({ maxCount: 9, maxMiB: 102_401, maxAgeDays: 1.5 });
    expect(refused.success).toBe(false);
    expect(Object.fromEntries(refused.error!.issues.map((i) => [i.path.join('.'), i.message]))).toEqual({
      maxCount: 'From 10 to 1,000,000 notifications.',
      maxMiB: 'From 1 to 102,400 MiB.',
      maxAgeDays: 'A whole number.',
    });
  });
});
