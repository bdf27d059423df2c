// The proof that a person reviewed exactly what a payout path sends. A review
// (payouts:review, batches:review, attempts:review) issues an id bound to the profile, to what is
// reviewed (a payout, a batch's start or resume, the resume of one attempt) and to a keyed digest
// of exactly those contents (the bytes of the request, the batch's items); the send redeems it.
// An id is single use and expires; one given for anything else is refused and spent. Nothing here
// is stored: a review does not outlive the process (after a restart, review again), and the
// digest is an HMAC under a key of this process, so it reveals nothing of a card number it covers.
//
// On a live profile the proof is required; elsewhere the UI reviews too, and a proof given must
// hold all the same.
import { createHmac, randomBytes } from 'node:crypto';
import type { EnvironmentKind } from '../../../shared/contract';
import type { Clock, IdSource } from '../../gateway/runtime';
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
/** Reviews open at once; past it the oldest is dropped (a person opens a handful). */
const MAX_OPEN = 1_000;

const WHAT: Record<ReviewKind, string> = {
  payout: 'payout',
  batch_start: 'batch start',
  batch_resume: 'batch resume',
  attempt_resume: 'payout resume',
};

interface OpenReview {
  kind: ReviewKind;
  profileId: string;
  digest: string;
  expiresAt: number;
  spent: boolean;
}

export class ReviewGate {
  private readonly key = randomBytes(32);
  private readonly reviews = new Map<string, OpenReview>();
  private readonly ttlMs: number;

  constructor(private readonly deps: { clock: Clock; ids: IdSource; ttlMs?: number }) {
    this.ttlMs = deps.ttlMs ?? REVIEW_TTL_MS;
  }

  issue(subject: ReviewSubject): { reviewId: string; expiresAt: string } {
    this.forgetExpired();
    while (this.reviews.size >= MAX_OPEN) this.reviews.delete(this.reviews.keys().next().value as string);
    const reviewId = this.deps.ids.uuid();
    const expiresAt = this.deps.clock.now() + this.ttlMs;
    this.reviews.set(reviewId, { kind: subject.kind, profileId: subject.profileId, digest: this.digest(subject), expiresAt, spent: false });
    return { reviewId, expiresAt: new Date(expiresAt).toISOString() };
  }

  /**
   * Spends the proof for this subject, or throws a ServiceError saying why it does not hold. Without
   * a proof, a live profile is refused and any other passes. Synchronous, so two sends racing with
   * one id cannot both pass.
   */
  redeem(proof: ReviewProof, subject: ReviewSubject, environment: EnvironmentKind): void {
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
    const review = this.reviews.get(proof.reviewId);
    const now = this.deps.clock.now();
    if (!review || now >= review.expiresAt) {
      this.reviews.delete(proof.reviewId);
      throw new ServiceError('conflict', `The review of this ${what} has expired or is unknown: nothing was sent. Review it again.`, { reviewId: 'expired or unknown: review again' });
    }
    if (review.spent) {
      throw new ServiceError('conflict', `This review was already used: nothing was sent. A review covers one send; review it again.`, { reviewId: 'already used: review again' });
    }
    // Spent whatever follows: an id tried against another body is not left to be tried again.
    review.spent = true;
    if (review.kind !== subject.kind || review.profileId !== subject.profileId || review.digest !== this.digest(subject)) {
      throw new ServiceError('conflict', `This review was given for another ${what} than the one sent: nothing was sent. Review exactly what you send.`, {
        reviewId: `does not match this ${what}: review it again`,
      });
    }
  }

  private digest(subject: ReviewSubject): string {
    return createHmac('sha256', this.key).update(`${subject.kind}\n${subject.profileId}\n${subject.content}`, 'utf8').digest('hex');
  }

  private forgetExpired(): void {
    const now = this.deps.clock.now();
    for (const [id, review] of this.reviews) if (now >= review.expiresAt) this.reviews.delete(id);
  }
}
