// What the event-driven notices remember between events (migration 0025): the addresses each person
// signed in from, and which decline rates are told as high. Each write is one statement whose
// answer says whether this transaction is the one that tells, so two instances sharing PostgreSQL
// never both tell (the second's insert or update waits for the first's commit, then finds it done).
import type { TransactionKind } from '../../transaction-kinds';
import { TRANSACTION_KINDS } from '../../transaction-kinds';
import type { Sql } from '../engine/types';
import { isoTime, type Clock } from '../support';

/** A profile's method of pay-ins or payouts, as its decline rate is kept. */
export interface MethodKey {
  kind: TransactionKind;
  profileId: string;
  method: string;
}

export interface DeclineWindow {
  /** Rows that became final in the window. */
  finals: number;
  /** Of them, those not paid (final and not success: a pay-in's 3xx–5xx, a payout's C-code). */
  declined: number;
}

export class NoticeWatchesRepository {
  constructor(
    private readonly db: Sql,
    private readonly now: Clock,
  ) {}

  /**
   * Records a sign-in's address. `first`: the person never signed in from it before; `before`: how
   * many other addresses they had signed in from.
   */
  async recordSignIn(userId: string, address: string): Promise<{ first: boolean; before: number }> {
    const at = isoTime(this.now());
    return this.db.atomic(async () => {
      const inserted = await this.db.get(
        `INSERT INTO team_sign_in_addresses (user_id, address, first_at, last_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (user_id, address) DO NOTHING RETURNING user_id`,
        [userId, address, at, at],
      );
      if (!inserted) {
        await this.db.run('UPDATE team_sign_in_addresses SET last_at = ? WHERE user_id = ? AND address = ?', [at, userId, address]);
        return { first: false, before: 0 };
      }
      const other = await this.db.get<{ n: number | string }>('SELECT count(*) AS n FROM team_sign_in_addresses WHERE user_id = ? AND address <> ?', [userId, address]);
      return { first: true, before: Number(other?.n ?? 0) };
    });
  }

  /** Finals and declines of a profile's method whose status changed at or after `since` (the index of final rows by method). */
  async declineWindow(key: MethodKey, since: string): Promise<DeclineWindow> {
    const { table } = TRANSACTION_KINDS[key.kind].ledger;
    // final = 1 as a literal, so SQLite uses the partial index.
    const row = await this.db.get<{ finals: number | string; declined: number | string | null }>(
      `SELECT count(*) AS finals, sum(CASE WHEN status_category = 'success' THEN 0 ELSE 1 END) AS declined
       FROM ${table} WHERE final = 1 AND profile_id = ? AND method = ? AND status_changed_at >= ?`,
      [key.profileId, key.method, since],
    );
    return { finals: Number(row?.finals ?? 0), declined: Number(row?.declined ?? 0) };
  }

  /** Whether the method's rate is told as high, and when it was last counted; undefined: never told. */
  async rateState(key: MethodKey): Promise<{ high: boolean; checkedAt: string } | undefined> {
    const row = await this.db.get<{ high: number; checked_at: string }>('SELECT high, checked_at FROM decline_rate_alerts WHERE kind = ? AND profile_id = ? AND method = ?', [key.kind, key.profileId, key.method]);
    return row && { high: row.high === 1, checkedAt: row.checked_at };
  }

  /** Marks the rate high; true only for the one transaction that found it not high (it tells). */
  async markHigh(key: MethodKey): Promise<boolean> {
    const at = isoTime(this.now());
    const row = await this.db.get(
      `INSERT INTO decline_rate_alerts (kind, profile_id, method, high, changed_at, checked_at) VALUES (?, ?, ?, 1, ?, ?)
       ON CONFLICT (kind, profile_id, method) DO UPDATE SET high = 1, changed_at = excluded.changed_at, checked_at = excluded.checked_at
       WHERE decline_rate_alerts.high = 0 RETURNING kind`,
      [key.kind, key.profileId, key.method, at, at],
    );
    return row !== undefined;
  }

  /** Counted again while high: below the threshold it is low (told again when it rises), else still high. */
  async counted(key: MethodKey, high: boolean): Promise<void> {
    const at = isoTime(this.now());
    await this.db.run(
      `UPDATE decline_rate_alerts SET high = ?, checked_at = ?, changed_at = CASE WHEN high = ? THEN changed_at ELSE ? END
       WHERE kind = ? AND profile_id = ? AND method = ?`,
      [high ? 1 : 0, at, high ? 1 : 0, at, key.kind, key.profileId, key.method],
    );
  }
}
