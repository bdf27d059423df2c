import { Card, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { METHOD_LABELS } from '../../../shared/spec/methods';
import { CopyValue } from '../../components/CopyValue';
import { formatMoney, formatTime } from './format';
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

/** What was paid, how, by whom and when. The card shows first 6 / last 4 at most. */
export function PaymentPanel({ data, card }: { data: LoadedTransaction; card: string | null }) {
  const { view } = data;
  const methodLabel = (METHOD_LABELS as Record<string, string>)[view.method] ?? view.method;
  const isCard = view.method === 'credit_card' || view.method === 'credit_card_ftd';
  return (
    <Card withBorder padding="md">
      <Title order={4} mb="sm">
        Payment
      </Title>
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="sm">
        <Fact label="Amount" testId="amount">
          <Text size="lg" fw={700} ff="monospace">
            {formatMoney(view.amount, view.currency, view.method)}
          </Text>
        </Fact>
        <Fact label="Method">{data.subject === 'payin' ? `${methodLabel} · ${kindLabels[data.view.kind]}` : methodLabel}</Fact>
        {(isCard || card !== null) && (
          <Fact label="Card" testId="masked-card">
            <Text size="sm" ff="monospace">
              {card ?? 'not recorded (vaulted card or no card data)'}
            </Text>
          </Fact>
        )}
        <Fact label="E-mail">
          <CopyValue value={view.email} label="e-mail" mono={false} />
        </Fact>
        <Fact label="Created">{formatTime(view.createdAt)}</Fact>
        <Fact label="Gateway created">{formatTime(view.gatewayCreatedAt)}</Fact>
        <Fact label="Status changed">{formatTime(view.statusChangedAt)}</Fact>
        <Fact label="Profile">{view.profileId}</Fact>
      </SimpleGrid>
    </Card>
  );
}
