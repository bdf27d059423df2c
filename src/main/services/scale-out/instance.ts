// This process as one instance of the ledger's workers (docs/team.md, "Several instances"). Its id
// is kept in its data directory, so a restart is the same instance: what it held when it stopped
// (the attempts it was sending, the batches it ran) is its own to take back at once. On
// PostgreSQL it says it is alive every `heartbeatMs` (ledger_instances.last_seen_at), and holds a
// session lock of its own for as long as it runs (ledger/cluster.ts, `hold`). It is dead when it
// has not been heard from for `deadAfterMs`, or sooner, when its session has ended (the process
// was killed: its connection closed and the lock went with it) and it has missed two heartbeats.
// What a dead instance held is taken over (takeover.ts). On SQLite the desk is the only process,
// so every other instance is dead and no heartbeat is needed.
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Cluster } from '../../ledger/cluster';
import type { Repositories } from '../../ledger/repositories/index';
import type { Clock } from '../../ledger/support';
import type { Logger } from '../../logger';

export interface InstanceTimings {
  heartbeatMs: number;
  deadAfterMs: number;
}

export const DEFAULT_INSTANCE_TIMINGS: InstanceTimings = { heartbeatMs: 3_000, deadAfterMs: 20_000 };

const ID_FILE = 'instance-id';

/** This data directory's instance id, made on its first use. Each instance needs a data directory of its own. */
export function instanceIdIn(dataDir: string): string {
  const file = path.join(dataDir, ID_FILE);
  try {
    const id = readFileSync(file, 'utf8').trim();
    if (/^[0-9a-f-]{36}$/.test(id)) return id;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const id = randomUUID();
  writeFileSync(file, `${id}\n`);
  return id;
}

export interface InstancePresenceDeps {
  repos: Pick<Repositories, 'instances'>;
  id: string;
  /** Other processes may share the ledger (PostgreSQL). */
  shared: boolean;
  /** Where this instance holds its session lock, and where the others' are seen. */
  sessions: Pick<Cluster, 'hold' | 'present'>;
  now: Clock;
  log: Logger;
  timings?: Partial<InstanceTimings>;
}

export class InstancePresence {
  readonly id: string;
  readonly timings: InstanceTimings;
  private timer: NodeJS.Timeout | null = null;
  private beating: Promise<void> = Promise.resolve();
  private failing = false;

  constructor(private readonly deps: InstancePresenceDeps) {
    this.id = deps.id;
    this.timings = { ...DEFAULT_INSTANCE_TIMINGS, ...deps.timings };
  }

  /** Registers this instance (seen now) and, on a shared ledger, holds its session lock and starts its heartbeat. */
  async start(): Promise<void> {
    if (this.deps.shared) await this.deps.sessions.hold(this.id);
    await this.register();
    if (!this.deps.shared) return;
    this.timer = setInterval(() => {
      this.beating = this.beating.then(() => this.beat());
    }, this.timings.heartbeatMs);
    this.timer.unref();
  }

  /**
   * The instances alive now (this one first: what they hold is theirs) and the dead ones (never
   * this one). At start-up, this one's earlier holdings are its own to take back.
   */
  async census(): Promise<{ alive: string[]; dead: string[] }> {
    if (!this.deps.shared) return { alive: [this.id], dead: [] };
    const now = this.deps.now().getTime();
    const others = (await this.deps.repos.instances.list()).filter((instance) => instance.id !== this.id).map((instance) => ({ id: instance.id, silentMs: now - Date.parse(instance.lastSeenAt) }));
    const grace = this.sessionGraceMs();
    const suspects = others.filter((instance) => instance.silentMs >= grace && instance.silentMs < this.timings.deadAfterMs).map((instance) => instance.id);
    const present = suspects.length > 0 ? await this.deps.sessions.present(suspects) : new Set<string>();
    const isDead = (instance: { id: string; silentMs: number }) => instance.silentMs >= this.timings.deadAfterMs || (instance.silentMs >= grace && !present.has(instance.id));
    return { alive: [this.id, ...others.filter((instance) => !isDead(instance)).map((instance) => instance.id)], dead: others.filter(isDead).map((instance) => instance.id) };
  }

  /** The other instances alive now: what they hold is theirs. */
  async othersAlive(): Promise<string[]> {
    return (await this.census()).alive.slice(1);
  }

  /** Dead instances whose holdings were taken over (one that came back meanwhile stays). */
  forget(ids: readonly string[]): Promise<void> {
    return this.deps.repos.instances.forget(ids, new Date(this.deps.now().getTime() - this.sessionGraceMs()));
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.beating;
  }

  /** How long one whose session ended must have been silent to be dead: two heartbeats, so that one whose lock's connection alone dropped (its heartbeat still arrives) is not taken. */
  private sessionGraceMs(): number {
    return Math.min(this.timings.deadAfterMs, 2 * this.timings.heartbeatMs);
  }

  private register(): Promise<void> {
    return this.deps.repos.instances.register(this.id, os.hostname(), process.pid);
  }

  private async beat(): Promise<void> {
    try {
      if (!(await this.deps.repos.instances.heartbeat(this.id))) {
        // Another instance took this one for dead (not heard from for deadAfterMs, or its lock was
        // gone and two heartbeats were missed) and took over what it held; it is alive again from now on.
        this.deps.log.warn(`instance ${this.id} was taken for dead by another instance; registering again`);
        await this.register();
      }
      if (this.failing) this.deps.log.info('the heartbeat reaches the ledger again');
      this.failing = false;
    } catch (error) {
      if (!this.failing) this.deps.log.error('the heartbeat could not reach the ledger', error);
      this.failing = true;
    }
  }
}
