// 'attempts:progress-changed': a create call in flight, for the person who sent it. A create can
// spend a minute on timeouts and same-key retries; each try, each wait and the end are pushed with
// the retry policy that bounds them, so the screen can say what is happening and what comes next.
// The latest report of each send in flight is kept, so a screen opened or reloaded mid-send
// catches up ('attempts:progress'). Only the creates a person waits on report progress (a batch
// item shows in the batch's own counters instead).
import type { AttemptProgressView } from '../../../shared/contract';
import type { AttemptProgress, SendOptions } from '../../gateway/attempt-runner';
import { attemptKindOf } from '../../ledger/ledger-attempt-store';
import type { Profile } from '../../ledger/repositories/profiles';
import type { EventBus } from '../event-bus';
import type { GatewaySession } from '../gateway-sessions';

export function attemptProgressView(progress: AttemptProgress, profileId: string, tryTimeoutMs: number): AttemptProgressView {
  return {
    idempotencyKey: progress.key,
    profileId,
    kind: attemptKindOf[progress.endpoint],
    reference: progress.reference,
    phase: progress.phase,
    tryNumber: progress.tryNumber,
    startedAt: new Date(progress.startedAt).toISOString(),
    elapsedMs: Math.max(0, Math.round(progress.at - progress.startedAt)),
    lastAnswer: progress.lastAnswer,
    wait: progress.wait,
    outcome: progress.outcome,
    stopReason: progress.stopReason,
    policy: { ...progress.policy, tryTimeoutMs },
  };
}

export type ProgressQuery = Pick<AttemptProgressView, 'profileId' | 'kind' | 'reference'>;

/**
 * Sends in flight at once that are remembered; a send that fails in this code never reports its
 * end, so the oldest go first rather than stay forever.
 */
const MAX_REMEMBERED = 256;

const slot = (q: ProgressQuery) => `${q.profileId}\n${q.kind}\n${q.reference}`;

export class AttemptProgressBoard {
  private readonly inFlight = new Map<string, AttemptProgressView>();

  constructor(private readonly events: EventBus) {}

  /** Send options that push this send's progress and remember its latest report until it ends. */
  reportTo(profile: Profile, session: Pick<GatewaySession, 'tryTimeoutMs'>): SendOptions {
    return {
      onProgress: (progress) => {
        const view = attemptProgressView(progress, profile.id, session.tryTimeoutMs);
        const key = slot(view);
        this.inFlight.delete(key);
        if (view.phase !== 'finished') this.inFlight.set(key, view);
        if (this.inFlight.size > MAX_REMEMBERED) this.inFlight.delete(this.inFlight.keys().next().value as string);
        this.events.publish('attempts:progress-changed', view);
      },
    };
  }

  /** The latest report of a send still in flight, or null. */
  current(query: ProgressQuery): AttemptProgressView | null {
    return this.inFlight.get(slot(query)) ?? null;
  }
}
