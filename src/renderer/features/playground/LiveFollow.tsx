import { Alert, Anchor, Badge, Card, Collapse, Group, Loader, Stack, Text, Title, UnstyledButton } from '@mantine/core';
import { DateTime } from '../../components/DateTime';
import { useDisclosure } from '@mantine/hooks';
import type { TimelineEntry, TransactionSubject } from '../../../shared/contract';
import { eventSpec, type NotificationEvent } from '../../../shared/spec/events';
import { routeHash } from '../../shell/use-route';
import { StatusBadge } from '../transactions/StatusBadge';
import { EventStatusBadge } from '../transactions/EventStatusBadge';
import { VerificationBadge } from '../transactions/VerificationBadge';
import { useTransaction } from '../transactions/use-transaction';
import { OutcomeBadge } from '../webhooks/OutcomeBadge';
import { RawBlock } from './RawBlock';

function NotificationRow({ entry }: { entry: TimelineEntry }) {
  const [opened, { toggle }] = useDisclosure(false);
  // A tokenization's status is the vaulting's: a 200 there is a vaulted card, not a paid pay-in.
  const vaulting = eventSpec(entry.event)?.statusOf === 'vaulting';
  return (
    <Stack gap={4} data-testid="live-notification" data-event={entry.event ?? ''} data-status={entry.statusCode ?? ''} data-outcome={entry.outcome ?? ''}>
      <UnstyledButton onClick={toggle} aria-expanded={opened} aria-label={`${entry.title} ${entry.statusCode ?? ''}: show raw body`}>
        <Group gap="xs">
          <Text size="sm" c="dimmed">
            <DateTime iso={entry.at} />
          </Text>
          <Text size="sm">{vaulting ? `Tokenization result (${entry.event})` : entry.title}</Text>
          <EventStatusBadge event={entry.event} code={entry.statusCode} />
          {entry.outcome && <OutcomeBadge outcome={entry.outcome} />}
        </Group>
      </UnstyledButton>
      {entry.detail && (
        <Text size="xs" c="dimmed">
          {entry.detail}
        </Text>
      )}
      <Collapse expanded={opened}>
        <RawBlock title="Notification body" text={entry.request} maxHeight={220} />
      </Collapse>
    </Stack>
  );
}

/**
 * Follows one transaction live: every notification for it as it arrives (outcome included), the
 * status reads that verify it, and its current status. Pushes drive it; nothing polls.
 */
export function LiveFollow({ subject, id, waitingFor }: { subject: TransactionSubject; id: number; waitingFor: NotificationEvent }) {
  const { state } = useTransaction(subject, id);
  if (state.status === 'loading') return <Loader size="sm" aria-label="Loading the transaction" />;
  if (state.status !== 'ready') return <Alert color="red">{state.message}</Alert>;
  const { view, entries } = state.data;
  const notifications = entries.filter((e) => e.kind === 'notification');
  const reads = entries.filter((e) => e.kind === 'status_read');
  return (
    <Card withBorder data-testid="live-panel">
      <Stack gap="sm">
        <Group justify="space-between">
          <Group gap="xs">
            <Title order={4}>Live</Title>
            <StatusBadge subject={subject} code={view.statusCode} attemptState={view.attempt?.state ?? null} size="md" />
            <VerificationBadge transaction={view} size="md" />
          </Group>
          <Anchor href={routeHash(subject === 'payin' ? 'payins' : 'payouts', { id })} size="sm">
            Open the {subject === 'payin' ? 'pay-in' : 'payout'} with its timeline
          </Anchor>
        </Group>
        {view.statusMeaning && (
          <Text size="sm" data-testid="live-status-meaning">
            {view.statusCode}: {view.statusMeaning}
          </Text>
        )}
        <Text fw={600} size="sm">
          Notifications
        </Text>
        {notifications.length === 0 ? (
          <Group gap="xs" data-testid="live-waiting">
            {!view.final && <Loader size="xs" aria-hidden />}
            <Text size="sm" c="dimmed">
              {view.final ? 'None received.' : `Waiting for ${waitingFor}…`}
            </Text>
          </Group>
        ) : (
          notifications.map((entry) => <NotificationRow key={entry.key} entry={entry} />)
        )}
        <Text fw={600} size="sm">
          Verification (status reads)
        </Text>
        {reads.length === 0 ? (
          <Text size="sm" c="dimmed">
            No status read yet. A notification is a claim: Paydesk reads the status from the gateway before it trusts it.
          </Text>
        ) : (
          reads.map((read) => (
            <Group key={read.key} gap="xs" data-testid="live-status-read">
              <Text size="sm" c="dimmed">
                <DateTime iso={read.at} />
              </Text>
              <Text size="sm">{read.title}</Text>
              <Badge size="sm" variant="light" color={read.outcome === 'ok' ? 'teal' : 'orange'}>
                {read.outcome}
              </Badge>
              {read.statusCode && <StatusBadge subject={subject} code={read.statusCode} />}
            </Group>
          ))
        )}
        {view.conflict && (
          <Alert color="red" title="Mismatch">
            {view.conflict}
          </Alert>
        )}
      </Stack>
    </Card>
  );
}
