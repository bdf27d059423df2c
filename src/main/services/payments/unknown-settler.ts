// Settles create calls whose outcome is unknown without waiting for a person, where that is safe:
// at start-up, at the start of every sweep, and on "Settle what can be
// settled". Always under the attempt's own Idempotency-Key (AttemptService.settle): it is looked
// up through the shared, rate-limited StatusReader, a pay-in by request_id, a payout by
// merchantReference (found: settled, nothing sent); the gateway does not know it: its exact bytes
// go out again, a first arrival; a payout the gateway cannot look up (the spec reads payouts by
// the payout_id its lost answer held; a gateway that said so is not asked again) is resent and the
// gateway replays its first answer if it had one. Left for a person, with a note saying why (shown
// on the transaction and in the Unknown outcomes list):
//   - a live payout the lookup did not settle: resent only after its review (attempts:review),
//     never in the background;
//   - a card attempt after a restart: its card data was never stored and must be entered again;
//   - an item of a batch: its batch settles it ("Settle open payouts");
//   - no usable answer (gateway unreachable, rate limited, no merchant-token): the next pass.
import type { SettleSummary } from '../../../shared/contract';
import { errorMessage } from '../../../shared/error-message';
import { maskPansIn } from '../../../shared/redact';
import type { Attempt } from '../../ledger/repositories/attempts';
import type { Repositories } from '../../ledger/repositories/index';
import { isoTime, type Clock } from '../../ledger/support';
import type { Logger } from '../../logger';
import type { ReferenceReads } from '../verification/reference-reads';
import type { AttemptService } from './attempt-service';

/** An attempt "prepared" this long ago was interrupted before its first send (a send follows its prepare at once). */
const STALE_PREPARED_MS = 5 * 60_000;

export interface UnknownSettlerDeps {
  repos: Repositories;
  attempts: Pick<AttemptService, 'settle'>;
  /** Whether a profile's gateway has said it cannot read payouts by merchantReference. */
  referenceReads: Pick<ReferenceReads, 'refusal'>;
  now: Clock;
  log: Logger;
  /** Attempts looked at per pass, oldest first. Default 200. */
  maxPerPass?: number;
}

export class UnknownSettler {
  private running: Promise<SettleSummary> | null = null;
  private readonly closing = new AbortController();

  constructor(private readonly deps: UnknownSettlerDeps) {}

  /** One pass; a pass asked for while one runs joins it. Never throws for one attempt's failure. */
  settleAll(options: { profileId?: string | undefined; signal?: AbortSignal | undefined } = {}): Promise<SettleSummary> {
    if (this.closing.signal.aborted) return Promise.resolve({ tried: 0, settled: 0, left: 0 });
    this.running ??= this.pass(options).finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** Stops between attempts; one already on the wire gets up to `graceMs` to be recorded. */
  async close(graceMs = 2_000): Promise<void> {
    this.closing.abort();
    if (!this.running) return;
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
      timer.unref();
    });
    await Promise.race([this.running.then(() => undefined, () => undefined), grace]);
    clearTimeout(timer);
  }

  private async pass({ profileId, signal }: { profileId?: string | undefined; signal?: AbortSignal | undefined }): Promise<SettleSummary> {
    const summary: SettleSummary = { tried: 0, settled: 0, left: 0 };
    for (const attempt of await this.candidates(profileId)) {
      if (signal?.aborted || this.closing.signal.aborted) break;
      summary.tried++;
      const note = await this.settleOne(attempt);
      if (note.settled) summary.settled++;
      else summary.left++;
      try {
        await this.deps.repos.attempts.noteSettle(attempt.idempotencyKey, maskPansIn(note.text));
      } catch (error) {
        this.deps.log.error(`noting the settling of attempt ${attempt.idempotencyKey} failed`, error);
      }
    }
    if (summary.tried > 0) this.deps.log.info(`settling unknown outcomes: ${summary.settled} settled, ${summary.left} left of ${summary.tried}`);
    return summary;
  }

  /** Unknown attempts and long-stale prepared ones, oldest first. */
  private async candidates(profileId: string | undefined): Promise<Attempt[]> {
    const max = this.deps.maxPerPass ?? 200;
    const stale = isoTime(new Date(this.deps.now().getTime() - STALE_PREPARED_MS));
    const { attempts } = this.deps.repos;
    const prepared = (await attempts.byState('prepared', profileId, max)).filter((a) => a.updatedAt < stale);
    return [...(await attempts.byState('unknown', profileId, max)), ...prepared].sort((a, b) => a.id - b.id).slice(0, max);
  }

  private async settleOne(attempt: Attempt): Promise<{ settled: boolean; text: string }> {
    const profile = await this.deps.repos.profiles.get(attempt.profileId);
    if (!profile) return { settled: false, text: 'its profile is gone' };
    if (await this.ownedByBatch(attempt.idempotencyKey)) {
      return { settled: false, text: 'an item of a payout batch: settle it from the batch (“Settle open payouts”), under the same key' };
    }
    const livePayout = attempt.kind === 'payout' && profile.environment === 'live';
    try {
      const result = await this.deps.attempts.settle({ key: attempt.idempotencyKey }, { actor: 'system', wait: 'background', resend: !livePayout });
      switch (result.outcome) {
        case 'succeeded':
        case 'rejected':
          return { settled: true, text: `settled automatically: ${result.message}` };
        case 'unknown':
          if (livePayout && (await this.deps.referenceReads.refusal(profile))) {
            // Why it cannot be looked up is said once, beside this note (the payout's page, the Unknown outcomes list).
            return { settled: false, text: 'left for a person: a live payout is resent only after its review; open it and choose “Resume under the same key”' };
          }
          if (livePayout) return { settled: false, text: `the gateway's status read by merchantReference did not settle it (${result.message}); a live payout is resent only after its review: open it and choose “Resume under the same key”` };
          return { settled: false, text: `not settled yet: ${result.message}` };
        case 'needs_body':
          return { settled: false, text: `needs a person: the card data was never stored; open it, enter ${result.needs.join(', ')} and resume under the same key` };
        default:
          return { settled: false, text: `not settled yet: ${result.message}` };
      }
    } catch (error) {
      return { settled: false, text: `not settled yet: ${errorMessage(error)}` };
    }
  }

  private ownedByBatch(key: string): Promise<boolean> {
    return this.deps.repos.batches.ownsKey(key);
  }
}
