// Retention of the raw material of unclaimed notifications (malformed ones and orphans, migration
// 0012): each profile's rule and what it dropped so far, what is kept, what falls outside a rule,
// and the dropping itself.
import type { Sql } from '../engine/types';
import { isoTime, systemClock, type Clock } from '../support';
import { placeholders } from './page';

/** The terms of the partial index notifications_unclaimed_raw (migration 0012), verbatim. */
const UNCLAIMED = "outcome IN ('malformed', 'orphan') AND raw_pruned_at IS NULL";
const RAW_BYTES = 'length(body) + length(raw_headers)';

/** A profile's rule: all three set, or none (it follows the defaults). */
export interface RetentionRule {
  maxCount: number;
  maxBytes: number;
  maxAgeDays: number;
}

export interface RetentionRecord {
  rule: RetentionRule | null;
  /** When a person last set the rule; null: never (the defaults). */
  updatedAt: string | null;
  malformedDeleted: number;
  orphanBodiesPruned: number;
  bytesFreed: number;
  lastPrunedAt: string | null;
}

export interface Dropped {
  malformedDeleted: number;
  orphanBodiesPruned: number;
  bytes: number;
}

interface RetentionRow {
  max_count: number | null;
  max_bytes: number | null;
  max_age_days: number | null;
  updated_at: string | null;
  malformed_deleted: number;
  orphan_bodies_pruned: number;
  bytes_freed: number;
  last_pruned_at: string | null;
}

export class NotificationRetentionRepository {
  constructor(
    private readonly db: Sql,
    private readonly now: Clock = systemClock,
  ) {}

  /** The profile's row; undefined when its rule was never set and nothing was ever dropped. */
  async get(profileId: string): Promise<RetentionRecord | undefined> {
    const row = (await this.db.get('SELECT * FROM notification_retention WHERE profile_id = ?', [profileId])) as RetentionRow | undefined;
    if (!row) return undefined;
    return {
      rule: row.max_count !== null && row.max_bytes !== null && row.max_age_days !== null ? { maxCount: row.max_count, maxBytes: row.max_bytes, maxAgeDays: row.max_age_days } : null,
      updatedAt: row.updated_at,
      malformedDeleted: row.malformed_deleted,
      orphanBodiesPruned: row.orphan_bodies_pruned,
      bytesFreed: row.bytes_freed,
      lastPrunedAt: row.last_pruned_at,
    };
  }

  async setRule(profileId: string, rule: RetentionRule): Promise<void> {
    await this.db.run(`INSERT INTO notification_retention (profile_id, max_count, max_bytes, max_age_days, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (profile_id) DO UPDATE SET max_count = excluded.max_count, max_bytes = excluded.max_bytes,
           max_age_days = excluded.max_age_days, updated_at = excluded.updated_at`, [profileId, rule.maxCount, rule.maxBytes, rule.maxAgeDays, isoTime(this.now())]);
  }

  /** The profile's malformed and orphan notifications whose body and headers are kept, and their bytes. */
  async kept(profileId: string): Promise<{ count: number; bytes: number }> {
    return (await this.db.get(`SELECT count(*) AS count, CAST(coalesce(sum(${RAW_BYTES}), 0) AS BIGINT) AS bytes FROM notifications WHERE profile_id = ? AND ${UNCLAIMED}`, [profileId])) as { count: number; bytes: number };
  }

  /**
   * What falls outside the rule, oldest first, with each one's raw bytes. Ranked newest first,
   * orphans before malformed ones, a row is kept while the rows ranked above it and itself fit the
   * count and the size, and it was received at `oldest` or later.
   */
  async outside(profileId: string, rule: RetentionRule, oldest: string): Promise<{ id: number; raw: number }[]> {
    return (await this.db.all(`SELECT id, raw FROM (
           SELECT id, received_at, ${RAW_BYTES} AS raw,
             row_number() OVER keep AS rank, CAST(sum(${RAW_BYTES}) OVER keep AS BIGINT) AS running
           FROM notifications WHERE profile_id = ? AND ${UNCLAIMED}
           WINDOW keep AS (ORDER BY CASE WHEN outcome = 'orphan' THEN 0 ELSE 1 END, id DESC)) AS ranked
         WHERE rank > ? OR running > ? OR received_at < ? ORDER BY id`, [profileId, rule.maxCount, rule.maxBytes, oldest])) as { id: number; raw: number }[];
  }

  /**
   * In one transaction: of these notifications, the malformed ones are deleted and the orphans
   * lose their body and headers (raw_pruned_at set), and the profile's tally grows. Outcomes are
   * read again here: an orphan applied since outside() is left alone.
   */
  async drop(profileId: string, rows: readonly { id: number; raw: number }[]): Promise<Dropped> {
    return this.db.atomic(async (): Promise<Dropped> => {
      const raw = new Map(rows.map((row) => [row.id, row.raw]));
      const ids = rows.map((row) => row.id);
      const deleted = (await this.db.all(`DELETE FROM notifications WHERE id IN (${placeholders(ids)}) AND outcome = 'malformed' AND raw_pruned_at IS NULL RETURNING id`, ids)) as { id: number }[];
      const at = isoTime(this.now());
      const pruned = (await this.db.all(`UPDATE notifications SET body = ?, raw_headers = '[]', raw_pruned_at = ?
           WHERE id IN (${placeholders(ids)}) AND outcome = 'orphan' AND raw_pruned_at IS NULL RETURNING id`, [Buffer.alloc(0), at, ...ids])) as { id: number }[];
      const bytes = [...deleted, ...pruned].reduce((sum, row) => sum + (raw.get(row.id) ?? 0), 0);
      if (deleted.length + pruned.length > 0) {
        await this.db.run(`INSERT INTO notification_retention (profile_id, malformed_deleted, orphan_bodies_pruned, bytes_freed, last_pruned_at) VALUES (?, ?, ?, ?, ?)
             ON CONFLICT (profile_id) DO UPDATE SET malformed_deleted = notification_retention.malformed_deleted + excluded.malformed_deleted,
               orphan_bodies_pruned = notification_retention.orphan_bodies_pruned + excluded.orphan_bodies_pruned,
               bytes_freed = notification_retention.bytes_freed + excluded.bytes_freed, last_pruned_at = excluded.last_pruned_at`, [profileId, deleted.length, pruned.length, bytes, at]);
      }
      return { malformedDeleted: deleted.length, orphanBodiesPruned: pruned.length, bytes };
    });
  }
}
