// What the watches ask the ledger (services/notices/watches.ts, docs/notifications.md "Watches"):
// which awaiting approvals are due a reminder or an escalation, which live profiles have pay-ins
// waiting and when they last heard from the gateway, and — in the transaction that tells, under
// the `watches` lock — whether it was told already. The indexes are migration 0024 (PostgreSQL 0012).
import type { Sql } from '../engine/types';

/** A live profile with pay-ins waiting for their notification. */
export interface WaitingProfile {
  profileId: string;
  name: string;
  /** Pay-ins the gateway accepted and that are not final. */
  waiting: number;
  /** When the oldest of them was created. */
  oldestWaitingAt: string;
  /** When the gateway's newest notification for the profile was received; null: never. */
  lastNotificationAt: string | null;
  /** A notification link one of them was sent with that the gateway cannot reach (payins.notify_unreachable); null: none. */
  unreachableLink: string | null;
}

interface WaitingRow {
  profile_id: string;
  name: string;
  waiting: number | string;
  oldest: string;
  last_notification: string | null;
  unreachable: string | null;
}

/**
 * A live profile, not archived. The open pay-ins are counted for those alone: a ledger's sandbox and
 * local profiles may hold millions (a developer's, a benchmark's), and the watches look every 30 s.
 */
const LIVE = "environment = 'live' AND archived_at IS NULL";

export class WatchesRepository {
  constructor(private readonly db: Sql) {}

  /** Awaiting approvals requested at or before `requestedBy` and not expired at `now`, never told as `kind`; their ids, oldest first. */
  async approvalsRequestedBy(requestedBy: string, now: string, kind: string): Promise<number[]> {
    const rows = await this.db.all<{ id: number | string }>(
      `SELECT a.id FROM approvals a WHERE a.state = 'awaiting' AND a.created_at <= ? AND a.expires_at > ?
       AND NOT EXISTS (SELECT 1 FROM notices n WHERE n.kind = ? AND n.subject = 'approval:' || CAST(a.id AS TEXT)) ORDER BY a.id`,
      [requestedBy, now, kind],
    );
    return rows.map((r) => Number(r.id));
  }

  /** Awaiting approvals expiring after `now` and at or before `expiringBy`, never told as `kind`; their ids, oldest first. */
  async approvalsExpiringBy(expiringBy: string, now: string, kind: string): Promise<number[]> {
    const rows = await this.db.all<{ id: number | string }>(
      `SELECT a.id FROM approvals a WHERE a.state = 'awaiting' AND a.expires_at > ? AND a.expires_at <= ?
       AND NOT EXISTS (SELECT 1 FROM notices n WHERE n.kind = ? AND n.subject = 'approval:' || CAST(a.id AS TEXT)) ORDER BY a.id`,
      [now, expiringBy, kind],
    );
    return rows.map((r) => Number(r.id));
  }

  /** Live profiles (not archived) with pay-ins the gateway accepted that are not final. */
  async liveProfilesWaiting(): Promise<WaitingProfile[]> {
    const rows = await this.db.all<WaitingRow>(
      `SELECT p.id AS profile_id, p.name, w.waiting, w.oldest, w.unreachable,
         (SELECT max(n.received_at) FROM notifications n WHERE n.profile_id = p.id) AS last_notification
       FROM profiles p
       JOIN (SELECT profile_id, count(*) AS waiting, min(created_at) AS oldest, max(notify_unreachable) AS unreachable FROM payins
             WHERE final = 0 AND payin_id IS NOT NULL AND profile_id IN (SELECT id FROM profiles WHERE ${LIVE}) GROUP BY profile_id) w ON w.profile_id = p.id
       WHERE ${LIVE} ORDER BY p.id`,
    );
    return rows.map((r) => ({ profileId: r.profile_id, name: r.name, waiting: Number(r.waiting), oldestWaitingAt: r.oldest, lastNotificationAt: r.last_notification, unreachableLink: r.unreachable }));
  }

  /** The newest notification received for a profile, if any (read again under the lock). */
  async lastNotificationAt(profileId: string): Promise<string | null> {
    const row = await this.db.get<{ at: string | null }>('SELECT max(received_at) AS at FROM notifications WHERE profile_id = ?', [profileId]);
    return row?.at ?? null;
  }

  /**
   * Takes the `watches` lock for the rest of the caller's transaction (PostgreSQL; SQLite's write
   * transaction holds the database): of two instances telling at once (a leadership changing
   * hands), the second sees what the first committed.
   */
  async lock(): Promise<void> {
    await this.db.lock('watches');
  }

  /** Whether a notice of this kind about this subject was written (at or after `since`, when given). */
  async told(kind: string, subject: string, since: string | null = null): Promise<boolean> {
    const row = await this.db.get<{ one: number }>(`SELECT 1 AS one FROM notices WHERE kind = ? AND subject = ?${since === null ? '' : ' AND created_at >= ?'} LIMIT 1`, [kind, subject, ...(since === null ? [] : [since])]);
    return row !== undefined;
  }
}
