// The pure parts of settlement: fees, periods, IBANs, the XML writer and the draft's edge cases.
import { describe, expect, test } from 'vitest';
import { demoIban } from '../../../src/emulator/domain/settlement/bank-account';
import { draftSettlement, type SettleablePayin } from '../../../src/emulator/domain/settlement/draft';
import { noSettlementFaults } from '../../../src/emulator/domain/settlement/faults';
import { checkFeeRate, DEFAULT_FEES, feeOf, parseFeeOption } from '../../../src/emulator/domain/settlement/fees';
import { describePeriod, parsePeriod, windowOf } from '../../../src/emulator/domain/settlement/periods';
import { buildXml } from '../../../src/emulator/reports/xml';
import { sumAmounts } from '../../../src/shared/money';

describe('feeOf', () => {
  test.each([
    ['25.50', 'EUR', '2.9', '0.25', '0.99', '24.51'],
    ['5.00', 'EUR', '0.5', '0.10', '0.13', '4.87'], // 0.125: half up
    ['3.00', 'EUR', '0.5', '0.10', '0.12', '2.88'], // 0.115
    ['1000', 'JPY', '2.9', '0.25', '29', '971'],
    ['10.50', 'JPY', '1', '0', '0.5', '10'], // what is below the yen stays with the fee
    ['10', 'KWD', '2.9', '0.25', '0.540', '9.460'],
    ['0.0012345678', 'EUR', '1', '0', '0.0012345678', '0.00'],
    ['12.3456789', 'EUR', '1', '0', '0.1256789', '12.22'], // 0.123456789 → 0.12, and the dust
    ['0.10', 'USD', '2.9', '0.25', '0.10', '0.00'], // capped at the amount
    ['999999999999999.99', 'EUR', '2.9', '0.25', '29000000000000.25', '970999999999999.74'],
    ['100', 'EUR', '0', '0', '0.00', '100.00'],
  ])('%s %s at %s percent + %s: fee %s, net %s', (amount, currency, percent, fixed, fee, net) => {
    const r = feeOf(amount, currency, { percent, fixed });
    expect(r).toEqual({ fee, net });
    expect(sumAmounts([r.fee, r.net])).toBe(sumAmounts([amount]));
  });

  test('every pay-in method has a default fee', () => {
    expect(Object.keys(DEFAULT_FEES).sort()).toEqual(['applepay', 'blik', 'credit_card', 'credit_card_ftd', 'crypto', 'googlepay', 'interac', 'open_banking']);
  });
});

describe('fee settings', () => {
  test('--fee METHOD=PCT%+FIXED', () => {
    expect(parseFeeOption('credit_card=2.9%+0.25')).toEqual({ method: 'credit_card', rate: { percent: '2.9', fixed: '0.25' } });
    expect(parseFeeOption('blik=1.5%')).toEqual({ method: 'blik', rate: { percent: '1.5', fixed: '0' } });
    expect(parseFeeOption(' blik = 1 % + 0.1 ')).toMatch(/pay-in method/);
    expect(parseFeeOption('paypal=1%')).toMatch(/pay-in method/);
    expect(parseFeeOption('blik=1')).toMatch(/PERCENT%\+FIXED/);
    expect(parseFeeOption('blik=101%')).toMatch(/percent must be/);
  });

  test('rates are decimals in range with at most 4 decimals', () => {
    expect(checkFeeRate('2.90', 0.1)).toEqual({ percent: '2.9', fixed: '0.1' });
    expect(checkFeeRate('-1', '0')).toMatch(/percent/);
    expect(checkFeeRate('1.00001', '0')).toMatch(/percent/);
    expect(checkFeeRate('1', '-0.01')).toMatch(/fixed/);
    expect(checkFeeRate('1', 'x')).toMatch(/fixed/);
  });
});

describe('periods', () => {
  test('parse and describe', () => {
    expect([parsePeriod('10s'), parsePeriod('5m'), parsePeriod('1h'), parsePeriod('1d'), parsePeriod('1500ms')]).toEqual([10_000, 300_000, 3_600_000, 86_400_000, 1_500]);
    expect([parsePeriod('999ms'), parsePeriod('2d'), parsePeriod('1w'), parsePeriod('s'), parsePeriod('-1s')]).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect([describePeriod(86_400_000), describePeriod(3_600_000), describePeriod(90_000), describePeriod(1_500)]).toEqual(['1d', '1h', '90s', '1500ms']);
  });

  test('a window is the period, cut at the previous and this cut-off', () => {
    const t = Date.parse('2024-05-01T10:00:00Z');
    const day = 86_400_000;
    const at = (s: string): number => Date.parse(s);
    expect(windowOf(t, day, undefined, at('2024-05-03T00:00:00Z'))).toEqual({ start: at('2024-05-01T00:00:00Z'), end: at('2024-05-02T00:00:00Z') });
    expect(windowOf(t, day, at('2024-05-01T09:00:00Z'), at('2024-05-01T11:00:00Z'))).toEqual({ start: at('2024-05-01T09:00:00Z'), end: at('2024-05-01T11:00:00Z') });
    expect(windowOf(t, day, at('2024-04-30T12:00:00Z'), at('2024-05-02T00:00:00Z')).start).toBe(at('2024-05-01T00:00:00Z'));
  });
});

