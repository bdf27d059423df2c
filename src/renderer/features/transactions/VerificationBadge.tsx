import { Badge } from '@mantine/core';
import { HoverTooltip } from '../../components/HoverTooltip';
import type { VerificationStateView } from '../../../shared/contract';
import { verificationHint, verificationLooks, type Verifiable } from './verification';

/**
 * Notified vs verified at a glance: main's verification state, in the words and colour every
 * screen uses for it. A notification carries no signature (spec 5, rule 6), so what it claims is
 * only "notified" until a status read from the gateway agrees ("verified").
 */
export function VerificationBadge({ transaction, size = 'sm' }: { transaction: Verifiable; size?: 'xs' | 'sm' | 'md' }) {
  return <VerificationStateBadge state={transaction.verification} hint={verificationHint(transaction)} size={size} />;
}

/** The badge alone, for rows that carry the state and the statuses but not their times (the exception lists). */
export function VerificationStateBadge({ state, hint, size = 'sm' }: { state: VerificationStateView; hint: string; size?: 'xs' | 'sm' | 'md' }) {
  const { label, color } = verificationLooks[state];
  return (
    <HoverTooltip label={hint} multiline w={300}>
      <Badge size={size} variant={color === 'gray' ? 'outline' : 'light'} color={color} data-verification={state}>
        {label}
      </Badge>
    </HoverTooltip>
  );
}
