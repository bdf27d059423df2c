import { Alert, Anchor, Button, Card, Group, Stack, Text, Title } from '@mantine/core';
import { Amount } from '../../components/Amount';
import { useEffect, useRef, useState } from 'react';
import type { PayoutView, SubmitResult } from '../../../shared/contract';
import { useApi } from '../../stores/context';
import { routeHash } from '../../shell/use-route';
import { describeStatus } from '../transactions/status';
import { StatusBadge } from '../transactions/StatusBadge';
import { resultHeading } from './result-heading';

/** What became of the send, then the payout's status as it moves (pushes), up to its final state, which the heading then says. */
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

  const outcome = resultHeading(result.outcome, payout);
  const info = payout ? describeStatus('payout', payout.statusCode) : null;
  return (
    <Card withBorder data-testid="payout-result" data-outcome={result.outcome}>
      <Stack gap="md">
        <Title order={3} ref={heading} tabIndex={-1} c={outcome.color === 'blue' ? undefined : `${outcome.color}.8`} data-testid="result-heading" data-stage={outcome.stage} data-color={outcome.color} aria-live="polite">
          {outcome.title}
        </Title>
        <Alert color={outcome.color}>
          {outcome.text === null ? (
            <Stack gap={4}>
              <Text size="sm">{result.message}</Text>
              <Text size="sm" c="dimmed">
                {result.nextStep.text}
              </Text>
            </Stack>
          ) : (
            <Text size="sm">{outcome.text}</Text>
          )}
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
            <Text fw={600}>
              <Amount value={payout.amount} currency={payout.currency} />
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