test('demo IBANs carry ISO 13616 check digits', () => {
  expect(demoIban('0532013000')).toBe('DE89370400440532013000'); // the standard's own example
  expect(demoIban('11')).toBe('DE62370400440000000011');
});

describe('buildXml', () => {
  test('escapes text and attributes; writes the declaration, nesting and repeats', () => {
    const xml = buildXml({ '?xml': { '@_version': '1.0' }, R: { '@_a': 'x"<&>', B: ['1 < 2 & 3', 'é'], C: { '@_Ccy': 'EUR', '#text': 'a>b' }, E: {} } });
    expect(xml).toBe('<?xml version="1.0"?>\n<R a="x&quot;&lt;&amp;&gt;">\n  <B>1 &lt; 2 &amp; 3</B>\n  <B>é</B>\n  <C Ccy="EUR">a&gt;b</C>\n  <E/>\n</R>\n');
  });

  test('refuses what XML 1.0 cannot carry and names that are not names', () => {
    expect(() => buildXml({ R: { A: 'bell\u0007' } })).toThrow(RangeError);
    expect(() => buildXml({ R: { A: 'half \uD800 pair' } })).toThrow(RangeError);
    expect(() => buildXml({ 'R x': { A: '1' } })).toThrow(RangeError);
    expect(buildXml({ R: { A: 'tab\tand\nline 😀' } })).toContain('<A>tab\tand\nline 😀</A>');
  });
});

describe('draftSettlement', () => {
  const payin = (n: number, amount: string): SettleablePayin => ({ payin_id: `p${n}`, request_id: `r${n}`, payment_method: 'credit_card', amount, currency: 'EUR', updated_at: `2024-05-01T10:00:0${n}.000Z` });
  let token = 0;
  const input = (payins: SettleablePayin[], armed = noSettlementFaults()) => ({
    currency: 'EUR',
    window: { start: Date.parse('2024-05-01T00:00:00Z'), end: Date.parse('2024-05-02T00:00:00Z') },
    settledAt: Date.parse('2024-05-02T00:00:00.050Z'),
    payins,
    armed,
    rateOf: () => DEFAULT_FEES.credit_card,
    uuid: () => 'stranger',
    token: () => String(++token).padStart(10, '0'),
  });

  test('a settlement whose every pay-in is left out by name is not made; the omissions name no settlement', () => {
    const armed = noSettlementFaults();
    armed.omit_payin.payin_ids = ['p1'];
    armed.credit_differs.next = 1;
    const d = draftSettlement(input([payin(1, '10.00')], armed));
    expect(d.settlement).toBeUndefined();
    expect(d.bankEntries).toEqual([]);
    expect(d.processed).toEqual([{ payin_id: 'p1', outcome: 'omitted' }]);
    expect(d.faults).toEqual([{ fault: 'omit_payin', settlement_id: null, payin_id: 'p1', detail: { request_id: 'r1', amount: '10.00' } }]);
    expect(d.armed.credit_differs.next).toBe(1);
    expect(d.armed.omit_payin.payin_ids).toEqual([]);
  });

  test('a settlement with nothing to pay has no bank credit, and a credit knob waits', () => {
    const armed = noSettlementFaults();
    armed.credit_differs.next = 1;
    const d = draftSettlement(input([payin(1, '0.10')], armed));
    expect(d.settlement).toMatchObject({ gross: '0.10', fees: '0.10', net: '0.00' });
    expect(d.bankEntries).toEqual([]);
    expect(d.armed.credit_differs.next).toBe(1);
  });

  test('the input knobs are not changed; the draft says what is left armed', () => {
    const armed = noSettlementFaults();
    armed.settle_twice.next = 2;
    const d = draftSettlement(input([payin(1, '10.00'), payin(2, '20.00')], armed));
    expect(armed.settle_twice.next).toBe(2);
    expect(d.armed.settle_twice.next).toBe(1);
    expect(d.lines.map((l) => [l.line_no, l.payin_id])).toEqual([[1, 'p1'], [2, 'p1'], [3, 'p2']]);
  });
});
