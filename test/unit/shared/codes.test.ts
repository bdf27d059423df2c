import { describe, expect, test } from 'vitest';
import {
  allCodes,
  describePayinStatus,
  describePayoutStatus,
  describeReason,
  PAYIN_STATUS_CATALOGUE,
  PAYOUT_STATUS_CATALOGUE,
  REASON_CATALOGUE,
  REASON_CODES,
} from '../../../src/shared/spec/codes';

// The spec's own lists (3.1, 3.2, 7.3), written out here independently of the catalogue.
const SPEC_PAYIN = [100, 101, 200, 301, 302, 303, 304, 305, 306, 317, 318, 319, 320, 401, 402, 500, 501, 502, 503, 504, 505, 506, 507, 508, 509, 510, 511, 512, 513, 514, 515, 516, 517, 518];
const SPEC_PAYOUT = ['P100', 'P101', 'P200', 'C402', 'C403', 'C404', 'C405', 'C501'];

describe('code catalogue', () => {
  test('holds exactly the codes of 3.1, 3.2 and the 46 reason codes of 7.3', () => {
    expect(PAYIN_STATUS_CATALOGUE.map((c) => c.code)).toEqual(SPEC_PAYIN);
    expect(PAYOUT_STATUS_CATALOGUE.map((c) => c.code)).toEqual(SPEC_PAYOUT);
    expect(REASON_CATALOGUE.map((c) => c.code)).toEqual([...REASON_CODES]);
    expect(new Set(REASON_CODES).size).toBe(46);
  });

  test('every entry has a meaning, a category, retry advice and words for the customer', () => {
    for (const c of allCodes()) {
      expect(c.meaning.length).toBeGreaterThan(3);
      expect(['pending', 'success', 'customer_error', 'decline', 'validation', 'merchant_setup', 'system']).toContain(c.category);
      expect(c.retry.text.length).toBeGreaterThan(3);
      expect(c.tellCustomer.length).toBeGreaterThan(3);
    }
  });

  test('pending codes are not final; every other status is', () => {
    for (const c of [...PAYIN_STATUS_CATALOGUE, ...PAYOUT_STATUS_CATALOGUE]) expect(c.final).toBe(c.category !== 'pending');
  });

  test('retry advice is machine-readable: 301 waits 60 s, 515 retries shortly, 302 never', () => {
    expect(describePayinStatus(301).retry).toMatchObject({ kind: 'after', seconds: 60 });
    expect(describePayinStatus(515).retry.kind).toBe('shortly');
    expect(describePayinStatus(302).retry.kind).toBe('never');
    expect(describePayinStatus(100).retry.kind).toBe('wait');
  });

  test('default reasons are reason codes of 7.3; the validation codes carry the pairs of PRODUCT.md', () => {
    for (const c of [...PAYIN_STATUS_CATALOGUE, ...PAYOUT_STATUS_CATALOGUE]) if (c.defaultReason) expect(REASON_CODES).toContain(c.defaultReason);
    const pairs: [number, string][] = [[317, 'INVALID_CVV'], [318, 'INVALID_EXPIRY'], [319, 'INVALID_CARDHOLDER_NAME'], [401, 'UNSUPPORTED_COUNTRY'], [402, 'UNSUPPORTED_CURRENCY'], [503, 'MISSING_AMOUNT'], [504, 'INVALID_AMOUNT'], [505, 'INVALID_SITE'], [506, 'MISSING_PAYMENT_METHOD'], [508, 'INVALID_PAYMENT_METHOD'], [510, 'MISSING_PARAMS'], [512, 'INVALID_PARAMS'], [517, 'INVALID_CARD_NUMBER']];
    for (const [code, reason] of pairs) expect(describePayinStatus(code)).toMatchObject({ known: true, defaultReason: reason });
  });

  test('lookups accept numbers or numeric strings and never throw on unknown input', () => {
    expect(describePayinStatus('200')).toMatchObject({ known: true, code: 200 });
    for (const weird of [999, '999', 'abc', null, undefined, {}, 1.5]) {
      const info = describePayinStatus(weird);
      expect(info.known).toBe(false);
      expect(info.category).toBe('unknown');
      expect(info.final).toBe(false);
    }
    expect(describePayoutStatus('C999')).toMatchObject({ known: false, code: 'C999' });
    expect(describeReason('NEW_REASON_2031')).toMatchObject({ known: false, code: 'NEW_REASON_2031', kind: 'reason' });
    expect(describeReason('GATEWAY_TIMEOUT')).toMatchObject({ known: true, final: false });
  });
});
