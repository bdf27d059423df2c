// The recovery of what dead instances held, led by one instance at a time (ledger/cluster.ts). On
// taking the lead it picks up the background work no instance may be doing (unverified claims,
// polled rows, unknown outcomes) and looks for dead instances (instance.ts) at once, then every
// heartbeat, and takes over what they held: their sends in flight become unknown (settled
// under their own keys), their batches go on here, and the work is picked up again. Each of
// those moves is a compare-and-set in the ledger, so an instance restarting at the same moment
// (which takes back its own) and the leader never both take the same thing.
import type { Logger } from '../../logger';
import type { AttemptService } from '../payments/attempt-service';
import type { BatchService } from '../payouts-batch/batch-service';
import type { InstancePresence } from './instance';

export interface TakeoverDeps {
  presence: Pick<InstancePresence, 'census' | 'forget' | 'timings'>;
  attempts: Pick<AttemptService, 'recoverInterrupted'>;
  batches: Pick<BatchService, 'recover'>;
  /** The background work a leader picks up: what a dead (or no) leader left. */
  pickUp: () => Promise<void>;
  log: Logger;
  /** Looks for dead instances (PostgreSQL); on a desk there are none to look for. */
  watch: boolean;
}

export class Takeover {
  private timer: NodeJS.Timeout | null = null;
  private round: Promise<void> = Promise.resolve();

  constructor(private readonly deps: TakeoverDeps) {}

  /** This instance leads the recovery now. */
  async lead(): Promise<void> {
    // A leader that died is found dead at once: what it held goes on here without waiting a round.
    // In turn with the rounds, one of which may still run from an earlier lead.
    const first = this.round.then(async () => {
      const tookOver = this.deps.watch ? await this.takeOverDead().catch((error: unknown) => void this.deps.log.error('taking over dead instances failed', error)) : undefined;
      if (!tookOver?.length) await this.deps.pickUp();
    });
    this.round = first.catch(() => undefined);
    await first;
    if (!this.deps.watch || this.timer) return;
    this.timer = setInterval(() => {
      this.round = this.round.then(async () => void (await this.takeOverDead())).catch((error: unknown) => this.deps.log.error('taking over dead instances failed', error));
    }, this.deps.presence.timings.heartbeatMs);
    this.timer.unref();
  }

  /** ...and no longer. */
  lost(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  async close(): Promise<void> {
    this.lost();
    await this.round;
  }

  /** One look for dead instances; returns the ids taken over. */
  async takeOverDead(): Promise<string[]> {
    const { alive, dead } = await this.deps.presence.census();
    if (dead.length === 0) return [];
    const keys = await this.deps.attempts.recoverInterrupted(alive);
    const batches = await this.deps.batches.recover(alive);
    await this.deps.presence.forget(dead);
    this.deps.log.warn(`took over dead instance(s) ${dead.join(', ')}: ${keys.length} send(s) in flight now unknown, ${batches.length} batch(es) resumed here`);
    await this.deps.pickUp();
    return dead;
  }
}
