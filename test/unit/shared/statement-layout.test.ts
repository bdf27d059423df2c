// How a statement's cells read (shared/statement-layout.ts): amounts exactly, with either decimal
// separator and any common grouping, never a comma taken for a thousands point by mistake; dates in
// the common formats, with or without leading zeros; columns proposed from headers however spelt.
import { describe, expect, it } from 'vitest';
import { guessDateFormat, guessDecimal, otherDateReadings, missingFields, parseAmountCell, parseDateCell, parseTimeCell, proposeColumns } from '../../../src/shared/statement-layout';

describe('an amount cell', () => {
  it.each([
    ['1234.56', '.', '1234.56'],
    ['1,234.56', '.', '1234.56'],
    ['1.234,56', ',', '1234.56'],
    ['1 234,56', ',', '1234.56'],
    ['1\u00a0234,56', ',', '1234.56'],
    ["1'234.56", '.', '1234.56'],
    ['-12.50', '.', '-12.5'],
    ['12.50-', '.', '-12.5'],
    ['(12.50)', '.', '-12.5'],
    ['+0.0000000001', '.', '0.0000000001'],
    ['999999999999999.99', '.', '999999999999999.99'],
  ] as const)('reads %s with "%s" as %s, exactly', (text, decimal, value) => {
    expect(parseAmountCell(text, decimal)).toEqual({ ok: true, value });
  });

  it.each([
    ['1,23', '.'],
    ['1.23', ','],
    ['12,34,56.00', '.'],
    ['1e3', '.'],
    ['abc', '.'],
    ['', '.'],
    ['1234567890123456', '.'],
  ] as const)('refuses %s with "%s", saying why', (text, decimal) => {
    expect(parseAmountCell(text, decimal)).toMatchObject({ ok: false, reason: expect.any(String) });
  });

  it('guesses the decimal separator a whole column reads with', () => {
    expect(guessDecimal(['10.50', '1,000.00'])).toBe('.');
    expect(guessDecimal(['10,50', '1.000,00'])).toBe(',');
  });
});

describe('a date cell', () => {
  it.each([
    ['2024-05-31', 'YYYY-MM-DD'],
    ['2024-05-31T23:59:59.999Z', 'YYYY-MM-DD'],
    ['31.05.2024', 'D.M.YYYY'],
    ['1.5.2024', 'D.M.YYYY'],
    ['31/05/2024', 'D/M/YYYY'],
    ['05/31/2024', 'M/D/YYYY'],
    ['31-05-2024', 'D-M-YYYY'],
    ['20240531', 'YYYYMMDD'],
    ['31.05.24', 'D.M.YY'],
  ] as const)('reads %s written %s', (text, format) => {
    expect(parseDateCell(text, format).ok).toBe(true);
  });

  it('refuses a date that does not exist, or in another format', () => {
    expect(parseDateCell('31.02.2024', 'D.M.YYYY').ok).toBe(false);
    expect(parseDateCell('2024-05-31', 'D.M.YYYY').ok).toBe(false);
    expect(parseDateCell('05/31/2024', 'D/M/YYYY').ok).toBe(false);
  });

  it('guesses the format every sample reads in (day first when a day is above 12)', () => {
    expect(guessDateFormat(['31/05/2024', '01/06/2024'])).toBe('D/M/YYYY');
    expect(guessDateFormat(['05/31/2024'])).toBe('M/D/YYYY');
    expect(guessDateFormat(['2024-05-31'])).toBe('YYYY-MM-DD');
  });

  it('names the other order of day and month when every date reads both ways, to different days', () => {
    expect(otherDateReadings(['05/04/2024', '03/02/2024'], 'D/M/YYYY')).toEqual(['M/D/YYYY']);
    expect(otherDateReadings(['05/04/2024'], 'M/D/YYYY')).toEqual(['D/M/YYYY']);
    // One day above 12 settles it; the same day either way (05/05) and ISO dates are not in doubt.
    expect(otherDateReadings(['05/04/2024', '31/05/2024'], 'D/M/YYYY')).toEqual([]);
    expect(otherDateReadings(['05/05/2024'], 'D/M/YYYY')).toEqual([]);
    expect(otherDateReadings(['2024-05-04'], 'YYYY-MM-DD')).toEqual([]);
    expect(otherDateReadings([], 'D/M/YYYY')).toEqual([]);
  });

  it('reads a time with its offset as UTC', () => {
    expect(parseTimeCell('2024-05-31T23:30:00+02:00', 'YYYY-MM-DD')).toEqual({ ok: true, value: '2024-05-31T21:30:00.000Z' });
    expect(parseTimeCell('2024-05-31 10:00:00', 'YYYY-MM-DD')).toEqual({ ok: true, value: '2024-05-31T10:00:00.000Z' });
  });
});

describe('columns proposed from headers', () => {
  it('finds each field however the header is spelt, each header once', () => {
    expect(proposeColumns('settlement', ['Settlement ID', 'PAYIN-ID', 'Order Id', 'Ccy', 'Gross Amount', 'Fees', 'Net', 'Date'])).toEqual({
      settlement_id: 'Settlement ID',
      payin_id: 'PAYIN-ID',
      request_id: 'Order Id',
      currency: 'Ccy',
      amount: 'Gross Amount',
      fee: 'Fees',
      net: 'Net',
      booking_date: 'Date',
    });
    expect(proposeColumns('bank', ['Buchungstag', 'Valutadatum', 'Betrag', 'Währung', 'Verwendungszweck'])).toMatchObject({ booking_date: 'Buchungstag', value_date: 'Valutadatum', amount: 'Betrag', currency: 'Währung', remittance: 'Verwendungszweck' });
  });

  it('names the required fields a layout leaves without a column', () => {
    expect(missingFields('settlement', { columns: { amount: 'a' } })).toEqual(['currency', 'payin_id']);
    expect(missingFields('bank', { columns: { booking_date: 'd', amount: 'a' }, currency: 'EUR' })).toEqual([]);
  });
});

describe('columns proposed for a provider’s own header names', () => {
  it('takes "Payout batch" for the settlement id and "Paid at" for the time, as a card acquirer’s export names them', () => {
    const headers = ['Payment ID', 'Order ID', 'Status', 'Amount', 'Commission', 'Currency', 'Paid at', 'Payout batch', 'Customer'];
    expect(proposeColumns('settlement', headers)).toEqual({ payin_id: 'Payment ID', request_id: 'Order ID', amount: 'Amount', fee: 'Commission', currency: 'Currency', time: 'Paid at', settlement_id: 'Payout batch' });
    // A field's ninth spelling is proposed too (the spellings were read up to the eighth).
    expect(proposeColumns('settlement', ['Batch Reference', 'Payment ID', 'Amount', 'Currency'])).toMatchObject({ settlement_id: 'Batch Reference' });
  });
});
