import { Badge } from '@mantine/core';
import { HoverTooltip } from '../../components/HoverTooltip';
import { outcomeLabel, outcomeLooks } from './outcomes';

/**
 * What became of a received notification, in words on hover. The hint is a HoverTooltip, mounted
 * on first hover: a Mantine Tooltip per badge mounts a Transition whose reduced-motion media query
 * sets state in an effect, so each row that appeared cost a second synchronous render, and a burst
 * of notification pushes ran the webhook inspector into React's nested-update limit (error #185).
 */
export function OutcomeBadge({ outcome, size = 'sm' }: { outcome: string; size?: 'xs' | 'sm' | 'md' }) {
  const known = outcomeLooks(outcome);
  return (
    <HoverTooltip label={known.text} multiline w={280}>
      <Badge size={size} color={known.color} variant="light" data-outcome={outcome}>
        {outcomeLabel(outcome)}
      </Badge>
    </HoverTooltip>
  );
}
