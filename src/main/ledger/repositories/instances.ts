// The processes working on this ledger (migration 0016 / PostgreSQL 0004): each team-server
// instance (and a desk, its one instance) has an id, kept in its data directory, and a heartbeat,
// last_seen_at. What an instance holds (an attempt it is sending, a batch it runs) names it, and
// only an instance found dead is taken over (services/scale-out/instance.ts).
import type { Sql, SqlValue } from '../engine/types';
import { isoTime, systemClock, type Clock } from '../support';
import { placeholders } from './page';

export interface InstanceRecord {
  id: string;
  host: string;
  pid: number;
  startedAt: string;
  lastSeenAt: string;
}

interface InstanceRow {
  id: string;
  host: string;
  pid: number;
  started_at: string;
  last_seen_at: string;
}

/**
 * A condition on `column` (an owner column: attempts.claimed_by, batches.run_by) true when no
 * live instance holds the row: no owner, or an owner not among `alive`.
 */
export function notHeldBy(column: string, alive: readonly string[]): { sql: string; params: SqlValue[] } {
  if (alive.length === 0) return { sql: '1 = 1', params: [] };
  return { sql: `(${column} IS NULL OR ${column} NOT IN (${placeholders(alive)}))`, params: [...alive] };
}

export class InstancesRepository {
  constructor(
    private readonly db: Sql,
    private readonly now: Clock = systemClock,
  ) {}

  /** This process starts as instance `id` (a restart keeps its id): seen now. */
  async register(id: string, host: string, pid: number): Promise<void> {
    const at = isoTime(this.now());
    await this.db.run(
      `INSERT INTO ledger_instances (id, host, pid, started_at, last_seen_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET host = excluded.host, pid = excluded.pid, started_at = excluded.started_at, last_seen_at = excluded.last_seen_at`,
      [id, host, pid, at, at],
    );
  }

  /** The heartbeat; false when the row is gone (another instance found this one dead and forgot it). */
  async heartbeat(id: string): Promise<boolean> {
    return (await this.db.run('UPDATE ledger_instances SET last_seen_at = ? WHERE id = ?', [isoTime(this.now()), id])) === 1;
  }

  async list(): Promise<InstanceRecord[]> {
    return (await this.db.all<InstanceRow>('SELECT * FROM ledger_instances ORDER BY id')).map((row) => ({ id: row.id, host: row.host, pid: row.pid, startedAt: row.started_at, lastSeenAt: row.last_seen_at }));
  }

  /** Every instance forgotten (none of them runs on this ledger: a restore's copy); returns how many. */
  async forgetAll(): Promise<number> {
    return this.db.run('DELETE FROM ledger_instances');
  }

  /** Dead instances whose holdings were taken over; one seen again since `before` (it restarted) stays. */
  async forget(ids: readonly string[], before: Date): Promise<void> {
    if (ids.length > 0) await this.db.run(`DELETE FROM ledger_instances WHERE id IN (${placeholders(ids)}) AND last_seen_at < ?`, [...ids, isoTime(before)]);
  }
}
