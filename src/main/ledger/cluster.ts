// How the processes on one ledger share its background work (docs/team.md, "Several instances").
// On PostgreSQL, session advisory locks on a connection of this process's own (engine/dedicated.ts):
//   - lead(role): one instance at a time leads a loop (the recovery of dead instances' work); the
//     others try again every `retryMs`, so when the leader dies (its connection closes, its locks
//     go with it) another one leads within that time;
//   - exclusive(name, fn): a run that must not happen twice at once across the instances (a sweep,
//     a retention run) runs only where the lock is free, else not at all;
//   - hold(instance) / present(instances): each instance holds a lock of its own for as long as its
//     session lives, so another sees at once that its process is gone (services/scale-out/instance.ts).
// On SQLite the desk is the only process: it leads at once, for good, and a run is exclusive within it.
import { createHash } from 'node:crypto';
import type { Logger } from '../logger';
import { DedicatedConnection } from './engine/dedicated';
import { PostgresEngine } from './engine/postgres';
import type { LedgerEngine } from './engine/types';

export type LeaderRole = 'recovery' | 'notices' | 'watches';
export type ExclusiveRun = 'sweep' | 'retention';

/** Fixed forever, apart from the transaction locks' keys (engine/postgres.ts). */
const SESSION_LOCK_KEYS: Record<LeaderRole | ExclusiveRun, number> = { recovery: 0x5061_7911, sweep: 0x5061_7912, retention: 0x5061_7913, notices: 0x5061_7915, watches: 0x5061_7916 };
/** The longest pause between reconnection tries of the connection that holds the locks. */
const RECONNECT_MAX_MS = 5_000;
/** An instance's own lock is (PRESENCE_CLASS, a 31-bit hash of its id): two keys, apart from the single-key locks above. */
export const PRESENCE_CLASS = 0x5061_7914;

/** An instance id's presence key. Two ids may share one: then one's lock makes the other look present, and only its heartbeat tells. */
export function presenceKey(instanceId: string): number {
  return createHash('sha256').update(instanceId).digest().readUInt32BE(0) & 0x7fff_ffff;
}

export interface LeaderHooks {
  /** This instance leads now (awaited; a failure is logged). */
  lead: () => Promise<void>;
  /** ...and no longer (its connection dropped). */
  lost: () => void;
}

export type ExclusiveResult<T> = { ran: true; value: T } | { ran: false };

export interface Cluster {
  /** Leads `role` whenever this instance can; resolves after the first try (and its lead, when it won). */
  lead(role: LeaderRole, hooks: LeaderHooks): Promise<void>;
  /** Runs fn unless a run of `name` is under way, here or in another instance. */
  exclusive<T>(name: ExclusiveRun, fn: () => Promise<T>): Promise<ExclusiveResult<T>>;
  /** Holds `instanceId`'s presence for as long as this process's session lives (taken again after a reconnect). */
  hold(instanceId: string): Promise<void>;
  /**
   * Of `instanceIds`, those whose presence some session holds; all of them when it cannot be told:
   * this connection is down, or came back too recently for the others' to have come back too
   * (after a database restart every instance's lock is gone until it reconnects).
   */
  present(instanceIds: readonly string[]): Promise<Set<string>>;
  /** Whether this session holds `instanceId`'s presence now (a readiness check: one that lost it is being taken for dead). */
  holds(instanceId: string): boolean;
  /** Whether this instance leads `role` now. */
  leads(role: LeaderRole): boolean;
  close(): Promise<void>;
}

export interface ClusterOptions {
  log: Logger;
  /** How often an instance that does not lead (or hold its presence) tries again. Default 2 s. */
  retryMs?: number;
  /**
   * How long this connection must have been up before a lock missing from it counts: the longest
   * pause between another instance's reconnection tries, its retry and a margin. Default 8 s.
   */
  steadyMs?: number;
}

export function openCluster(ledger: LedgerEngine, options: ClusterOptions): Cluster {
  return ledger instanceof PostgresEngine ? new AdvisoryCluster(ledger, options) : soleCluster(options.log);
}

/** A cluster of this process alone: a desk's, and a service's tests that are not about instances. */
export function soleCluster(log: Logger): Cluster {
  return new SoleCluster(log);
}

/** Runs of this process under way, by name: a session advisory lock is re-entrant, so it cannot tell. */
class LocalRuns {
  private readonly running = new Set<ExclusiveRun>();

  async run<T>(name: ExclusiveRun, fn: () => Promise<T>, around: (inner: () => Promise<T>) => Promise<ExclusiveResult<T>>): Promise<ExclusiveResult<T>> {
    if (this.running.has(name)) return { ran: false };
    this.running.add(name);
    try {
      return await around(fn);
    } finally {
      this.running.delete(name);
    }
  }
}

class SoleCluster implements Cluster {
  private readonly runs = new LocalRuns();

  constructor(private readonly log: Logger) {}

  async lead(role: LeaderRole, hooks: LeaderHooks): Promise<void> {
    await hooks.lead().catch((error: unknown) => this.log.error(`leading ${role} failed`, error));
  }

  exclusive<T>(name: ExclusiveRun, fn: () => Promise<T>): Promise<ExclusiveResult<T>> {
    return this.runs.run(name, fn, async (inner) => ({ ran: true, value: await inner() }));
  }

