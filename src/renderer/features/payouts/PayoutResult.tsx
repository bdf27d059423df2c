import { Alert, Anchor, Button, Card, Group, Stack, Text, Title } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import type { PayoutView, SubmitResult } from '../../../shared/contract';
import { useApi } from '../../stores/context';
import { routeHash } from '../../shell/use-route';
import { describeStatus } from '../transactions/status';
import { StatusBadge } from '../transactions/StatusBadge';
import { formatMoney } from '../transactions/format';

const OUTCOME: Record<SubmitResult['outcome'], { title: string; color: string }> = {
  succeeded: { title: 'Payout accepted by the gateway', color: 'teal' },
  rejected: { title: 'The gateway refused the payout', color: 'red' },
  unknown: { title: 'Outcome unknown — do not send it again', color: 'yellow' },
  busy: { title: 'Already being sent', color: 'yellow' },
  needs_body: { title: 'Card details needed again', color: 'yellow' },
  prepared: { title: 'Recorded, not sent yet', color: 'yellow' },
};

/** What became of the send, then the payout's status as it moves (pushes), up to its final state. */
export function PayoutResult({ result, onAnother }: { result: SubmitResult; onAnother: () => void }) {
  const api = useApi();
  const [payout, setPayout] = useState<PayoutView | null>(result.payout);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  useEffect(() => {
    const id = result.payout?.id;
    if (id === undefined) return;
    return api.on('payouts:payout-changed', (changed) => {
      if (changed.id === id) setPayout((current) => (current === null || changed.updatedAt >= current.updatedAt ? changed : current));
    });
  }, [api, result.payout?.id]);

  const outcome = OUTCOME[result.outcome];
  const info = payout ? describeStatus('payout', payout.statusCode) : null;
  return (
    <Card withBorder data-testid="payout-result" data-outcome={result.outcome}>
      <Stack gap="md">
        <Title order={3} ref={heading} tabIndex={-1}>
          {outcome.title}
        </Title>
        <Alert color={outcome.color}>
          <Stack gap={4}>
            <Text size="sm">{result.message}</Text>
            <Text size="sm" c="dimmed">
              {result.nextStep.text}
            </Text>
          </Stack>
        </Alert>
        {result.gatewayError && Object.keys(result.gatewayError.details).length > 0 && (
          <Stack gap={2}>
            {Object.entries(result.gatewayError.details).map(([field, problem]) => (
              <Text key={field} size="sm" c="red">
                {field}: {problem}
              </Text>
            ))}
          </Stack>
        )}
        {payout && (
          <Group gap="lg" align="center">
            <Text ff="monospace" fw={600}>
              {formatMoney(payout.amount, payout.currency, payout.method)}
            </Text>
            <Group gap="xs" data-testid="result-status" data-status={payout.statusCode ?? ''} aria-live="polite">
              <StatusBadge subject="payout" code={payout.statusCode} attemptState={payout.attempt?.state} size="lg" />
              {info && (
                <Text size="sm" c="dimmed">
                  {info.meaning}
                  {payout.final ? '' : ' — waiting for the notification'}
                </Text>
              )}
            </Group>
          </Group>
        )}
        <Group justify="space-between">
          {payout ? (
            <Anchor href={routeHash('payouts', { id: payout.id })} data-testid="result-detail-link">
              Open payout {payout.merchantReference}
            </Anchor>
          ) : (
            <span />
          )}
          <Button onClick={onAnother}>Make another payout</Button>
        </Group>
      </Stack>
    </Card>
  );
}
