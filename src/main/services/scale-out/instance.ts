// This process as one instance of the ledger's workers (docs/team.md, "Several instances"). Its id
// is kept in its data directory, so a restart is the same instance: what it held when it stopped
// (the attempts it was sending, the batches it ran) is its own to take back at once. On
// PostgreSQL it says it is alive every `heartbeatMs` (ledger_instances.last_seen_at); one not
// heard from for `deadAfterMs` is dead, and what it held is taken over (takeover.ts). On SQLite the
// desk is the only process, so every other instance is dead and no heartbeat is needed.
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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

  /** Registers this instance (seen now) and, on a shared ledger, starts its heartbeat. */
  async start(): Promise<void> {
    await this.register();
    if (!this.deps.shared) return;
    this.timer = setInterval(() => {
      this.beating = this.beating.then(() => this.beat());
    }, this.timings.heartbeatMs);
    this.timer.unref();
  }

  /** The other instances alive now: what they hold is theirs. At start-up, this one's earlier holdings are not among them. */
  async othersAlive(): Promise<string[]> {
    if (!this.deps.shared) return [];
    return (await this.deps.repos.instances.seenSince(this.deadline())).filter((id) => id !== this.id);
  }

  /** Every instance alive now, this one included. */
  async alive(): Promise<string[]> {
    return [this.id, ...(await this.othersAlive())];
  }

  /** Instances not heard from for deadAfterMs (never this one). */
  async dead(): Promise<string[]> {
    if (!this.deps.shared) return [];
    return (await this.deps.repos.instances.silentSince(this.deadline())).filter((id) => id !== this.id);
  }

  /** Dead instances whose holdings were taken over (one that came back meanwhile stays). */
  forget(ids: readonly string[]): Promise<void> {
    return this.deps.repos.instances.forget(ids, this.deadline());
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.beating;
  }

  private deadline(): Date {
    return new Date(this.deps.now().getTime() - this.timings.deadAfterMs);
  }

  private register(): Promise<void> {
    return this.deps.repos.instances.register(this.id, os.hostname(), process.pid);
  }

  private async beat(): Promise<void> {
    try {
      if (!(await this.deps.repos.instances.heartbeat(this.id))) {
        // Another instance took this one for dead (it was not heard from for deadAfterMs) and took
        // over what it held; it is alive again from now on.
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
