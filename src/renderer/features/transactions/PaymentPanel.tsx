import { Text } from '@mantine/core';
import { Amount } from '../../components/Amount';
import { DateTime } from '../../components/DateTime';
import { methodLabel } from '../../../shared/spec/methods';
import { CopyValue } from '../../components/CopyValue';
import { cardLabel } from './card';
import { Fact, FactsCard } from './FactsCard';
import { ProfileName } from './ProfileName';
import type { LoadedTransaction } from './use-transaction';

const kindLabels = { payin: 'Pay-in', tokenization: 'Tokenization (card vaulted)', token_charge: 'Token charge (vaulted card)' } as const;

/** What was paid, how, by whom and when. The card, as main recorded it, shows first 6 / last 4 at most. */
export function PaymentPanel({ data }: { data: LoadedTransaction }) {
  const { view } = data;
  const method = methodLabel(view.method);
  const isCard = view.method === 'credit_card' || view.method === 'credit_card_ftd';
  const card = view.card === null ? null : `${cardLabel(view.card)}${data.subject === 'payin' && data.view.kind === 'token_charge' ? ' (vaulted card)' : ''}`;
  const moments = [
    ['Created', view.createdAt],
    ['Gateway created', view.gatewayCreatedAt],
    ['Status changed', view.statusChangedAt],
  ] as const;
  return (
    <FactsCard title="Payment">
      <Fact label="Amount" testId="amount">
        <Text size="lg" fw={700}>
          <Amount value={view.amount} currency={view.currency} />
        </Text>
      </Fact>
      <Fact label="Method">{data.subject === 'payin' ? `${method} · ${kindLabels[data.view.kind]}` : method}</Fact>
      {(isCard || card !== null) && (
        <Fact label="Card" testId="masked-card">
          <Text size="sm" ff="monospace">
            {card ?? 'not recorded (a token charge made before Paydesk kept the card it charged)'}
          </Text>
        </Fact>
      )}
      <Fact label="E-mail">
        <CopyValue value={view.email} label="e-mail" mono={false} />
      </Fact>
      {moments.map(([label, iso]) => (
        <Fact key={label} label={label}>
          <Text size="sm">
            <DateTime iso={iso} />
          </Text>
        </Fact>
      ))}
      <Fact label="Profile">
        <ProfileName profileId={view.profileId} />
      </Fact>
    </FactsCard>
  );
}
