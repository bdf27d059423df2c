// The relay of pushes between the instances of one PostgreSQL ledger (migration postgres/0005):
// a push is written as a row of push_relay, whose insert trigger NOTIFYs paydesk_push with its id
// (a NOTIFY payload is limited to 8000 bytes; a push is not); every instance LISTENs on a
// connection of its own and reads the rows of the ids it is told, leaving out its own (it showed
// them already). Writes go straight to the pool, never into the unit of work a publisher may be
// in: a push is announced when it is published, not held back (or lost) with a transaction.
import { DedicatedConnection } from './engine/dedicated';
import { PostgresEngine } from './engine/postgres';
import type { LedgerEngine } from './engine/types';
import type { Logger } from '../logger';
import { isoTime, type Clock } from './support';

const CHANNEL = 'paydesk_push';

export interface RelayedPush {
  id: number;
  channel: string;
  /** JSON text. */
  payload: string;
  /** JSON text of the audience, or null for everyone. */
  audience: string | null;
}

export interface PushRelayListener {
  /** Ids announced (in commit order); read them with read(). */
  announced: (ids: number[]) => void;
  /** The connection is (again) listening: pushes announced while it was down are read with after(). */
  listening: () => void;
}

export class PushRelayStore {
  private connection: DedicatedConnection | null = null;

  constructor(
    private readonly engine: PostgresEngine,
    private readonly now: Clock,
    /** This instance's id: its own rows are never read back. */
    private readonly origin: string,
  ) {}

  /** Writes pushes in their order (ids and NOTIFYs follow it), in one statement; resolves with their ids. */
  async write(pushes: readonly Omit<RelayedPush, 'id'>[]): Promise<number[]> {
    if (pushes.length === 0) return [];
    const at = isoTime(this.now());
    const values: unknown[] = [];
    const rows = pushes.map((push) => {
      values.push(this.origin, push.channel, push.payload, push.audience, at);
      const n = values.length;
      return `($${n - 4}, $${n - 3}, $${n - 2}, $${n - 1}, $${n})`;
    });
    const { rows: written } = await this.engine.pool.query<{ id: number }>(`INSERT INTO push_relay (origin, channel, payload, audience, created_at) VALUES ${rows.join(', ')} RETURNING id`, values);
    return written.map((row) => row.id);
  }

  /** The other instances' pushes of these ids, oldest first. */
  async read(ids: readonly number[]): Promise<RelayedPush[]> {
    const { rows } = await this.engine.pool.query<RelayedPush>('SELECT id, channel, payload, audience FROM push_relay WHERE id = ANY($1::bigint[]) AND origin <> $2 ORDER BY id', [ids, this.origin]);
    return rows;
  }

  /** The other instances' pushes after id `after`, oldest first, at most `limit`. */
  async after(after: number, limit = 1000): Promise<RelayedPush[]> {
    const { rows } = await this.engine.pool.query<RelayedPush>('SELECT id, channel, payload, audience FROM push_relay WHERE id > $1 AND origin <> $2 ORDER BY id LIMIT $3', [after, this.origin, limit]);
    return rows;
  }

  /** The newest id so far (0 when none). */
  async newestId(): Promise<number> {
    const { rows } = await this.engine.pool.query<{ id: number | null }>('SELECT max(id) AS id FROM push_relay');
    return rows[0]?.id ?? 0;
  }

  /** Rows written before `before`: a push is for the screens open when it happens. */
  async prune(before: Date): Promise<number> {
    return (await this.engine.pool.query('DELETE FROM push_relay WHERE created_at < $1', [isoTime(before)])).rowCount ?? 0;
  }

  /** LISTENs on a connection of its own, connecting again whenever it drops. */
  async listen(listener: PushRelayListener, log: Logger): Promise<void> {
    this.connection = new DedicatedConnection({
      config: this.engine.connectionConfig,
      purpose: 'push relay',
      log,
      up: async (connection) => {
        await connection.query(`LISTEN ${CHANNEL}`);
        listener.listening();
      },
      notification: (channel, payload) => {
        const id = Number(payload);
        if (channel === CHANNEL && Number.isSafeInteger(id)) listener.announced([id]);
      },
    });
    await this.connection.start();
  }

  async close(): Promise<void> {
    await this.connection?.close();
  }
}

/** The relay of this ledger: PostgreSQL's; a SQLite ledger is one process's, with nothing to relay. */
export function pushRelayStore(ledger: LedgerEngine, now: Clock, origin: string): PushRelayStore | null {
  return ledger instanceof PostgresEngine ? new PushRelayStore(ledger, now, origin) : null;
}
