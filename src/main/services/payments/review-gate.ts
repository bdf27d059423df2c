// The proof that a person reviewed exactly what a payout path sends. A review
// (payouts:review, batches:review, attempts:review) issues an id bound to the profile, to what is
// reviewed (a payout, a batch's start or resume, the resume of one attempt) and to a keyed digest
// of exactly those contents (the bytes of the request, the batch's items); the send redeems it.
// An id is single use and expires; one given for anything else is refused and spent.
//
// Reviews are kept in the ledger (ledger/repositories/reviews.ts), so every instance of a team
// server honours one another instance made, and one spent on any is spent on all. The digest is an
// HMAC under a key that never reaches the ledger, so it reveals nothing of a card number it
// covers: on a team server a key derived from its envelope key (the same on every instance), on a
// desk a key of its process (after a restart, review again).
//
// On a live profile the proof is required; elsewhere the UI reviews too, and a proof given must
// hold all the same.
import { createHash, createHmac } from 'node:crypto';
import type { EnvironmentKind } from '../../../shared/contract';
import type { Clock, IdSource } from '../../gateway/runtime';
import type { ReviewsRepository } from '../../ledger/repositories/reviews';
import { ServiceError } from '../errors';

export type ReviewKind = 'payout' | 'batch_start' | 'batch_resume' | 'attempt_resume';

export interface ReviewSubject {
  kind: ReviewKind;
  profileId: string;
  /** Exactly what the person sees and the send will carry, as canonical text. */
  content: string;
}

export interface ReviewProof {
  reviewId?: string | undefined;
  confirmed?: boolean | undefined;
  /** The amount typed again, where the approval policy asks a desk for it (services/approvals). */
  typedAmount?: string | undefined;
}

export const REVIEW_TTL_MS = 5 * 60_000;

const WHAT: Record<ReviewKind, string> = {
  payout: 'payout',
  batch_start: 'batch start',
  batch_resume: 'batch resume',
  attempt_resume: 'payout resume',
};

export interface ReviewGateDeps {
  reviews: ReviewsRepository;
  /** The digests' HMAC key (32 bytes): never stored. */
  key: Buffer;
  clock: Clock;
  ids: IdSource;
  ttlMs?: number;
}

export class ReviewGate {
  private readonly ttlMs: number;
  /** Which key made a digest: a review made under another (a desk before its restart) is unknown here. */
  private readonly keyId: string;

  constructor(private readonly deps: ReviewGateDeps) {
    this.ttlMs = deps.ttlMs ?? REVIEW_TTL_MS;
    this.keyId = createHash('sha256').update(deps.key).digest('hex').slice(0, 16);
  }

  async issue(subject: ReviewSubject): Promise<{ reviewId: string; expiresAt: string }> {
    const reviewId = this.deps.ids.uuid();
    const now = this.deps.clock.now();
    const expiresAt = new Date(now + this.ttlMs);
    await this.deps.reviews.add({ id: reviewId, kind: subject.kind, profileId: subject.profileId, digest: this.digest(subject), keyId: this.keyId, expiresAt }, new Date(now));
    return { reviewId, expiresAt: expiresAt.toISOString() };
  }

  /**
   * Spends the proof for this subject, or throws a ServiceError saying why it does not hold. Without
   * a proof, a live profile is refused and any other passes. The spend is one atomic write, so two
   * sends racing with one id, on any instances, cannot both pass.
   */
  async redeem(proof: ReviewProof, subject: ReviewSubject, environment: EnvironmentKind): Promise<void> {
    const what = WHAT[subject.kind];
    if (proof.reviewId === undefined) {
      if (environment !== 'live') return;
      throw new ServiceError('conflict', `A live ${what} is sent only after its review: nothing was sent. Review it, tick the confirmation, then send.`, {
        reviewId: `required for a live ${what}: review it first`,
      });
    }
    if (proof.confirmed !== true) {
      throw new ServiceError('invalid_input', `The ${what} was not sent: its review was not confirmed.`, { confirmed: 'must be true: tick the confirmation on the review' });
    }
    // Spent whatever follows: an id tried against another body is not left to be tried again.
    const now = this.deps.clock.now();
    const spent = await this.deps.reviews.spend(proof.reviewId, new Date(now));
    if ('refused' in spent && spent.refused === 'already_used') {
      throw new ServiceError('conflict', `This review was already used: nothing was sent. A review covers one send; review it again.`, { reviewId: 'already used: review again' });
    }
    if ('refused' in spent || now >= spent.review.expiresAt.getTime() || spent.review.keyId !== this.keyId) {
      throw new ServiceError('conflict', `The review of this ${what} has expired or is unknown: nothing was sent. Review it again.`, { reviewId: 'expired or unknown: review again' });
    }
    const { review } = spent;
    if (review.kind !== subject.kind || review.profileId !== subject.profileId || review.digest !== this.digest(subject)) {
      throw new ServiceError('conflict', `This review was given for another ${what} than the one sent: nothing was sent. Review exactly what you send.`, {
        reviewId: `does not match this ${what}: review it again`,
      });
    }
  }

  private digest(subject: ReviewSubject): string {
    return createHmac('sha256', this.deps.key).update(`${subject.kind}\n${subject.profileId}\n${subject.content}`, 'utf8').digest('hex');
  }
}
