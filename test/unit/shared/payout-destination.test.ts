// One masker for a payout's destination: the fields by name (the emulator's admin
// view), the review's lines, the tables' one line and the audit log's words come from the same
// module, agree with each other, and never hold a full card number, IBAN, account number or wallet
// address.
import { describe, expect, it } from 'vitest';
import { LosslessNumber } from '../../../src/shared/json';
import { describeDestination, destinationSummary, maskedDestination, maskedDetails } from '../../../src/shared/payout-destination';
import { payoutDetailFields } from '../../../src/shared/spec/form-fields';
import { PAYOUT_METHODS } from '../../../src/shared/spec/methods';
import { samplePayoutForm } from '../../../src/shared/spec/samples';

const NOW = new Date('2026-03-01T10:00:00Z');

describe('payout destination masking', () => {
  it('words the audit log with the kind of destination and the tables’ one line', () => {
    const words = Object.fromEntries(PAYOUT_METHODS.map((method) => [method, describeDestination(method, samplePayoutForm(method, NOW).paymentDetails ?? {})]));
    expect(words).toEqual({
      credit_card: 'card 411111******1111',
      open_banking: 'IBAN DE•• … 3000',
      crypto: 'wallet ethereum 0x5290…9EE7',
      fps: 'account 40-12-76 ••••5678',
    });
    for (const method of PAYOUT_METHODS) {
      const details = samplePayoutForm(method, NOW).paymentDetails ?? {};
      expect(words[method]?.endsWith(destinationSummary(method, details))).toBe(true);
    }
    expect(describeDestination('sepa', { iban: 'DE89370400440532013000' })).toBe('unknown destination');
    expect(describeDestination('open_banking', {})).toBe('IBAN ?');
  });

  it('never shows a full number in any of its forms', () => {
    for (const method of PAYOUT_METHODS) {
      const details = samplePayoutForm(method, NOW).paymentDetails ?? {};
      const secrets = [details.cardNum, details.iban, details.accountNumber, details.walletAddress].filter((v): v is string => v !== undefined);
      expect(secrets.length, method).toBeGreaterThan(0);
      const shown = [
        describeDestination(method, details),
        destinationSummary(method, details),
        ...maskedDestination(method, details).map((l) => l.value),
        ...Object.values(maskedDetails(method, details)),
      ].join(' | ');
      for (const secret of secrets) expect(shown, method).not.toContain(secret);
    }
  });

  it('names each field the method requires, masked as the review masks it', () => {
    const at = (method: (typeof PAYOUT_METHODS)[number]) => maskedDetails(method, samplePayoutForm(method, NOW).paymentDetails ?? {});
    for (const method of PAYOUT_METHODS) expect(Object.keys(at(method)).sort(), method).toEqual([...payoutDetailFields(method)].sort());
    expect(at('credit_card')).toMatchObject({ cardNum: '411111******1111', cardHolder: 'Ana Lima' });
    expect(at('open_banking')).toMatchObject({ iban: 'DE•• •••• •••• •••• •• 3000' });
    expect(at('crypto')).toMatchObject({ walletAddress: '0x5290…9EE7', network: 'ethereum' });
    expect(at('fps')).toMatchObject({ sortCode: '40-12-76', accountNumber: '••••5678' });
    expect(maskedDetails('sepa', { iban: 'DE89370400440532013000' })).toEqual({});
  });

  it('reads stored requests as they are: white space in an IBAN, a number where text was expected', () => {
    expect(destinationSummary('open_banking', { iban: 'de89 3704 0044 0532 0130 00' })).toBe('DE•• … 3000');
    expect(destinationSummary('fps', { sortCode: '401276', accountNumber: new LosslessNumber('12345678') })).toBe('40-12-76 ••••5678');
    expect(maskedDestination('fps', { sortCode: 401276, accountNumber: 12345678 }).map((l) => l.value)).toEqual(['40-12-76', '••••5678', '']);
  });
});
