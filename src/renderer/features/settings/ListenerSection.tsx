import { Alert, Badge, Button, Card, Group, NumberInput, Skeleton, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import type { ListenerState } from '../../../shared/contract';
import { CopyValue } from '../../components/CopyValue';
import { useAction } from '../../components/use-action';
import { useScrollTo } from '../../components/use-scroll-to';
import { useLiveQuery } from '../../components/use-live-query';
import { useApi, useProfiles } from '../../stores/context';
import { LoadError } from '../../components/LoadError';
import { useAccess } from '../../stores/access';

/**
 * Where the notification listener listens, each profile's notification URL, and a change of
 * address. Main applies a change at once (the listener is rebound) and keeps it for the next start.
 */
export function ListenerSection({ focus = false }: { focus?: boolean }) {
  const api = useApi();
  const card = useScrollTo<HTMLDivElement>(focus);
  const query = useLiveQuery(() => api.invoke('settings:get-listener'), []);
  const [pushed, setPushed] = useState<ListenerState | null>(null);
  useEffect(() => api.on('settings:listener-changed', setPushed), [api]);
  const state = pushed ?? query.data;

  return (
    <Card withBorder data-testid="listener" ref={card}>
      <Title order={4}>Notification listener</Title>
      <Text size="sm" c="dimmed" mb="sm">
        The local HTTP server the gateway posts v2 notifications to. A sandbox or live gateway is another machine: it cannot post to 127.0.0.1. Behind a reverse proxy, set the profile&apos;s public URL (Profiles → Edit) instead of opening the listener to the network; until then Paydesk reads each transaction&apos;s status instead.
      </Text>
      {query.error && !state && <LoadError title="The listener address could not be read" message={query.error} onRetry={query.reload} />}
      {!state && !query.error && <Skeleton h={80} aria-label="Loading the listener address" />}
      {state && <ListenerDetails state={state} onChanged={setPushed} />}
    </Card>
  );
}

function ListenerDetails({ state, onChanged }: { state: ListenerState; onChanged: (state: ListenerState) => void }) {
  const api = useApi();
  const mayMove = useAccess().can('settings:update-listener');
  const profiles = useProfiles((s) => s.profiles);
  const action = useAction();
  const [host, setHost] = useState(state.host);
  const [port, setPort] = useState<number | string>(state.port);
  // Follow the address main reports (a change made elsewhere, or the one just applied).
  useEffect(() => {
    setHost(state.host);
    setPort(state.port);
  }, [state.host, state.port]);

  const changed = host.trim() !== state.host || Number(port) !== state.port;
  const apply = async () => {
    const next = await action.run(
      () => api.invoke('settings:update-listener', { host: host.trim(), port: typeof port === 'number' ? port : Number.NaN }),
      'The listener moved: new notifications go to the new address',
    );
    if (next) onChanged(next);
  };
  const portError = action.fieldErrors.port ?? (typeof port !== 'number' ? 'A whole number from 0 to 65535 (0: any free port).' : undefined);

  return (
    <Stack gap="sm">
      <Group gap="xs">
        <Text size="sm">Listening on</Text>
        <Text ff="monospace" fw={600} data-testid="listener-address">
          {state.host}:{state.port}
        </Text>
        <Badge color={state.loopback ? 'teal' : 'orange'} variant="light">
          {state.loopback ? 'this machine only' : 'reachable from the network'}
        </Badge>
      </Group>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void apply();
        }}
      >
        <Group align="flex-start">
          <TextInput label="Host" description="127.0.0.1: this machine only; 0.0.0.0: every interface" value={host}
            onChange={(e) => {
              setHost(e.currentTarget.value);
              action.reset();
            }} error={action.fieldErrors.host} w={260} />
          <NumberInput label="Port" description="0: any free port" min={0} max={65535} allowDecimal={false} allowNegative={false} value={port}
            onChange={(value) => {
              setPort(value);
              action.reset();
            }} error={portError} w={180} />
          {mayMove && (
            <Button type="submit" mt={24} loading={action.busy} disabled={!changed || portError !== undefined}>
              Apply and restart listener
            </Button>
          )}
        </Group>
      </form>
      {action.error && !action.fieldErrors.host && !action.fieldErrors.port && (
        <Alert color="red" role="alert">
          {action.error}
        </Alert>
      )}
      <Text size="xs" c="dimmed">
        A change takes effect at once and is kept for the next start. Transactions created before it carry the old address in their notification link, so their notifications will not arrive: run a sweep
        on Reconciliation to read their status instead.
      </Text>
      <Table aria-label="Notification URLs">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Profile</Table.Th>
            <Table.Th>Notification URL sent to the gateway</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {(profiles ?? []).map((profile) => (
            <Table.Tr key={profile.id} data-profile={profile.name}>
              <Table.Td>
                {profile.name}{' '}
                {profile.notificationPublicUrl && (
                  <Badge size="xs" variant="light">
                    public URL
                  </Badge>
                )}
              </Table.Td>
              <Table.Td data-testid="notification-url">
                <CopyValue value={profile.notificationUrl} label="notification URL" />
                {!profile.notifications.reachable && (
                  <Text size="xs" c="orange" title={profile.notifications.warning ?? undefined}>
                    The {profile.environment} gateway cannot reach this address: set the profile&apos;s public URL (Profiles → Edit). Until then Paydesk reads the status instead.
                  </Text>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}
