import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { isLosslessNumber, LosslessNumber, numberText, parseJson, stringifyJson } from '../../../src/shared/json';
import { amountText, checkAmount, compareAmounts, currencyScale, formatAmount, parseDecimal, sumAmounts, toJsonAmount, totalsByCurrency } from '../../../src/shared/money';

describe('exact JSON', () => {
  test('decimals keep their source text; safe integers become numbers', () => {
    const v = parseJson('{"amount":10.10,"big":12345678901234567890,"code":200,"tiny":1e-11}') as Record<string, unknown>;
    expect(isLosslessNumber(v.amount) && v.amount.value).toBe('10.10');
    expect(isLosslessNumber(v.big) && v.big.value).toBe('12345678901234567890');
    expect(v.code).toBe(200);
    expect(numberText(v.tiny)).toBe('1e-11');
    expect(stringifyJson(v)).toBe('{"amount":10.10,"big":12345678901234567890,"code":200,"tiny":1e-11}');
  });

  test('conflicting duplicate keys and malformed text throw; an identical repeat is harmless', () => {
    expect(() => parseJson('{"a":1,"a":2}')).toThrow();
    expect(parseJson('{"a":1,"a":1}')).toEqual({ a: 1 });
    expect(() => parseJson('{"a":')).toThrow();
  });

  test('round-trips any JSON text of decimals exactly (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), fc.nat({ max: 10 ** 9 }))), (pairs) => {
        const text = `[${pairs.map(([i, f]) => `${i}.${String(f).padStart(9, '0')}`).join(',')}]`;
        expect(stringifyJson(parseJson(text))).toBe(text);
      }),
      { numRuns: 200 },
    );
  });
});

describe('money', () => {
  test('scale is checked on the value: 10.50 and 10.500 pass at 2, 10.505 fails', () => {
    expect(checkAmount(new LosslessNumber('10.50'), 2)).toEqual({ ok: true, value: '10.50' });
    expect(checkAmount(new LosslessNumber('10.500'), 2)).toEqual({ ok: true, value: '10.50' });
    expect(checkAmount(new LosslessNumber('10.505'), 2)).toMatchObject({ ok: false, problem: 'too_many_decimals' });
    expect(checkAmount(new LosslessNumber('0.0000000001'), 10)).toEqual({ ok: true, value: '0.0000000001' });
    expect(checkAmount(new LosslessNumber('0.00000000001'), 10)).toMatchObject({ ok: false });
  });

  test('non-numbers, zero, negatives and absurd sizes are refused', () => {
    for (const bad of [undefined, null, true, {}, 'abc', '1,5', new LosslessNumber('0'), -1]) expect(checkAmount(bad, 2).ok).toBe(false);
    expect(checkAmount(new LosslessNumber('1e20'), 2)).toMatchObject({ ok: false, problem: 'too_large' });
  });

  test('decimal strings from forms are accepted and formatted per scale', () => {
    expect(checkAmount('7', 2)).toEqual({ ok: true, value: '7.00' });
    expect(formatAmount('0.10000', 10)).toBe('0.1');
    expect(parseDecimal('1.')).toBeUndefined();
    expect(stringifyJson({ amount: toJsonAmount('12.30') })).toBe('{"amount":12.3}');
  });

  test('sums are exact where floats are not (0.1 + 0.2)', () => {
    expect(sumAmounts(['0.1', '0.2'])).toBe('0.3');
    // Beyond decimal.js's default 20 significant digits: still exact.
    expect(sumAmounts(['999999999999999.0000000001', '999999999999999.0000000001'])).toBe('1999999999999998.0000000002');
    expect(compareAmounts('10.50', '10.5')).toBe(0);
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 10 ** 12 }), { maxLength: 50 }), (cents) => {
        const total = cents.reduce((a, b) => a + BigInt(b), 0n);
        const asText = (c: bigint | number): string => `${BigInt(c) / 100n}.${String(BigInt(c) % 100n).padStart(2, '0')}`;
        expect(compareAmounts(sumAmounts(cents.map(asText)), asText(total))).toBe(0);
      }),
    );
  });

  /** units / 10^10 as plain text, trailing zeros removed: the expected value, computed with BigInt. */
  const crypto = (units: bigint): string => {
    const digits = (units < 0n ? -units : units).toString().padStart(11, '0');
    const fraction = digits.slice(-10).replace(/0+$/, '');
    return `${units < 0n ? '-' : ''}${digits.slice(0, -10)}${fraction ? `.${fraction}` : ''}`;
  };

  test('sums of 10-decimal crypto amounts at the largest size are exact, to the last digit', () => {
    const largest = 10n ** 25n - 1n; // 999999999999999.9999999999: 15 integer and 10 decimal digits
    expect(crypto(largest)).toBe('999999999999999.9999999999');
    expect(sumAmounts(Array.from({ length: 100_000 }, () => crypto(largest)))).toBe(crypto(largest * 100_000n));
    expect(sumAmounts(['0.0000000001', '999999999999999.9999999999', '123456789012345.1234567891'])).toBe('1123456789012345.1234567891');
    // A 2-decimal fiat amount and a 10-decimal one: the sum keeps every digit of both.
    expect(sumAmounts(['10.50', '0.1234567891', '999999999999999.99'])).toBe('1000000000000010.6134567891');
    fc.assert(
      fc.property(fc.array(fc.bigInt({ min: 1n, max: largest }), { minLength: 1, maxLength: 200 }), (units) => {
        expect(sumAmounts(units.map(crypto))).toBe(crypto(units.reduce((a, b) => a + b, 0n)));
      }),
      { numRuns: 300 },
    );
  });

  test('sums stay exact however far apart the magnitudes (no precision ceiling)', () => {
    expect(sumAmounts(['1e40', '1e-40'])).toBe(`1${'0'.repeat(40)}.${'0'.repeat(39)}1`);
    expect(sumAmounts([])).toBe('0');
    expect(sumAmounts(['0.1', '-0.1'])).toBe('0');
    expect(() => sumAmounts(['10.50', 'ten'])).toThrow(RangeError);
  });

  test('formatting never rounds: more decimals than the scale is an error', () => {
    expect(formatAmount('10.5', 2)).toBe('10.50');
    expect(formatAmount('123456789012345.1234567891', 10)).toBe('123456789012345.1234567891');
    expect(() => formatAmount('10.505', 2)).toThrow(RangeError);
    expect(() => formatAmount('abc', 2)).toThrow(RangeError);
  });
});

