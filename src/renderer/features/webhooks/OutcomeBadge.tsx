import { Badge } from '@mantine/core';
import { HoverTooltip } from '../../components/HoverTooltip';
import type { NotificationOutcomeView } from '../../../shared/contract';

export const OUTCOMES: readonly NotificationOutcomeView[] = ['applied', 'stale', 'duplicate', 'orphan', 'mismatch', 'malformed', 'pending'];

const meaning: Record<NotificationOutcomeView, { color: string; text: string; label?: string }> = {
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

/**
 * What became of a received notification, in words on hover. The hint is a HoverTooltip, mounted
 * on first hover: a Mantine Tooltip per badge mounts a Transition whose reduced-motion media query
 * sets state in an effect, so each row that appeared cost a second synchronous render, and a burst
 * of notification pushes ran the webhook inspector into React's nested-update limit (error #185).
 */
export function OutcomeBadge({ outcome, size = 'sm' }: { outcome: string; size?: 'xs' | 'sm' | 'md' }) {
  const known: { color: string; text: string; label?: string } = isOutcome(outcome) ? meaning[outcome] : { color: 'gray', text: 'Unknown outcome.' };
  return (
    <HoverTooltip label={known.text} multiline w={280}>
      <Badge size={size} color={known.color} variant="light" data-outcome={outcome}>
        {known.label ?? outcome}
      </Badge>
    </HoverTooltip>
  );
}
