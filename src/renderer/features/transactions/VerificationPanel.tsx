import { Alert, Anchor, Card, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { DateTime } from '../../components/DateTime';
import type { ContradictingClaim, PayinView, PayoutView, TransactionSubject } from '../../../shared/contract';
import { routeHash } from '../../shell/use-route';
import { StatusBadge } from './StatusBadge';
import { verificationSentence } from './verification';
import { VerificationBadge } from './VerificationBadge';

interface Props {
  subject: TransactionSubject;
  view: PayinView | PayoutView;
  /** Notifications whose claim the gateway contradicted: which one claimed what, when. */
  contradictions: ContradictingClaim[];
}

/**
 * Notified vs verified, side by side, under main's one verification state (the badge and the
 * sentence say the same). Notifications carry no signature (spec 5, rule 6): what they claim moves
 * nothing until the gateway's own answer to a status read agrees.
 */
export function VerificationPanel({ subject, view, contradictions }: Props) {
  // A contradiction a contradicting notification carries is said once, beside that notification.
  const told = new Set(contradictions.map((c) => c.detail));
  const conflicts = [view.statusConflict, view.factsConflict, view.conflict].filter((c, i, all): c is string => c !== null && all.indexOf(c) === i && !told.has(c));
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
                <DateTime iso={view.lastNotifiedAt} />
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
                <DateTime iso={view.lastVerifiedAt} />
              </Text>
            </>
          )}
        </Stack>
      </SimpleGrid>
      <Text size="sm" mt="sm" data-testid="verification-sentence">
        {verificationSentence(view)}
      </Text>
      {view.verification === 'mismatch' && (
        <Alert color="red" title="Mismatch" mt="sm" data-testid="conflicts">
          <Stack gap={4}>
            {conflicts.length === 0 && contradictions.length === 0 && (
              <Text size="sm">
                The latest status read says {view.lastVerifiedStatus ?? 'nothing'} while the ledger holds {view.statusCode ?? 'no status'}.
              </Text>
            )}
            {conflicts.map((c) => (
              <Text size="sm" key={c}>
                {c}
              </Text>
            ))}
            {contradictions.map((c) => (
              <Group gap="xs" key={c.notificationId} data-testid="contradicting-claim" data-status={c.statusCode ?? ''}>
                <Anchor href={routeHash('webhooks', { id: c.notificationId })} size="sm">
                  Notification #{c.notificationId}
                </Anchor>
                <Text size="sm">claimed</Text>
                {c.statusCode === null ? <Text size="sm">no status</Text> : <StatusBadge subject={subject} code={c.statusCode} />}
                <Text size="sm" c="dimmed">
                  received <DateTime iso={c.receivedAt} />
                  {c.detail ? ` — ${c.detail}` : ''}
                </Text>
              </Group>
            ))}
          </Stack>
        </Alert>
      )}
    </Card>
  );
}
