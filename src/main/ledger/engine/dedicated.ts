// A PostgreSQL connection of its own, outside the pool, kept open: what a session must hold for as
// long as the process runs — LISTEN (the push relay) and session advisory locks (leadership). When
// it drops (the server restarted, the network failed) what it held is gone: `down` says so, and it
// connects again after a pause that grows to `maxRetryMs`; `up` runs on every (re)connection,
// before anything else is asked of it.
// Type-only: the driver is loaded on the first connect (a desk on SQLite never makes one).
import type pg from 'pg';
import type { Logger } from '../../logger';

export interface DedicatedConnectionOptions {
  /** The pool's connection settings (PostgresEngine.connectionConfig). */
  config: pg.ClientConfig;
  /** What this connection is for, in the log and in pg_stat_activity. */
  purpose: string;
  log: Logger;
  up: (connection: DedicatedConnection) => Promise<void>;
  down?: () => void;
  notification?: (channel: string, payload: string | undefined) => void;
  minRetryMs?: number;
  maxRetryMs?: number;
}

export class DedicatedConnection {
  private client: pg.Client | null = null;
  private closed = false;
  private retryMs: number;
  private retryTimer: NodeJS.Timeout | null = null;
  private firstTry: Promise<void> | null = null;

  constructor(private readonly options: DedicatedConnectionOptions) {
    this.retryMs = options.minRetryMs ?? 250;
  }

  get connected(): boolean {
    return this.client !== null;
  }

  /** Connects; resolves after the first try, whether it worked or a retry is scheduled. */
  start(): Promise<void> {
    this.firstTry ??= this.connect();
    return this.firstTry;
  }

  /** A statement on this connection; rejects while it is down. */
  async query<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
    if (!this.client) throw new Error(`the ${this.options.purpose} connection to PostgreSQL is down`);
    return (await this.client.query<T>(text, values)).rows;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    this.retryTimer = null;
    const { default: driver } = await import('pg');
    if (this.closed) return;
    const client = new driver.Client({ ...this.options.config, application_name: `paydesk ${this.options.purpose}` });
    let lost = false;
    const drop = (why: unknown) => {
      if (lost) return;
      lost = true;
      if (this.client === client) this.client = null;
      void client.end().catch(() => undefined);
      if (this.closed) return;
      this.options.log.warn(`the ${this.options.purpose} connection to PostgreSQL dropped (${why instanceof Error ? why.message : String(why)}); connecting again`);
      this.options.down?.();
      this.scheduleRetry();
    };
    client.on('error', drop);
    client.on('end', () => drop('ended'));
    client.on('notification', (message) => this.options.notification?.(message.channel, message.payload));
    try {
      await client.connect();
      if (this.closed) {
        await client.end();
        return;
      }
      this.client = client;
      await this.options.up(this);
      this.retryMs = this.options.minRetryMs ?? 250;
    } catch (error) {
      if (this.client === client) drop(error);
      else if (!lost) {
        lost = true;
        void client.end().catch(() => undefined);
        if (!this.closed) {
          this.options.log.warn(`the ${this.options.purpose} connection to PostgreSQL failed (${error instanceof Error ? error.message : String(error)}); trying again`);
          this.scheduleRetry();
        }
      }
    }
  }

  private scheduleRetry(): void {
    if (this.closed || this.retryTimer) return;
    const wait = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, this.options.maxRetryMs ?? 5_000);
    this.retryTimer = setTimeout(() => void this.connect(), wait);
    this.retryTimer.unref();
  }
}