  async hold(): Promise<void> {}

  async present(instanceIds: readonly string[]): Promise<Set<string>> {
    return new Set(instanceIds);
  }

  holds(): boolean {
    return true;
  }

  leads(): boolean {
    return true;
  }

  async close(): Promise<void> {}
}

class AdvisoryCluster implements Cluster {
  private readonly connection: DedicatedConnection;
  private readonly roles = new Map<LeaderRole, { hooks: LeaderHooks; held: boolean }>();
  /** This process's instances' presence keys, and whether this session holds each now. */
  private readonly presences = new Map<number, boolean>();
  /** When this connection last came up (performance.now()); null while it is down. */
  private upSince: number | null = null;
  private readonly runs = new LocalRuns();
  /** The retries: set going by the first lead() or hold(), so a cluster wired and never used holds nothing. */
  private timer: NodeJS.Timeout | undefined;
  private trying: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    engine: PostgresEngine,
    private readonly options: ClusterOptions,
  ) {
    this.connection = new DedicatedConnection({
      config: engine.connectionConfig,
      purpose: 'leadership and presence',
      log: options.log,
      maxRetryMs: RECONNECT_MAX_MS,
      up: async () => {
        this.upSince = performance.now();
        void this.tryAll(); // its presence at once, not at the next retry
      },
      down: () => this.lostAll(),
    });
  }

  async lead(role: LeaderRole, hooks: LeaderHooks): Promise<void> {
    this.roles.set(role, { hooks, held: false });
    this.retry();
    await this.connection.start();
    await this.tryAll();
  }

  exclusive<T>(name: ExclusiveRun, fn: () => Promise<T>): Promise<ExclusiveResult<T>> {
    return this.runs.run(name, fn, async (inner) => {
      await this.connection.start();
      if (!(await this.tryLock(name))) return { ran: false };
      try {
        return { ran: true, value: await inner() };
      } finally {
        await this.connection.query('SELECT pg_advisory_unlock($1)', [SESSION_LOCK_KEYS[name]]).catch(() => undefined); // a dropped connection released it already
      }
    });
  }

  async hold(instanceId: string): Promise<void> {
    this.presences.set(presenceKey(instanceId), false);
    this.retry();
    await this.connection.start();
    await this.tryAll();
  }

  async present(instanceIds: readonly string[]): Promise<Set<string>> {
    const steadyMs = this.options.steadyMs ?? RECONNECT_MAX_MS + (this.options.retryMs ?? 2_000) + 1_000;
    if (this.upSince === null || performance.now() - this.upSince < steadyMs) return new Set(instanceIds);
    let held: Set<number>;
    try {
      const rows = await this.connection.query<{ key: number }>(
        `SELECT objid::bigint::int AS key FROM pg_locks
          WHERE locktype = 'advisory' AND granted AND objsubid = 2 AND classid = $1::bigint::oid
            AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        [PRESENCE_CLASS],
      );
      held = new Set(rows.map((row) => Number(row.key)));
    } catch {
      return new Set(instanceIds); // not known now: the heartbeat alone tells
    }
    return new Set(instanceIds.filter((id) => held.has(presenceKey(id))));
  }

  holds(instanceId: string): boolean {
    return this.connection.connected && this.presences.get(presenceKey(instanceId)) === true;
  }

  leads(role: LeaderRole): boolean {
    return this.connection.connected && this.roles.get(role)?.held === true;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.trying;
    this.roles.clear();
    await this.connection.close();
  }

  private retry(): void {
    if (this.timer || this.closed) return;
    this.timer = setInterval(() => void this.tryAll(), this.options.retryMs ?? 2_000);
    this.timer.unref();
  }

  /** One try at a time: every presence this session does not hold yet, then every role this instance does not lead yet. */
  private tryAll(): Promise<void> {
    this.trying = this.trying.then(async () => {
      for (const [key, held] of this.presences) {
        if (held || !this.connection.connected) continue;
        const [row] = await this.connection.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS locked', [PRESENCE_CLASS, key]).catch(() => []);
        // Not got: an earlier session of this instance the server has not seen end yet; the next try.
        if (row?.locked === true) this.presences.set(key, true);
      }
      for (const [role, state] of this.roles) {
        if (state.held || !(await this.tryLock(role)) || !this.connection.connected) continue;
        state.held = true;
        this.options.log.info(`this instance leads ${role}`);
        await state.hooks.lead().catch((error: unknown) => this.options.log.error(`leading ${role} failed`, error));
      }
    });
    return this.trying;
  }

  private async tryLock(name: LeaderRole | ExclusiveRun): Promise<boolean> {
    if (!this.connection.connected) return false;
    try {
      const [row] = await this.connection.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [SESSION_LOCK_KEYS[name]]);
      return row?.locked === true;
    } catch {
      return false; // the connection dropped meanwhile: down() says so, and the next try reconnects
    }
  }

  private lostAll(): void {
    this.upSince = null;
    for (const key of this.presences.keys()) this.presences.set(key, false);
    for (const [role, state] of this.roles) {
      if (!state.held) continue;
      state.held = false;
      this.options.log.warn(`this instance no longer leads ${role}`);
      state.hooks.lost();
    }
  }
}
