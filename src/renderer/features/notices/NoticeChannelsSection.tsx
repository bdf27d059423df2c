import { Badge, Button, Card, Group, Skeleton, Table, Text, Title } from '@mantine/core';
import { useEffect } from 'react';
import type { NoticeChannelName, NoticeChannelStatus } from '../../../shared/contract';
import { DateTime } from '../../components/DateTime';
import { LoadError } from '../../components/LoadError';
import { useLiveQuery } from '../../components/use-live-query';
import { useApi } from '../../stores/context';

const REFRESH_MS = 5_000;
const CHANNEL_NAMES = { email: 'E-mail (SMTP)', chat: 'Chat (incoming webhooks)' } as const satisfies Record<NoticeChannelName, string>;

/** What an admin needs to hear about a channel first: not set up, failing (its last try failed), working, or unused so far. */
function stateOf(status: NoticeChannelStatus): { label: string; color: string } {
  if (!status.configured) return { label: 'not set up', color: 'gray' };
  const failedLast = status.lastErrorAt !== null && (status.lastSentAt === null || status.lastErrorAt > status.lastSentAt);
  if (failedLast) return { label: 'failing', color: 'red' };
  if (status.lastSentAt !== null) return { label: 'working', color: 'teal' };
  return { label: 'nothing sent yet', color: 'gray' };
}

/** Each channel of this team server, for admins: whether it is set up, its last message sent, and its last error with its time. */
export function NoticeChannelsSection() {
  const api = useApi();
  const query = useLiveQuery(() => api.invoke('notices:channels'), []);
  // A channel's state moves as the sender works (no push tells of it): read again every few seconds while shown.
  const { reload } = query;
  useEffect(() => {
    const timer = setInterval(reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [reload]);
  return (
    <Card withBorder data-testid="notice-channels">
      <Group justify="space-between" mb="xs">
        <Title order={3}>Channels of this server</Title>
        <Button variant="default" size="xs" onClick={query.reload}>
          Refresh channels
        </Button>
      </Group>
      <Text size="sm" c="dimmed" mb="sm">
        E-mail is sent through the SMTP server the team server was started with (<code>--smtp-url</code> or <code>$PAYDESK_SMTP_URL</code>); chat messages are posted to each person&apos;s own
        incoming-webhook URL. A message that fails is tried again with a growing delay, up to eight times.
      </Text>
      {query.error && !query.data && <LoadError title="The channels could not be read" message={query.error} onRetry={query.reload} />}
      {!query.data && !query.error && <Skeleton h={80} aria-label="Loading the channels" />}
      {query.data && (
        <Table aria-label="Notice channels" withTableBorder>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Channel</Table.Th>
              <Table.Th>State</Table.Th>
              <Table.Th>Last sent</Table.Th>
              <Table.Th>Last error</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {query.data.map((status) => {
              const state = stateOf(status);
              return (
                <Table.Tr key={status.channel} data-channel={status.channel} data-state={state.label}>
                  <Table.Th scope="row">{CHANNEL_NAMES[status.channel]}</Table.Th>
                  <Table.Td>
                    <Badge color={state.color} variant={state.color === 'red' ? 'filled' : 'light'}>
                      {state.label}
                    </Badge>
                  </Table.Td>
                  <Table.Td>
                    <DateTime iso={status.lastSentAt} />
                  </Table.Td>
                  <Table.Td>
                    {status.lastError === null ? (
                      'none'
                    ) : (
                      <>
                        <Text size="sm" c={state.color === 'red' ? 'red' : undefined} fw={state.color === 'red' ? 600 : undefined} data-testid="channel-error">
                          {status.lastError}
                        </Text>
                        <Text size="xs" c="dimmed">
                          <DateTime iso={status.lastErrorAt} />
                        </Text>
                      </>
                    )}
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      )}
    </Card>
  );
}
