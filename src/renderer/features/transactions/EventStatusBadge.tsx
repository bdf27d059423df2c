import { Badge } from '@mantine/core';
import { HoverTooltip } from '../../components/HoverTooltip';
import { eventSpec } from '../../../shared/spec/events';
import { eventStatusLabel } from './status';
import { StatusBadge } from './StatusBadge';
import { TokenizationBadge } from './TokenizationBadge';

/**
 * A notification's status_code read as its event defines it (shared/spec/events): a pay-in or
 * payout status in its catalogue's colours, a tokenization's as the vaulting result it is. An
 * event outside the spec is shown as it came, marked unknown: nothing says whose status it is.
 */
export function EventStatusBadge({ event, code, size = 'sm' }: { event: string | null; code: string | null; size?: 'xs' | 'sm' | 'md' }) {
  const spec = eventSpec(event);
  if (spec?.statusOf === 'vaulting') return <TokenizationBadge code={code} size={size} />;
  if (spec !== undefined) return <StatusBadge subject={spec.subject} code={code} size={size} />;
  return (
    <HoverTooltip label={`Event ${event ?? '(none)'} is not one of the spec: whose status this is is not known.`} multiline w={280}>
      <Badge size={size} variant="outline" color="gray" data-status={code ?? ''} data-category="unknown_event">
        {eventStatusLabel(event, code)}
      </Badge>
    </HoverTooltip>
  );
}
