// Work done in rounds by the one instance that leads it (cluster.lead): a round as it starts to
// lead, then one every `everyMs` until it loses the lead or closes. Rounds never overlap: a round
// asked for (runRound) runs after the one running. The notices' sender and watches are such work.
import { AsyncResource } from 'node:async_hooks';

export abstract class LedRounds {
  private isLeading = false;
  private timer: NodeJS.Timeout | undefined;
  private round: Promise<void> = Promise.resolve();

  protected constructor(private readonly everyMs: number) {}

  /** One round's work. It handles its own errors: the rounds go on whatever one of them met. */
  protected abstract work(): Promise<void>;

  protected get leading(): boolean {
    return this.isLeading;
  }

  /** This instance leads the work: a round now, then one every everyMs. */
  async lead(): Promise<void> {
    this.isLeading = true;
    await this.runRound();
  }

  /** ...and no longer: another instance does it. */
  lost(): void {
    this.isLeading = false;
    clearTimeout(this.timer);
  }

  async close(): Promise<void> {
    this.lost();
    await this.round;
  }

  /** One round now (after the one running), the next every everyMs after it while leading. */
  runRound(): Promise<void> {
    this.round = this.round.then(this.oneRound);
    return this.round;
  }

  private readonly oneRound = AsyncResource.bind(async () => {
    clearTimeout(this.timer);
    await this.work();
    if (this.isLeading) this.timer = setTimeout(() => void this.runRound(), this.everyMs).unref();
  });
}
