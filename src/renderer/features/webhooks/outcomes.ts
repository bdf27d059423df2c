// What became of a received notification, in the words and colour its badge and the filter use.
import type { NotificationOutcomeView } from '../../../shared/contract';

export const OUTCOMES: readonly NotificationOutcomeView[] = ['applied', 'stale', 'duplicate', 'orphan', 'mismatch', 'malformed', 'pending'];

interface OutcomeLooks {
  color: string;
  text: string;
  label?: string;
}

const meaning: Record<NotificationOutcomeView, OutcomeLooks> = {
  applied: { color: 'teal', text: 'Recorded on its transaction (a claim until a status read verifies it).' },
  stale: { color: 'gray', text: 'Older news than the status its transaction already holds: kept, changed nothing.', label: 'stale — changed nothing' },
  duplicate: { color: 'gray', text: 'The same event, transaction and status as an earlier one: changed nothing.' },
  orphan: { color: 'yellow', text: 'Its transaction is not in the ledger (yet): kept, applied when the transaction appears.' },
  mismatch: { color: 'red', text: "Contradicts the ledger or the gateway's own status read: never applied." },
  malformed: { color: 'grape', text: 'Not a notification Paydesk can read (not JSON, unknown event, no ids or status): kept raw.' },
  pending: { color: 'blue', text: 'Stored, not applied yet.' },
};

function isOutcome(value: string): value is NotificationOutcomeView {
  return Object.hasOwn(meaning, value);
}

/** An outcome's colour and meaning; an outcome this version does not know, in gray, as itself. */
export function outcomeLooks(outcome: string): OutcomeLooks {
  return isOutcome(outcome) ? meaning[outcome] : { color: 'gray', text: 'Unknown outcome.' };
}

/** The words of an outcome's badge. */
export function outcomeLabel(outcome: string): string {
  return outcomeLooks(outcome).label ?? outcome;
}
