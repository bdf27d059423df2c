import { Badge } from '@mantine/core';
import { HoverTooltip } from '../../components/HoverTooltip';
import type { TransactionSubject } from '../../../shared/contract';
import { categoryAndMeaning } from '../codes/category';
import { categoryColor, describeStatus, statusBadgeLabel } from './status';

interface StatusBadgeProps {
  subject: TransactionSubject;
  code: string | null;
  /** The create attempt's state: 'unknown' means sent, outcome not known yet. */
  attemptState?: string | null;
  size?: 'xs' | 'sm' | 'md' | 'lg';
}

/**
 * A status code in its catalogue category's colour, its meaning on hover. A code the catalogue
 * does not know stays visible as itself, marked "unknown" — never dropped or guessed.
 */
export function StatusBadge({ subject, code, attemptState = null, size = 'sm' }: StatusBadgeProps) {
  const info = describeStatus(subject, code);
  if (info === null) {
    const hint =
      attemptState === 'unknown'
        ? 'The create call was sent but its answer is not known: read the status before any new attempt.'
        : attemptState === 'rejected'
          ? 'The gateway refused the create call; see the answer in the timeline.'
          : 'The gateway has not answered yet.';
    return (
      <HoverTooltip label={hint} multiline w={280}>
        <Badge size={size} variant="outline" color={attemptState === 'rejected' ? 'red' : 'gray'} data-status="none">
          {statusBadgeLabel(subject, code, attemptState)}
        </Badge>
      </HoverTooltip>
    );
  }
  const category = info.known ? info.category : 'unknown';
  return (
    <HoverTooltip label={categoryAndMeaning(category, info.meaning)} multiline w={300}>
      <Badge size={size} variant={info.known ? 'light' : 'outline'} color={categoryColor(info)} data-status={code} data-category={category}>
        {statusBadgeLabel(subject, code)}
      </Badge>
    </HoverTooltip>
  );
}
