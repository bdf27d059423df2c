import { Badge, Tooltip } from '@mantine/core';
import type { NotificationOutcomeView } from '../../../shared/contract';

export const OUTCOMES: readonly NotificationOutcomeView[] = ['applied', 'duplicate', 'orphan', 'mismatch', 'malformed', 'pending'];

const meaning: Record<NotificationOutcomeView, { color: string; text: string }> = {
  applied: { color: 'teal', text: 'Recorded on its transaction (a claim until a status read verifies it).' },
  duplicate: { color: 'gray', text: 'The same event, transaction and status as an earlier one: changed nothing.' },
  orphan: { color: 'yellow', text: 'Its transaction is not in the ledger (yet): kept, applied when the transaction appears.' },
  mismatch: { color: 'red', text: "Contradicts the ledger or the gateway's own status read: never applied." },
  malformed: { color: 'grape', text: 'Not a notification Paydesk can read (not JSON, unknown event, no ids or status): kept raw.' },
  pending: { color: 'blue', text: 'Stored, not applied yet.' },
};

function isOutcome(value: string): value is NotificationOutcomeView {
  return Object.hasOwn(meaning, value);
}

/** What became of a received notification, in words on hover. */
export function OutcomeBadge({ outcome, size = 'sm' }: { outcome: string; size?: 'xs' | 'sm' | 'md' }) {
  const known = isOutcome(outcome) ? meaning[outcome] : { color: 'gray', text: 'Unknown outcome.' };
  return (
    <Tooltip label={known.text} multiline w={280}>
      <Badge size={size} color={known.color} variant="light" data-outcome={outcome}>
        {outcome}
      </Badge>
    </Tooltip>
  );
}
