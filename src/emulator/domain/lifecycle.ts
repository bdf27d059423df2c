// The one way a pay-in or a payout moves to a new status: a final status never changes again, the
// processing status is reached once, the reason defaults to the status's own, and reaching a final
// status sends the notification. What differs between the two lives in their `StatusMoves`.
import type { ScenarioTiming } from '../options';
import { iso, type Clock, type Ids, type Logger } from '../runtime';
import type { Notifier } from '../notify/notifier';
import type { AfterCommit } from '../store/database';
import type { TimerSet } from './timers';

/** What the pay-in and the payout lifecycles both run on. */
export interface LifecycleDeps {
  notifier: Notifier;
  clock: Clock;
  ids: Ids;
  timing: ScenarioTiming;
  timers: TimerSet;
  log: Logger;
  /** Creation runs inside the create's transaction: what it arms waits until that commits. */
  afterCommit: AfterCommit;
}

export type MoveResult<R> = { ok: true; record: R } | { ok: false; why: 'unknown' | 'final' | 'invalid_code' };

/** What one kind of transaction gives the move: its store, its codes and its notification. */
export interface StatusMoves<R extends { status_code: C }, C> {
  /** Names the id field, the notification event and the log line: 'payin_id', 'v2_payin_notification'. */
  subject: 'payin' | 'payout';
  store: { byId(id: string): R | undefined; transition(id: string, from: C, to: C, reason: string | null, at: string): boolean };
  isPending(code: C): boolean;
  /** The pending code after the first: reaching it twice is refused like a final one. */
  processing: C;
  /** The status's row in the spec's table, for the reason it ends with by default. */
  describe(code: C): { known: true; defaultReason: string | null } | { known: false };
  notificationUrl(record: R): string;
  /** The notification's body, the same as the status read's. */
  view(record: R): Record<string, unknown>;
  /** What else happens, in the same unit of work, when the transaction ends. */
  onFinal?(record: R): void;
}

export function moveStatus<R extends { status_code: C }, C>(
  kind: StatusMoves<R, C>,
  d: Pick<LifecycleDeps, 'notifier' | 'clock' | 'log'>,
  id: string,
  code: C,
  reasonCode?: string | null,
): MoveResult<R> {
  const { store } = kind;
  const current = store.byId(id);
  if (!current) return { ok: false, why: 'unknown' };
  if (!kind.isPending(current.status_code) || (code === kind.processing && current.status_code === kind.processing)) return { ok: false, why: 'final' };
  const info = kind.describe(code);
  const reason = reasonCode !== undefined ? reasonCode : info.known ? info.defaultReason : null;
  if (!store.transition(id, current.status_code, code, reason, iso(d.clock.now()))) return { ok: false, why: 'final' };
  const record = store.byId(id) as R;
  if (!kind.isPending(code)) {
    kind.onFinal?.(record);
    const event = `v2_${kind.subject}_notification`;
    d.notifier.enqueue(event, kind.notificationUrl(record), { event, ...kind.view(record) }, id);
  }
  d.log.info(`${kind.subject} status`, { [`${kind.subject}_id`]: id, status_code: code });
  return { ok: true, record };
}
