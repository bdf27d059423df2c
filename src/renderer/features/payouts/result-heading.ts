// The heading of a sent payout's result: what became of the send until the payout's final state
// is known, then that final state in its colour (a declined payout must never keep a green
// "accepted"). It follows the payout live: a notification's claim, then the status read that
// verifies it.
import type { PayoutView, SubmitResult } from '../../../shared/contract';
import { describeStatus } from '../transactions/status';

export interface ResultHeading {
  title: string;
  color: string;
  /** What the heading is about: the send, a notified claim being verified, the final state, or a contradiction. */
  stage: 'sent' | 'claimed' | 'final' | 'mismatch';
  /** What to say under it; null: the send's own message and next step. */
  text: string | null;
}

const SENT: Record<SubmitResult['outcome'], { title: string; color: string }> = {
  succeeded: { title: 'Payout accepted by the gateway: waiting for its final result', color: 'blue' },
  rejected: { title: 'The gateway refused the payout', color: 'red' },
  unknown: { title: 'Outcome unknown — do not send it again', color: 'yellow' },
  busy: { title: 'Already being sent', color: 'yellow' },
  needs_body: { title: 'Card details needed again', color: 'yellow' },
  prepared: { title: 'Recorded, not sent yet', color: 'yellow' },
};

export function resultHeading(outcome: SubmitResult['outcome'], payout: PayoutView | null): ResultHeading {
  const sent: ResultHeading = { ...SENT[outcome], stage: 'sent', text: null };
  if (payout === null) return sent;
  if (payout.verification === 'mismatch') {
    return { title: 'Conflicting answers about this payout', color: 'red', stage: 'mismatch', text: 'What the gateway said and what was notified disagree: open the payout to see which, before anything else.' };
  }
  const held = describeStatus('payout', payout.statusCode);
  if (payout.final && held !== null) {
    if (held.category === 'success') return { title: 'Payout succeeded', color: 'teal', stage: 'final', text: `${payout.statusCode}: ${held.meaning}.` };
    return { title: `Payout failed: ${payout.statusCode}`, color: 'red', stage: 'final', text: `${held.meaning}. ${held.retry.text}` };
  }
  const claimed = describeStatus('payout', payout.lastNotifiedStatus);
  if (payout.verification === 'claimed' && claimed !== null) {
    return { title: `Notified ${payout.lastNotifiedStatus}: being verified`, color: 'yellow', stage: 'claimed', text: `The gateway's notification says: ${claimed.meaning}. A status read confirms it before it counts.` };
  }
  return sent;
}
