import { Card, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { Amount } from '../../components/Amount';
import { DateTime } from '../../components/DateTime';
import type { ReactNode } from 'react';
import { methodLabel } from '../../../shared/spec/methods';
import { CopyValue } from '../../components/CopyValue';
import { cardLabel } from './card';
import { ProfileName } from './ProfileName';
import type { LoadedTransaction } from './use-transaction';

const kindLabels = { payin: 'Pay-in', tokenization: 'Tokenization (card vaulted)', token_charge: 'Token charge (vaulted card)' } as const;

function Fact({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) {
  return (
    <Stack gap={0} data-testid={testId}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      {typeof children === 'string' ? <Text size="sm">{children}</Text> : children}
    </Stack>
  );
}

/** What was paid, how, by whom and when. The card, as main recorded it, shows first 6 / last 4 at most. */
export function PaymentPanel({ data }: { data: LoadedTransaction }) {
  const { view } = data;
  const method = methodLabel(view.method);
  const isCard = view.method === 'credit_card' || view.method === 'credit_card_ftd';
  const card = view.card === null ? null : `${cardLabel(view.card)}${data.subject === 'payin' && data.view.kind === 'token_charge' ? ' (vaulted card)' : ''}`;
  return (
    <Card withBorder padding="md">
      <Title order={4} mb="sm">
        Payment
      </Title>
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="sm">
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
        <Fact label="Created">
          <Text size="sm">
            <DateTime iso={view.createdAt} />
          </Text>
        </Fact>
        <Fact label="Gateway created">
          <Text size="sm">
            <DateTime iso={view.gatewayCreatedAt} />
          </Text>
        </Fact>
        <Fact label="Status changed">
          <Text size="sm">
            <DateTime iso={view.statusChangedAt} />
          </Text>
        </Fact>
        <Fact label="Profile">
          <ProfileName profileId={view.profileId} />
        </Fact>
      </SimpleGrid>
    </Card>
  );
}
