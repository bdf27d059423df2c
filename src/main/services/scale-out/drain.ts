// Stopping without dropping work, when this instance can no longer run on the ledger (schema-watch.ts).
// From `begin` every new call is refused with the reason (the team server answers 503), the work
// this instance drives itself stops taking more (`stopWork`: its batches send what they hold and
// claim nothing after), the calls in flight end; then `drained` resolves, and the owner closes the
// core (server/main.ts exits). A person's next call goes to an instance that can serve it.
import type { Envelope } from '../../../shared/contract';
import type { Logger } from '../../logger';

type Dispatch = (channel: string, input: unknown) => Promise<Envelope<unknown>>;

export class Drain {
  /** Why this instance stops, once it does. */
  reason: string | null = null;
  readonly drained: Promise<string>;
  private finish!: (reason: string) => void;
  private inFlight = 0;
  private idle: (() => void) | null = null;

  constructor(private readonly log: Logger) {
    this.drained = new Promise((resolve) => (this.finish = resolve));
  }

  /** What a call gets once this instance stops: nothing was done, and where to go. */
  refusal(): string {
    return `This Paydesk instance is stopping: ${this.reason}. Nothing was done; try again in a moment, on an upgraded instance.`;
  }

  /** `dispatch`, refused once draining, its calls in flight counted. */
  gate(dispatch: Dispatch): Dispatch {
    return async (channel, input) => {
      if (this.reason !== null) return { ok: false, error: { code: 'unavailable', message: this.refusal() } };
      this.inFlight++;
      try {
        return await dispatch(channel, input);
      } finally {
        if (--this.inFlight === 0) this.idle?.();
      }
    };
  }

  async begin(reason: string, stopWork: () => Promise<void>): Promise<void> {
    if (this.reason !== null) return;
    this.reason = reason;
    this.log.error(`stopping: ${reason}. Taking no new work; the sends in flight are finished first.`);
    const callsEnded = this.inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => (this.idle = resolve));
    await Promise.all([stopWork().catch((error: unknown) => this.log.error('stopping the batches failed', error)), callsEnded]);
    this.log.error('drained: every send in flight is recorded; closing.');
    this.finish(reason);
  }
}
