import { Badge } from '@mantine/core';
import { HoverTooltip } from '../../components/HoverTooltip';
import { describePayinStatus } from '../../../shared/spec/codes';
import { tokenizationLabel } from './status';

/**
 * The status of a v2_tokenization_notification: the vaulting's result, not the pay-in's. A 200
 * there means the card was vaulted; the pay-in's own result comes with its v2_payin_notification.
 */
export function TokenizationBadge({ code, size = 'sm' }: { code: string | null; size?: 'xs' | 'sm' | 'md' }) {
  const vaulted = code === '200';
  const meaning = code === null ? 'no status' : describePayinStatus(code).meaning;
  return (
    <HoverTooltip label={`The tokenization result (${meaning}), not the pay-in's: that comes with v2_payin_notification.`} multiline w={300}>
      <Badge size={size} variant="outline" color={vaulted ? 'teal' : 'red'} data-tokenization={code ?? ''}>
        {tokenizationLabel(code)}
      </Badge>
    </HoverTooltip>
  );
}
