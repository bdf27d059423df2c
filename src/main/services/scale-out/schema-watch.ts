// A newer Paydesk may migrate the ledger while this instance runs: a rolling upgrade of a team
// server's instances (docs/team.md, "Upgrade"). Every heartbeat this instance reads the migrations
// recorded past the newest it knows. None: it is current. All declared compatible with it (each
// records the oldest schema that keeps running on it, migrations/index.ts): it keeps serving, and
// says so once in its log. Any other: it drains (drain.ts), and its owner closes it.
import { incompatibility, standingOf, type AppliedMigration } from '../../ledger/engine/history';
import type { Logger } from '../../logger';

export interface SchemaWatchDeps {
  /** The newest migration this build applies on the ledger's engine. */
  newest: number;
  /** The migrations recorded after a version (ledger/connection.ts, migrationsAfter). */
  recordedAfter: (version: number) => Promise<AppliedMigration[]>;
  everyMs: number;
  log: Logger;
  /** A newer migration this build cannot run with was applied: why, in one sentence. */
  onIncompatible: (reason: string) => void;
}

export class SchemaWatch {
  private timer: NodeJS.Timeout | null = null;
  private checking: Promise<void> = Promise.resolve();
  /** The newest version already said to be compatible (said once each). */
  private toldCompatible = 0;
  private stopped = false;

  constructor(private readonly deps: SchemaWatchDeps) {}

  async start(): Promise<void> {
    await this.check();
    if (this.stopped) return;
    this.timer = setInterval(() => {
      this.checking = this.checking.then(() => this.check());
    }, this.deps.everyMs);
    this.timer.unref();
  }

  async close(): Promise<void> {
    this.stop();
    await this.checking;
  }

  private stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async check(): Promise<void> {
    if (this.stopped) return;
    let standing;
    try {
      standing = standingOf(await this.deps.recordedAfter(this.deps.newest), this.deps.newest);
    } catch (error) {
      // The heartbeat reports an unreachable ledger; the next round looks again.
      this.deps.log.warn(`reading the ledger's schema version failed: ${(error as Error).message}`);
      return;
    }
    if (standing.state === 'incompatible') {
      this.stop();
      this.deps.onIncompatible(incompatibility(standing));
    } else if (standing.state === 'compatible' && standing.version > this.toldCompatible) {
      this.toldCompatible = standing.version;
      this.deps.log.info(
        `the ledger was upgraded by a newer Paydesk to schema version ${standing.version}; every step past this Paydesk's ${standing.newest} is declared compatible with it, so this instance keeps serving (upgrade it when you can)`,
      );
    }
  }
}
