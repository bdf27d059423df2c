// A count agrees with its noun ("1 row", never "1 rows"), wherever it is said.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { counted } from '../../../src/shared/counted';

const root = path.join(import.meta.dirname, '../../..');

describe('counted', () => {
  it('says one thing in the singular, any other count in the plural, grouped by thousands', () => {
    expect(counted(1, 'row')).toBe('1 row');
    expect(counted(0, 'row')).toBe('0 rows');
    expect(counted(2, 'payout')).toBe('2 payouts');
    expect(counted(12_345, 'time')).toBe('12,345 times');
    expect(counted(1, 'pay-in', 'pay-ins')).toBe('1 pay-in');
    expect(counted(3, 'LIVE payout')).toBe('3 LIVE payouts');
  });

  it.each([
    'src/renderer/features/reconciliation/ExportCsvButton.tsx',
    'src/renderer/features/approvals/ApprovalDetail.tsx',
    'src/renderer/features/approvals/SubmittedForApproval.tsx',
    'src/renderer/features/payouts/BatchProgress.tsx',
    'src/main/services/reconciliation/exceptions.ts',
  ])('%s puts no bare count before a plural noun', (file) => {
    // A number written straight before a plural ("${n} rows", "{count} payouts") reads "1 rows" for one.
    const source = readFileSync(path.join(root, file), 'utf8');
    expect(source.match(/[$]?\{[^{}]*\}\s(rows|payouts|times|pay-ins|items)\b/g) ?? []).toEqual([]);
  });
});
