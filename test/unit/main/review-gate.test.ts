// The review proof on its own: single use, bound to the profile, the kind and
// the exact contents, expiring; required on a live profile, optional (but checked) elsewhere.
import { describe, expect, it } from 'vitest';
import { REVIEW_TTL_MS, ReviewGate, type ReviewSubject } from '../../../src/main/services/payments/review-gate';
import { ServiceError } from '../../../src/main/services/errors';

function gate() {
  let now = Date.parse('2026-03-01T10:00:00.000Z');
  let id = 0;
  const reviews = new ReviewGate({ clock: { now: () => now }, ids: { uuid: () => `review-${++id}` } });
  return { reviews, advance: (ms: number) => (now += ms) };
}

const payout: ReviewSubject = { kind: 'payout', profileId: 'live-1', content: '{"amount":10.50,"merchantReference":"r-1"}' };

function refusal(work: () => void): ServiceError {
  try {
    work();
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('ReviewGate', () => {
  it('lets a confirmed proof through once, for exactly what was reviewed', () => {
    const { reviews } = gate();
    const { reviewId, expiresAt } = reviews.issue(payout);
    expect(expiresAt).toBe(new Date(Date.parse('2026-03-01T10:00:00.000Z') + REVIEW_TTL_MS).toISOString());
    expect(() => reviews.redeem({ reviewId, confirmed: true }, payout, 'live')).not.toThrow();
    expect(refusal(() => reviews.redeem({ reviewId, confirmed: true }, payout, 'live')).fields).toEqual({ reviewId: 'already used: review again' });
  });

  it('refuses a live send without proof or without confirmation, and lets a non-live one through without proof', () => {
    const { reviews } = gate();
    expect(refusal(() => reviews.redeem({}, payout, 'live'))).toMatchObject({ code: 'conflict', fields: { reviewId: 'required for a live payout: review it first' } });
    const { reviewId } = reviews.issue(payout);
    expect(refusal(() => reviews.redeem({ reviewId }, payout, 'live'))).toMatchObject({ code: 'invalid_input', fields: { confirmed: expect.any(String) } });
    expect(() => reviews.redeem({}, payout, 'local')).not.toThrow();
    // Unconfirmed did not spend it.
    expect(() => reviews.redeem({ reviewId, confirmed: true }, payout, 'live')).not.toThrow();
  });

  it('refuses, and spends, a proof given for other contents, another profile or another kind of send', () => {
    const { reviews } = gate();
    for (const other of [
      { ...payout, content: '{"amount":10.51,"merchantReference":"r-1"}' },
      { ...payout, profileId: 'live-2' },
      { ...payout, kind: 'attempt_resume' as const },
    ]) {
      const { reviewId } = reviews.issue(payout);
      expect(refusal(() => reviews.redeem({ reviewId, confirmed: true }, other, 'live')).fields?.reviewId).toMatch(/does not match/);
      expect(refusal(() => reviews.redeem({ reviewId, confirmed: true }, payout, 'live')).fields?.reviewId).toMatch(/already used/);
    }
  });

  it('refuses an expired or unknown proof, also on a non-live profile', () => {
    const { reviews, advance } = gate();
    const { reviewId } = reviews.issue(payout);
    advance(REVIEW_TTL_MS);
    expect(refusal(() => reviews.redeem({ reviewId, confirmed: true }, payout, 'live')).fields).toEqual({ reviewId: 'expired or unknown: review again' });
    expect(refusal(() => reviews.redeem({ reviewId: 'made-up', confirmed: true }, payout, 'local')).fields).toEqual({ reviewId: 'expired or unknown: review again' });
  });
});