describe('amounts as their currency writes them', () => {
  test('the scale is ISO 4217 minor units, two for a code the table does not know', () => {
    expect(['EUR', 'JPY', 'KWD', 'CLF', 'eur', 'BTC'].map(currencyScale)).toEqual([2, 0, 3, 4, 2, 2]);
  });

  test('every significant digit, never fewer decimals than the currency has', () => {
    expect(amountText('15.7', 'EUR')).toBe('15.70');
    expect(amountText('15.70', 'EUR')).toBe('15.70');
    expect(amountText('15.700000', 'EUR')).toBe('15.70');
    expect(amountText('1000.00', 'JPY')).toBe('1000');
    expect(amountText('1000.5', 'JPY')).toBe('1000.5');
    expect(amountText('1.5', 'KWD')).toBe('1.500');
    expect(amountText('0.0000000123', 'EUR')).toBe('0.0000000123');
    expect(amountText('123456789012345.1234567891', 'USD')).toBe('123456789012345.1234567891');
    expect(() => amountText('15,70', 'EUR')).toThrow(RangeError);
  });

  test('property: the same value always gives the same text, equal in value, never rounded', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 25n }), fc.integer({ min: 0, max: 10 }), fc.integer({ min: 0, max: 4 }), fc.constantFrom('EUR', 'JPY', 'KWD', 'CLF'), (units, scale, zeros, currency) => {
        const digits = units.toString().padStart(scale + 1, '0');
        const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
        const padded = `${text}${scale === 0 && zeros > 0 ? '.' : ''}${'0'.repeat(zeros)}`;
        const out = amountText(padded, currency);
        expect(out).toBe(amountText(text, currency));
        expect(compareAmounts(out, text)).toBe(0);
        expect(out.split('.')[1]?.length ?? 0).toBeGreaterThanOrEqual(currencyScale(currency));
      }),
      { numRuns: 300 },
    );
  });
});

describe('totals per currency (a batch: its preview, its review, its view)', () => {
  test('sum each currency exactly, count its amounts, and list the currencies in code order', () => {
    const items = [
      { currency: 'USD', amount: '0.10' },
      { currency: 'EUR', amount: '1000.005' },
      { currency: 'USD', amount: '0.20' },
      { currency: 'BTC', amount: '0.0000000001' },
      { currency: 'EUR', amount: '99999999999999.995' },
    ];
    expect(totalsByCurrency(items)).toEqual([
      { currency: 'BTC', amount: '0.0000000001', count: 1 },
      { currency: 'EUR', amount: '100000000001000', count: 2 },
      { currency: 'USD', amount: '0.3', count: 2 },
    ]);
    expect(totalsByCurrency([])).toEqual([]);
  });
});
