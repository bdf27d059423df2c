import { Alert, Anchor, Button, Card, Group, Stack, Table, Text, Title } from '@mantine/core';
import { Dialog } from '../../components/Dialog';
import { DateTime } from '../../components/DateTime';
import { HeadersTable } from '../../components/HeadersTable';
import { useDisclosure } from '@mantine/hooks';
import { useState } from 'react';
import type { InvokeOutput, NotificationView } from '../../../shared/contract';
import { CopyValue } from '../../components/CopyValue';
import { useAction } from '../../components/use-action';
import { routeHash } from '../../shell/use-route';
import { useApi, useStores } from '../../stores/context';
import { RawBlock } from '../playground/RawBlock';
import { eventSpec } from '../../../shared/spec/events';
import { EventStatusBadge } from '../transactions/EventStatusBadge';
import { OutcomeBadge } from './OutcomeBadge';
import { RoleNote } from '../../components/RoleNote';
import { useAccess } from '../../stores/access';
import { useLandingFocus } from '../../components/focus-landing';

type Replayed = InvokeOutput<'notifications:replay'>;

function Fact({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <Table.Tr>
      <Table.Th w={150} fw={500}>
        {label}
      </Table.Th>
      <Table.Td>{children}</Table.Td>
    </Table.Tr>
  );
}

const REPLAY_EXPLAINED =
  'An orphan or pending notification is applied again as itself (its transaction may be known by now). Any other is stored again as a copy and applied like a new delivery, so the ledger shows what a real repeat would do: a duplicate changes nothing, a claim is still verified by a status read.';

function ReplayButton({ notification }: { notification: NotificationView }) {
  const api = useApi();
  const mayReplay = useAccess().can('notifications:replay');
  const { notifications } = useStores();
  const action = useAction();
  const [opened, { open, close }] = useDisclosure(false);
  const [replayed, setReplayed] = useState<Replayed | null>(null);
  const replay = async () => {
    const result = await action.run(() => api.invoke('notifications:replay', { id: notification.id }), 'Notification replayed');
    close();
    if (result) {
      setReplayed(result);
      notifications.getState().put(result.notification);
    }
  };
  return (
    <>
      {mayReplay ? (
        <Button variant="light" onClick={open}>
          Replay into the ledger
        </Button>
      ) : (
        <RoleNote channel="notifications:replay" />
      )}
      <Dialog opened={opened} onClose={close} title={`Replay notification #${notification.id}?`}>
        <Stack>
          <Text size="sm">{REPLAY_EXPLAINED}</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button onClick={() => void replay()} loading={action.busy} data-autofocus>
              Replay
            </Button>
          </Group>
        </Stack>
      </Dialog>
      {action.error && (
        <Alert color="red" role="alert">
          {action.error}
        </Alert>
      )}
      {replayed && (
        <Alert color="blue" title="Replayed" data-testid="replay-result">
          <Group gap="xs">
            <Text size="sm">
              {replayed.notification.id === replayed.replayOf ? (
                `Notification #${replayed.replayOf} applied again:`
              ) : (
                <>
                  Stored as <Anchor href={routeHash('webhooks', { id: replayed.notification.id })}>notification #{replayed.notification.id}</Anchor>:
                </>
              )}
            </Text>
            <OutcomeBadge outcome={replayed.notification.outcome} />
          </Group>
          {replayed.notification.detail && <Text size="sm">{replayed.notification.detail}</Text>}
          {replayed.needsVerification && <Text size="sm">A status read from the gateway will confirm (or contradict) what it claims.</Text>}
        </Alert>
      )}
    </>
  );
}

/** One received notification: what became of it, the answer given, its raw body and headers. */
export function NotificationDetail({ notification }: { notification: NotificationView }) {
  // The body fields that named its transaction; an unknown event names none of the spec's.
  const references = eventSpec(notification.event)?.references ?? { gatewayId: 'transaction id', merchantReference: 'reference' };
  // Opened from a search result or an exception: the focus lands here.
  const heading = useLandingFocus<HTMLHeadingElement>();
  return (
    <Card withBorder data-testid="notification-detail" data-notification-id={notification.id}>
      <Stack gap="sm">
        <Group justify="space-between">
          <Group gap="xs">
            <Title order={4} ref={heading} tabIndex={-1}>
              Notification #{notification.id}
            </Title>
            <OutcomeBadge outcome={notification.outcome} size="md" />
          </Group>
          <ReplayButton key={notification.id} notification={notification} />
        </Group>
        {notification.detail && (
          <Text size="sm" data-testid="notification-outcome-detail">
            {notification.detail}
          </Text>
        )}
        <Table withRowBorders={false} verticalSpacing={4}>
          <Table.Tbody>
            <Fact label="Received"><DateTime iso={notification.receivedAt} /></Fact>
            <Fact label="Event">{notification.event ?? <Text c="dimmed">unreadable</Text>}</Fact>
            <Fact label="Status">{notification.statusCode === null ? '—' : <EventStatusBadge event={notification.event} code={notification.statusCode} />}</Fact>
            <Fact label={references.gatewayId}>{notification.transactionRef ? <CopyValue value={notification.transactionRef} label="id" /> : '—'}</Fact>
            <Fact label={references.merchantReference}>{notification.requestRef ? <CopyValue value={notification.requestRef} label="reference" /> : '—'}</Fact>
            <Fact label="Transaction">
              {notification.payinRowId !== null ? (
                <Anchor href={routeHash('payins', { id: notification.payinRowId })}>Open pay-in</Anchor>
              ) : notification.payoutRowId !== null ? (
                <Anchor href={routeHash('payouts', { id: notification.payoutRowId })}>Open payout</Anchor>
              ) : (
                <Text size="sm" c="dimmed">
                  not in the ledger
                </Text>
              )}
            </Fact>
            <Fact label="From">{notification.sourceAddress ?? '—'}</Fact>
            <Fact label="Answered">HTTP {notification.answerStatus}</Fact>
            <Fact label="Body size">
              {notification.bodySize} bytes{notification.bodyTruncated ? ' (over the limit: only the start was kept)' : ''}
            </Fact>
          </Table.Tbody>
        </Table>
        {notification.rawPrunedAt !== null ? (
          <Alert color="gray" title="Body and headers dropped" data-testid="notification-raw-pruned">
            The notification retention rule (Settings) dropped them on <DateTime iso={notification.rawPrunedAt} />; {notification.bodySize} bytes were received. The
            ids and status above were kept, so the claim is still applied if its transaction appears.
          </Alert>
        ) : (
          <RawMaterial notification={notification} />
        )}
      </Stack>
    </Card>
  );
}

/** The body and headers as received (card data and credentials redacted by main). */
function RawMaterial({ notification }: { notification: NotificationView }) {
  return (
    <>
      <RawBlock
        title="Body"
        text={notification.body}
        testId="notification-body"
        note={notification.bodyRedacted ? 'It held card data or a secret: shown with those removed.' : 'As received.'}
      />
      <div>
        <Text fw={600} size="sm" mb={4}>
          Headers
        </Text>
        <HeadersTable headers={notification.headers} nameWidth={200} striped verticalSpacing={2} fz="xs" data-testid="notification-headers" />
      </div>
    </>
  );
}
