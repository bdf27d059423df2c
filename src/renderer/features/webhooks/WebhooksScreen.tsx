import { Alert, Button, Chip, Grid, Group, Loader, MultiSelect, Select, Stack, Text, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { useStore } from 'zustand';
import type { NotificationOutcomeView, NotificationView } from '../../../shared/contract';
import { NOTIFICATION_EVENTS } from '../../../shared/spec/schemas';
import { type Column, VirtualTable } from '../../components/VirtualTable';
import { navigate } from '../../shell/use-route';
import { useApi, useProfiles, useStores } from '../../stores/context';
import { useActiveProfile } from '../playground/use-active-profile';
import { StatusBadge } from '../transactions/StatusBadge';
import { formatTime } from '../transactions/format';
import { NotificationDetail } from './NotificationDetail';
import { OUTCOMES, OutcomeBadge } from './OutcomeBadge';

const EVENT_SHORT: Record<string, string> = {
  v2_payin_notification: 'pay-in',
  v2_tokenization_notification: 'tokenization',
  v2_payout_notification: 'payout',
};

// Narrow enough to sit beside the detail panel on a laptop screen; the id is in the detail's title.
const columns: Column<NotificationView>[] = [
  { key: 'received', header: 'Received', width: 150, render: (n) => formatTime(n.receivedAt) },
  { key: 'event', header: 'Event', width: 96, render: (n) => (n.event ? (EVENT_SHORT[n.event] ?? n.event) : <Text span c="dimmed" size="sm">unreadable</Text>) },
  { key: 'reference', header: 'Reference', width: 'minmax(60px, 1fr)', render: (n) => <span title={[n.transactionRef, n.requestRef].filter(Boolean).join(' · ')}>{n.transactionRef ?? n.requestRef ?? '—'}</span> },
  { key: 'status', header: 'Status', width: 116, render: (n) => (n.statusCode === null ? '—' : <StatusBadge subject={n.event === 'v2_payout_notification' ? 'payout' : 'payin'} code={n.statusCode} size="xs" />) },
  { key: 'answer', header: 'HTTP', width: 52, render: (n) => n.answerStatus, align: 'right' },
  { key: 'outcome', header: 'Outcome', width: 96, render: (n) => <OutcomeBadge outcome={n.outcome} size="xs" /> },
];

/**
 * The selected notification: from the loaded pages, else fetched by id for a link to an older one
 * (keyset: the first row below id + 1). undefined while fetching, null when there is none.
 */
function useNotificationById(id: number | null, loaded: NotificationView | undefined): NotificationView | null | undefined {
  const api = useApi();
  const [fetched, setFetched] = useState<{ id: number; view: NotificationView | null } | null>(null);
  useEffect(() => {
    if (id === null || loaded) return;
    let alive = true;
    api.invoke('notifications:list', { beforeId: id + 1, limit: 1 }).then(
      (page) => alive && setFetched({ id, view: page.items[0]?.id === id ? page.items[0] : null }),
      () => alive && setFetched({ id, view: null }),
    );
    return () => {
      alive = false;
    };
  }, [api, id, loaded]);
  if (id === null) return null;
  if (loaded) return loaded;
  return fetched?.id === id ? fetched.view : undefined;
}

/** Every notification the listener received, live, with what became of it and a replay. */
export function WebhooksScreen({ id }: { id: string | null }) {
  const store = useStores().notifications;
  const { items, filters, loading, loaded, error, nextBeforeId } = useStore(store);
  // useActiveProfile loads the profiles when none are in yet; the filter lists them all.
  const { profile } = useActiveProfile();
  const profiles = useProfiles((state) => state.profiles);
  const selectedId = id !== null && /^\d+$/.test(id) ? Number(id) : null;
  const selected = useNotificationById(
    selectedId,
    items.find((n) => n.id === selectedId),
  );

  useEffect(() => {
    if (!store.getState().loaded) void store.getState().reload();
  }, [store]);

  return (
    <Stack>
      <Title order={2}>Webhook inspector</Title>
      <Text c="dimmed" size="sm">
        Every notification the listener received, newest first, stored raw before it was answered. A notification carries no signature (spec 5, rule 6): what it
        claims is confirmed by a status read.
      </Text>
      <Group align="flex-end" gap="md">
        <Stack gap={4}>
          <Text size="sm" fw={500} id="outcome-filter-label">
            Outcome
          </Text>
          <Chip.Group multiple value={filters.outcomes} onChange={(value) => void store.getState().setFilters({ ...filters, outcomes: value as NotificationOutcomeView[] })}>
            <Group gap={6} role="group" aria-labelledby="outcome-filter-label">
              {OUTCOMES.map((outcome) => (
                <Chip key={outcome} value={outcome} size="xs">
                  {outcome}
                </Chip>
              ))}
            </Group>
          </Chip.Group>
        </Stack>
        <Select
          label="Profile"
          placeholder="All profiles"
          clearable
          value={filters.profileId}
          onChange={(value) => void store.getState().setFilters({ ...filters, profileId: value })}
          data={(profiles ?? []).map((p) => ({ value: p.id, label: p.name }))}
          w={220}
        />
        <MultiSelect
          label="Event"
          placeholder={filters.events.length === 0 ? 'All events' : undefined}
          data={NOTIFICATION_EVENTS.map((event) => ({ value: event, label: event }))}
          value={filters.events}
          onChange={(value) => void store.getState().setFilters({ ...filters, events: value })}
          clearable
          w={340}
        />
        <Button variant="default" onClick={() => void store.getState().reload()} loading={loading && loaded}>
          Refresh
        </Button>
      </Group>
      {error && (
        <Alert color="red" title="Could not load notifications">
          {error}
        </Alert>
      )}
      <Grid gap="md">
        <Grid.Col span={{ base: 12, lg: selectedId !== null ? 7 : 12 }}>
          <VirtualTable
            label="Notifications"
            columns={columns}
            rows={items}
            rowKey={(n) => String(n.id)}
            onOpen={(n) => navigate('webhooks', { id: n.id })}
            onEndReached={() => void store.getState().loadMore()}
            hasMore={nextBeforeId !== null}
            loading={loading}
            height="calc(100vh - 330px)"
            empty={
              <Text c="dimmed" size="sm">
                {filters.outcomes.length > 0 || filters.events.length > 0 || filters.profileId !== null
                  ? 'No notification matches these filters.'
                  : `No notification received yet. The gateway posts them to ${profile?.notificationUrl ?? "the profile's notification URL"}.`}
              </Text>
            }
          />
        </Grid.Col>
        {selected && (
          <Grid.Col span={{ base: 12, lg: 5 }}>
            <NotificationDetail notification={selected} />
          </Grid.Col>
        )}
        {selected === undefined && (
          <Grid.Col span={{ base: 12, lg: 5 }}>
            <Loader size="xs" aria-label="Loading the notification" />
          </Grid.Col>
        )}
        {selected === null && selectedId !== null && (
          <Grid.Col span={{ base: 12, lg: 5 }}>
            <Alert color="yellow">There is no notification #{selectedId}.</Alert>
          </Grid.Col>
        )}
      </Grid>
    </Stack>
  );
}
