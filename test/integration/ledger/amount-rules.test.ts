// Payout limits and approval policies are one kind of record: a rule about payout amounts per
// environment and currency (ledger/repositories/amount-rules.ts). Both are kept, replaced, found
// and removed alike, each in its own table with its own amounts.
import { afterEach, describe, expect, it } from 'vitest';
import { testLedger, type TestLedger } from '../../helpers/ledger';

let ledger: TestLedger | undefined;
afterEach(async () => {
  await ledger?.close();
  ledger = undefined;
});

describe('rules about payout amounts', () => {
  it('keep one limit and one policy per environment and currency, in their own tables, found the same way', async () => {
    ledger = await testLedger();
    const { repos, db } = ledger;
    const uses = [
      { rules: repos.limits, table: 'payout_limits', any: { perPayoutMax: '100', dailyMax: null }, live: { perPayoutMax: null, dailyMax: '1000.5' } },
      { rules: repos.approvalPolicies, table: 'approval_policies', any: { mode: 'always', payoutAbove: null, batchAbove: null }, live: { mode: 'threshold', payoutAbove: '50', batchAbove: '500' } },
    ] as const;
    for (const { rules, table, any, live } of uses) {
      const set = (rule: object) => rules.upsert(rule as never);
      expect(await set({ environment: 'any', currency: 'EUR', ...any })).toMatchObject({ environment: 'any', currency: 'EUR', ...any });
      await set({ environment: 'live', currency: 'EUR', ...any });
      // Set again: replaced, not added.
      await set({ environment: 'live', currency: 'EUR', ...live });
      await set({ environment: 'live', currency: 'USD', ...live });
      expect((await rules.all()).map((rule) => `${rule.currency}/${rule.environment}`), table).toEqual(['EUR/any', 'EUR/live', 'USD/live']);
      expect(await rules.find('live', 'EUR')).toMatchObject({ environment: 'live', currency: 'EUR', ...live, updatedAt: expect.any(String) });
      // Every rule a live payout in EUR meets, the one for every environment first; the one that governs it, its own.
      expect((await rules.applicable('live', 'EUR')).map((rule) => rule.environment)).toEqual(['any', 'live']);
      expect(await rules.ruleFor('live', 'EUR')).toMatchObject({ environment: 'live', ...live });
      expect(await rules.ruleFor('local', 'EUR')).toMatchObject({ environment: 'any', ...any });
      expect(await rules.ruleFor('local', 'USD')).toBeUndefined();
      expect(await rules.remove('live', 'EUR')).toBe(true);
      expect(await rules.remove('live', 'EUR')).toBe(false);
      expect(await db.all(`SELECT currency, environment FROM ${table} ORDER BY currency, environment`)).toEqual([
        { currency: 'EUR', environment: 'any' },
        { currency: 'USD', environment: 'live' },
      ]);
    }
  });
});
