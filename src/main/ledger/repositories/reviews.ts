// The reviews live sends redeem (migration 0027 / PostgreSQL 0015; services/payments/review-gate.ts):
// one row per review, spent by one atomic update, so two sends racing with one review id, on one
// instance or on two, cannot both pass. Times are ISO text; rows go once expired.
import type { Sql } from '../engine/types';
import { isoTime } from '../support';

export interface StoredReview {
  id: string;
  kind: string;
  profileId: string;
  /** The keyed digest of what was reviewed. */
  digest: string;
  /** Which key made the digest (a desk's process, or a team server's envelope key). */
  keyId: string;
  expiresAt: Date;
}

interface ReviewRow {
  kind: string;
  profile_id: string;
  digest: string;
  key_id: string;
  expires_at: string;
}

export type Spent = { review: StoredReview } | { refused: 'already_used' | 'unknown' };

export class ReviewsRepository {
  constructor(private readonly db: Sql) {}

  /** Records a review; the ones expired by `now` go (spent or not). */
  async add(review: StoredReview, now: Date): Promise<void> {
    await this.db.atomic(async () => {
      await this.db.run('DELETE FROM send_reviews WHERE expires_at <= ?', [isoTime(now)]);
      await this.db.run('INSERT INTO send_reviews (id, kind, profile_id, digest, key_id, expires_at) VALUES (?, ?, ?, ?, ?, ?)', [
        review.id,
        review.kind,
        review.profileId,
        review.digest,
        review.keyId,
        isoTime(review.expiresAt),
      ]);
    });
  }

  /**
   * Spends the review `id` at `at`, whatever it covers and whether it expired (the caller checks
   * both), and returns what it covers; refused when it was spent already or is not known.
   */
  async spend(id: string, at: Date): Promise<Spent> {
    const row = await this.db.get<ReviewRow>('UPDATE send_reviews SET spent_at = ? WHERE id = ? AND spent_at IS NULL RETURNING kind, profile_id, digest, key_id, expires_at', [isoTime(at), id]);
    if (row) return { review: { id, kind: row.kind, profileId: row.profile_id, digest: row.digest, keyId: row.key_id, expiresAt: new Date(row.expires_at) } };
    const known = await this.db.get('SELECT 1 AS known FROM send_reviews WHERE id = ?', [id]);
    return { refused: known ? 'already_used' : 'unknown' };
  }
}
