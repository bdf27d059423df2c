import { Alert, Card, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import type { PayinView, PayoutView, TransactionSubject } from '../../../shared/contract';
import { formatTime } from './format';
import { StatusBadge } from './StatusBadge';
import { VerificationBadge } from './VerificationBadge';

const claimText = {
  unverified: 'The latest notification is a claim no status read has confirmed yet.',
  verified: 'A status read from the gateway agrees with the latest notification.',
  contradicted: 'The gateway contradicted the latest notification: a mismatch for a human to look at.',
} as const;

/**
 * Notified vs verified, side by side. Notifications carry no signature (spec 5, rule 6): what they
 * claim moves nothing until the gateway's own answer to a status read agrees.
 */
export function VerificationPanel({ subject, view }: { subject: TransactionSubject; view: PayinView | PayoutView }) {
  const conflicts = [view.statusConflict, view.factsConflict, view.conflict].filter((c, i, all): c is string => c !== null && all.indexOf(c) === i);
  return (
    <Card withBorder padding="md" data-testid="verification-panel">
      <Group justify="space-between" mb="sm">
        <Title order={4}>Notified vs verified</Title>
        <VerificationBadge transaction={view} size="md" />
      </Group>
      <SimpleGrid cols={2} spacing="sm">
        <Stack gap={2} data-testid="notified">
          <Text size="xs" c="dimmed">
            Notified (a claim)
          </Text>
          {view.lastNotifiedStatus === null ? (
            <Text size="sm" c="dimmed">
              No notification yet
            </Text>
          ) : (
            <>
              <StatusBadge subject={subject} code={view.lastNotifiedStatus} />
              <Text size="xs" c="dimmed">
                {formatTime(view.lastNotifiedAt)}
              </Text>
            </>
          )}
        </Stack>
        <Stack gap={2} data-testid="verified">
          <Text size="xs" c="dimmed">
            Verified (status read)
          </Text>
          {view.lastVerifiedStatus === null ? (
            <Text size="sm" c="dimmed">
              No status read yet
            </Text>
          ) : (
            <>
              <StatusBadge subject={subject} code={view.lastVerifiedStatus} />
              <Text size="xs" c="dimmed">
                {formatTime(view.lastVerifiedAt)}
              </Text>
            </>
          )}
        </Stack>
      </SimpleGrid>
      {view.claimState !== null && (
        <Text size="sm" mt="sm">
          {claimText[view.claimState]}
        </Text>
      )}
      {conflicts.length > 0 && (
        <Alert color="red" title="Mismatch" mt="sm" data-testid="conflicts">
          {conflicts.map((c) => (
            <Text size="sm" key={c}>
              {c}
            </Text>
          ))}
        </Alert>
      )}
    </Card>
  );
}
