// Runs the settlement of closed periods: once at start (periods that ended while the emulator was
// stopped), then just after each period ends. Its timers are the emulator's (unref'd, cleared by
// close()), so it never keeps a process alive.
import type { Clock, Logger } from '../../runtime';
import { errorMessage } from '../../../shared/error-message';
import type { TimerSet } from '../timers';
import { periodStartOf } from './periods';
import type { SettlementService } from './service';

/** A run waits this long past the period's end, so the clock surely reads the next period. */
const AFTER_PERIOD_END_MS = 50;
/** setTimeout's largest delay. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class SettlementScheduler {
  constructor(private readonly d: { service: SettlementService; clock: Clock; timers: TimerSet; log: Logger }) {}

  start(): void {
    this.d.timers.after(0, () => this.tick());
  }

  private tick(): void {
    try {
      this.d.service.run('closed');
    } catch (error) {
      // Nothing of a failed settlement is stored; the next period's run tries again.
      this.d.log.error('settlement run failed', { error: errorMessage(error) });
    }
    const now = this.d.clock.now();
    const nextEnd = periodStartOf(now, this.d.service.periodMs) + this.d.service.periodMs;
    this.d.timers.after(Math.min(nextEnd - now + AFTER_PERIOD_END_MS, MAX_TIMER_MS), () => this.tick());
  }
}
