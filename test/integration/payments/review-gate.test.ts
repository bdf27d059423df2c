// The review proof on a real ledger: single use, bound to the profile, the kind and the exact
// contents, expiring; required on a live profile, optional (but checked) elsewhere. Kept in the
// ledger, so a second instance (its own connection, the same envelope-derived key) honours a
// review the first made, and two sends racing with one review, one on each, cannot both pass.
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { openLedger } from '../../../src/main/ledger/connection';
import type { Ledger } from '../../../src/main/ledger/connection';
import { createRepositories } from '../../../src/main/ledger/repositories';
import { REVIEW_TTL_MS, ReviewGate, type ReviewSubject } from '../../../src/main/services/payments/review-gate';
import { ServiceError } from '../../../src/main/services/errors';
import { EnvelopeKey } from '../../../src/main/services/team/envelope-key';
import { testLedger, type TestLedger } from '../../helpers/ledger';

let ledger: TestLedger | undefined;
let other: Ledger | undefined;
afterEach(async () => {
  await other?.close();
  other = undefined;
  await ledger?.close();
  ledger = undefined;
});

let ids = 0;
async function gate(options: { key?: Buffer; db?: Ledger } = {}) {
  ledger ??= await testLedger();
  const start = Date.parse('2026-03-01T10:00:00.000Z');
  let now = start;
  const reviews = new ReviewGate({
    reviews: createRepositories(options.db ?? ledger.db).reviews,
    key: options.key ?? randomBytes(32),
    clock: { now: () => now },
    ids: { uuid: () => `review-${++ids}` },
  });
  return { reviews, advance: (ms: number) => (now += ms), start };
}

const payout: ReviewSubject = { kind: 'payout', profileId: 'live-1', content: '{"amount":10.50,"merchantReference":"r-1"}' };

async function refusal(work: () => Promise<void>): Promise<ServiceError> {
  try {
    await work();
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('ReviewGate', () => {
  it('lets a confirmed proof through once, for exactly what was reviewed', async () => {
    const { reviews, start } = await gate();
    const { reviewId, expiresAt } = await reviews.issue(payout);
    expect(expiresAt).toBe(new Date(start + REVIEW_TTL_MS).toISOString());
    await expect(reviews.redeem({ reviewId, confirmed: true }, payout, 'live')).resolves.toBeUndefined();
    expect((await refusal(() => reviews.redeem({ reviewId, confirmed: true }, payout, 'live'))).fields).toEqual({ reviewId: 'already used: review again' });
  });

  it('refuses a live send without proof or without confirmation, and lets a non-live one through without proof', async () => {
    const { reviews } = await gate();
    expect(await refusal(() => reviews.redeem({}, payout, 'live'))).toMatchObject({ code: 'conflict', fields: { reviewId: 'required for a live payout: review it first' } });
    const { reviewId } = await reviews.issue(payout);
    expect(await refusal(() => reviews.redeem({ reviewId }, payout, 'live'))).toMatchObject({ code: 'invalid_input', fields: { confirmed: expect.any(String) } });
    await expect(reviews.redeem({}, payout, 'local')).resolves.toBeUndefined();
    // Unconfirmed did not spend it.
    await expect(reviews.redeem({ reviewId, confirmed: true }, payout, 'live')).resolves.toBeUndefined();
  });

  it('refuses, and spends, a proof given for other contents, another profile or another kind of send', async () => {
    const { reviews } = await gate();
    for (const other of [
      { ...payout, content: '{"amount":10.51,"merchantReference":"r-1"}' },
      { ...payout, profileId: 'live-2' },
      { ...payout, kind: 'attempt_resume' as const },
    ]) {
      const { reviewId } = await reviews.issue(payout);
      expect((await refusal(() => reviews.redeem({ reviewId, confirmed: true }, other, 'live'))).fields?.reviewId).toMatch(/does not match/);
      expect((await refusal(() => reviews.redeem({ reviewId, confirmed: true }, payout, 'live'))).fields?.reviewId).toMatch(/already used/);
    }
  });

  it('refuses an expired or unknown proof, also on a non-live profile, and forgets expired reviews as new ones are made', async () => {
    const { reviews, advance } = await gate();
    const { reviewId } = await reviews.issue(payout);
    const spentOne = (await reviews.issue(payout)).reviewId;
    await reviews.redeem({ reviewId: spentOne, confirmed: true }, payout, 'live');
    advance(REVIEW_TTL_MS);
    expect((await refusal(() => reviews.redeem({ reviewId, confirmed: true }, payout, 'live'))).fields).toEqual({ reviewId: 'expired or unknown: review again' });
    expect((await refusal(() => reviews.redeem({ reviewId: 'made-up', confirmed: true }, payout, 'local'))).fields).toEqual({ reviewId: 'expired or unknown: review again' });
    const fresh = (await reviews.issue(payout)).reviewId;
    expect(await ledger!.db.all<{ id: string }>('SELECT id FROM send_reviews')).toEqual([{ id: fresh }]);
  });

  it('keeps no card number in the ledger: the digest is keyed', async () => {
    const { reviews } = await gate();
    const card: ReviewSubject = { kind: 'payout', profileId: 'live-1', content: '{"cardNumber":"4111111111111111","amount":5}' };
    await reviews.issue(card);
    const stored = JSON.stringify(await ledger!.db.all('SELECT * FROM send_reviews'));
    expect(stored).not.toContain('4111111111111111');
    expect(stored).not.toContain('411111');
  });

  it('is honoured by another instance of the same team server, spent on both at once, and unknown to a process of another key', async () => {
    const key = EnvelopeKey.generate();
    const a = await gate({ key: key.derive('send reviews') });
    other = await openLedger(ledger!.address);
    const b = await gate({ key: key.derive('send reviews'), db: other });
    const { reviewId } = await a.reviews.issue(payout);
    await expect(b.reviews.redeem({ reviewId, confirmed: true }, payout, 'live')).resolves.toBeUndefined();
    expect((await refusal(() => a.reviews.redeem({ reviewId, confirmed: true }, payout, 'live'))).fields).toEqual({ reviewId: 'already used: review again' });

    // Two sends racing with one review, one on each instance: exactly one passes.
    for (let round = 0; round < 10; round += 1) {
      const raced = (await a.reviews.issue(payout)).reviewId;
      const outcomes = await Promise.allSettled([a.reviews.redeem({ reviewId: raced, confirmed: true }, payout, 'live'), b.reviews.redeem({ reviewId: raced, confirmed: true }, payout, 'live')]);
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
      expect((refused.reason as ServiceError).fields).toEqual({ reviewId: 'already used: review again' });
    }

    // A desk restarted (a process key of its own) or a server of another envelope key: review again.
    const stranger = await gate({ key: EnvelopeKey.generate().derive('send reviews'), db: other });
    const made = (await a.reviews.issue(payout)).reviewId;
    expect((await refusal(() => stranger.reviews.redeem({ reviewId: made, confirmed: true }, payout, 'live'))).fields).toEqual({ reviewId: 'expired or unknown: review again' });
  });
});
