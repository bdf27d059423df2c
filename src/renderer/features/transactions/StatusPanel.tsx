import { Alert, Badge, Card, Group, Stack, Text, Title } from '@mantine/core';
import type { PayinView, PayoutView, TransactionSubject } from '../../../shared/contract';
import { categoryLabels } from '../codes/category';
import { categoryColor, describeReasonCode, describeStatus } from './status';
import { StatusBadge } from './StatusBadge';

/** The status and reason code in the catalogue's words: meaning, category, final or not, retry advice, what to tell the customer. */
export function StatusPanel({ subject, view }: { subject: TransactionSubject; view: PayinView | PayoutView }) {
  const status = describeStatus(subject, view.statusCode);
  const reason = describeReasonCode(view.reasonCode);
  const category = status === null ? null : status.known ? status.category : 'unknown';
  return (
    <Card withBorder padding="md" data-testid="status-panel">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={4}>Status</Title>
          <StatusBadge subject={subject} code={view.statusCode} attemptState={view.attempt?.state} size="lg" />
        </Group>
        {status === null ? (
          <Text size="sm" data-testid="status-meaning">
            {view.attempt?.state === 'unknown'
              ? 'The create call was sent but its outcome is not known: settle it under the same key (above) before anything else.'
              : 'The gateway has not given a status yet.'}
          </Text>
        ) : (
          <>
            <Text fw={600} data-testid="status-meaning">
              {status.meaning}
            </Text>
            <Group gap="xs">
              {category !== null && (
                <Badge variant={status.known ? 'light' : 'outline'} color={categoryColor(status)}>
                  {categoryLabels[category]}
                </Badge>
              )}
              <Badge variant="outline" color={status.final ? 'dark' : 'blue'} data-testid="status-final">
                {status.final ? 'final' : 'not final'}
              </Badge>
            </Group>
            <Text size="sm">
              <Text span fw={600}>
                Retry:{' '}
              </Text>
              {status.retry.text}
            </Text>
          </>
        )}
        <Alert color="indigo" variant="light" title="What to tell the customer" data-testid="tell-customer">
          {status?.tellCustomer ?? 'We are checking the status of your payment.'}
        </Alert>
        {reason !== null && (
          <Stack gap={2} data-testid="reason">
            <Group gap="xs">
              <Text size="sm" fw={600}>
                Reason code
              </Text>
              <Badge variant={reason.known ? 'light' : 'outline'} color={categoryColor(reason)} ff="monospace">
                {view.reasonCode}
                {reason.known ? '' : ' · unknown'}
              </Badge>
            </Group>
            <Text size="sm">{reason.meaning}</Text>
            {reason.known && reason.tellCustomer !== status?.tellCustomer && (
              <Text size="sm" c="dimmed">
                Customer wording for this reason: {reason.tellCustomer}
              </Text>
            )}
          </Stack>
        )}
      </Stack>
    </Card>
  );
}
