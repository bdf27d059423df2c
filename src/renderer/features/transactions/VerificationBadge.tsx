import { Badge } from '@mantine/core';
import { HoverTooltip } from '../../components/HoverTooltip';
import type { PayinView, PayoutView } from '../../../shared/contract';
import { formatTime } from './format';

type Verifiable = Pick<PayinView | PayoutView, 'verification' | 'claimState' | 'lastNotifiedStatus' | 'lastNotifiedAt' | 'lastVerifiedStatus' | 'lastVerifiedAt'>;

/**
 * Notified vs verified at a glance. A notification carries no signature (spec 5, rule 6), so what
 * it claims is only "notified" until a status read from the gateway agrees ("verified").
 */
export function verificationLabel(t: Verifiable): { label: string; color: string } {
  if (t.verification === 'mismatch') return { label: 'mismatch', color: 'red' };
  if (t.verification === 'verified') return { label: 'verified', color: 'teal' };
  if (t.claimState === 'unverified') return { label: 'notified, unverified', color: 'yellow' };
  return { label: 'not verified', color: 'gray' };
}

export function verificationHint(t: Verifiable): string {
  const notified = t.lastNotifiedStatus === null ? 'Notified: nothing yet.' : `Notified: ${t.lastNotifiedStatus} at ${formatTime(t.lastNotifiedAt)}.`;
  const verified = t.lastVerifiedStatus === null ? 'Status read: none yet.' : `Status read: ${t.lastVerifiedStatus} at ${formatTime(t.lastVerifiedAt)}.`;
  return `${notified} ${verified}`;
}

export function VerificationBadge({ transaction, size = 'sm' }: { transaction: Verifiable; size?: 'xs' | 'sm' | 'md' }) {
  const { label, color } = verificationLabel(transaction);
  return (
    <HoverTooltip label={verificationHint(transaction)} multiline w={300}>
      <Badge size={size} variant={color === 'gray' ? 'outline' : 'light'} color={color} data-verification={transaction.verification}>
        {label}
      </Badge>
    </HoverTooltip>
  );
}
