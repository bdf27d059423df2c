import { Alert, Button, Chip, Grid, Group, Loader, MultiSelect, Stack, Text, TextInput, Title } from '@mantine/core';
import { useCallback, useEffect, useState } from 'react';
import { useStore } from 'zustand';
import type { NotificationOutcomeView, NotificationSummary, NotificationView } from '../../../shared/contract';
import { errorMessage } from '../../../shared/error-message';
import { ContractError } from '../../api/client';
import { LoadError } from '../../components/LoadError';
import { eventLabel, NOTIFICATION_EVENTS } from '../../../shared/spec/events';
import { codeOptions, useDebouncedSearch, withChosen } from '../../components/filter-inputs';
import { KeysetTable } from '../../components/KeysetTable';
import { ProfileFilter } from '../../components/ProfileFilter';
import { type Column, TWO_LINE_ROW_HEIGHT } from '../../components/VirtualTable';
import { PAYIN_STATUS_CATALOGUE, PAYOUT_STATUS_CATALOGUE } from '../../../shared/spec/codes';
import { navigate } from '../../shell/use-route';
import { useApi, useStores } from '../../stores/context';
import { useActiveProfile } from '../playground/use-active-profile';
import { EventStatusBadge } from '../transactions/EventStatusBadge';
import { groupDigits } from '../transactions/format';
import { CellLines } from '../../components/CellLines';
import { CopyValue } from '../../components/CopyValue';
import { DATE_TIME_COLUMN_WIDTH, DateTime } from '../../components/DateTime';
import { NotificationDetail } from './NotificationDetail';
import { ALL_NOTIFICATIONS, isFiltered, type NotificationQuery } from './notifications-store';
import { OutcomeBadge } from './OutcomeBadge';
import { OUTCOMES } from './outcomes';

// Two lines a row, narrow enough to sit beside the detail panel on a laptop screen (some 570 px
// at 1280) with every value whole but a long reference: the time over the listener's answer, the
// reference over the event, the status over the outcome. The id is in the detail's title.
const columns: Column<NotificationSummary>[] = [
  { key: 'received', header: 'Received / answered', width: DATE_TIME_COLUMN_WIDTH, render: (n) => <CellLines first={<DateTime iso={n.receivedAt} />} second={`HTTP ${n.answerStatus}`} /> },
  {
    key: 'reference',
    header: 'Reference / event',
    width: 'minmax(150px, 1fr)',
    render: (n) => {
      const reference = n.transactionRef ?? n.requestRef;
      return (
        <CellLines
          first={reference === null ? '—' : <CopyValue value={reference} label={n.transactionRef !== null ? 'transaction id' : 'reference'} truncate />}
          second={n.event ? eventLabel(n.event) : 'unreadable'}
        />
      );
    },
  },
  {
    key: 'status',
    header: 'Status / outcome',
    width: 232,
    render: (n) => <CellLines first={n.statusCode === null ? '—' : <EventStatusBadge event={n.event} code={n.statusCode} size="xs" />} second={<OutcomeBadge outcome={n.outcome} size="xs" />} />,
  },
];

type Detail = { id: number; version: string; view: NotificationView | null } | { id: number; version: string; error: string };

/**
 * The selected notification with its body and headers, from `notifications:get` (lists carry
 * summaries only): fetched when the selection changes, and again when its listed summary changes
 * (a push: applied, verified, contradicted), whose facts show at once meanwhile.
 */
function useNotificationDetail(id: number | null, listed: NotificationSummary | undefined) {
  const api = useApi();
  const [detail, setDetail] = useState<Detail | null>(null);
  const [attempt, setAttempt] = useState(0);
  const version = listed ? `${listed.outcome}|${listed.processedAt ?? ''}|${listed.detail ?? ''}|${attempt}` : String(attempt);
  useEffect(() => {
    if (id === null) return;
    let alive = true;
    api.invoke('notifications:get', { id }).then(
      (view) => alive && setDetail({ id, version, view }),
      (error: unknown) =>
        alive && setDetail(error instanceof ContractError && error.code === 'not_found' ? { id, version, view: null } : { id, version, error: errorMessage(error) }),
    );
    return () => {
      alive = false;
    };
  }, [api, id, version]);
  const retry = useCallback(() => setAttempt((n) => n + 1), []);
  const current = detail?.id === id ? detail : null;
  const view = current && 'view' in current ? current.view : undefined;
  return {
    /** undefined while the first fetch is on its way, null when there is no such notification. */
    notification: id === null ? null : view && listed ? { ...view, ...listed } : view,
    error: current && 'error' in current ? current.error : null,
    retry,
  };
}

const STATUS_OPTIONS = codeOptions([...PAYIN_STATUS_CATALOGUE, ...PAYOUT_STATUS_CATALOGUE]);

/** Every notification the listener received, live, with what became of it and a replay. */
export function WebhooksScreen({ id }: { id: string | null }) {
  const store = useStores().notifications;
  const query = useStore(store, (state) => state.query) ?? ALL_NOTIFICATIONS;
  const rows = useStore(store, (state) => state.rows);
  const loading = useStore(store, (state) => state.loading);
  const total = useStore(store, (state) => state.total);
  const counting = useStore(store, (state) => state.counting || (state.loading && state.total === null));
  const countError = useStore(store, (state) => state.countError);
  const errorFields = useStore(store, (state) => state.errorFields);
  // useActiveProfile loads the profiles when none are in yet; the Profile filter lists them all.
  const { profile } = useActiveProfile();
  const selectedId = id !== null && /^\d+$/.test(id) ? Number(id) : null;
  const { notification: selected, error: detailError, retry: retryDetail } = useNotificationDetail(
    selectedId,
    rows.find((n) => n.id === selectedId),
  );

  useEffect(() => {
    if (store.getState().query === null) void store.getState().show(ALL_NOTIFICATIONS);
  }, [store]);

  // Each change reads the filters the list shows now, so a search committed after a pause never undoes a filter set meanwhile.
  const setFilters = useCallback((patch: Partial<NotificationQuery>) => void store.getState().show({ ...(store.getState().query ?? ALL_NOTIFICATIONS), ...patch }), [store]);
  const [search, typeSearch] = useDebouncedSearch(query.search, (value) => setFilters({ search: value }));
  const open = useCallback((n: NotificationSummary) => navigate('webhooks', { id: n.id }), []);
  const rowKey = useCallback((n: NotificationSummary) => String(n.id), []);
  const filtered = isFiltered(query);

  return (
    <Stack>
      <Group gap="sm" align="baseline">
        <Title order={2}>Webhook inspector</Title>
        <Text c="dimmed" data-testid="notifications-total" aria-live="polite" title={countError ?? undefined}>
          {total !== null ? `${groupDigits(total)} ${total === 1 ? 'notification' : 'notifications'}${filtered ? ' match' : ''}` : counting ? 'Counting…' : countError ? 'Not counted' : ''}
        </Text>
      </Group>
      <Text c="dimmed" size="sm">
        Every notification the listener received, newest first, stored raw before it was answered. A notification carries no signature (spec 5, rule 6): what it
        claims is confirmed by a status read.
      </Text>
      <Group align="flex-end" gap="md" role="search" aria-label="Notification filters">
        <TextInput
          label="Search"
          placeholder="payin_id, payout_id, request_id, merchantReference"
          title="The start of a payin_id, payout_id, request_id or merchantReference, as written"
          value={search}
          onChange={(event) => typeSearch(event.currentTarget.value)}
          error={errorFields.search}
          w={380}
        />
        <MultiSelect
          label="Status"
          placeholder={query.statusCodes.length === 0 ? 'Any status' : undefined}
          data={withChosen(STATUS_OPTIONS, query.statusCodes)}
          value={query.statusCodes}
          onChange={(value) => setFilters({ statusCodes: value })}
          searchable
          clearable
          w={240}
          comboboxProps={{ width: 360, position: 'bottom-start' }}
          error={errorFields.statusCodes}
        />
        <MultiSelect
          label="Event"
          placeholder={query.events.length === 0 ? 'All events' : undefined}
          data={NOTIFICATION_EVENTS.map((event) => ({ value: event, label: event }))}
          value={query.events}
          onChange={(value) => setFilters({ events: value })}
          clearable
          w={300}
        />
        <ProfileFilter value={query.profileId} onChange={(profileId) => setFilters({ profileId })} w={220} />
        <Stack gap={4}>
          <Text size="sm" fw={500} id="outcome-filter-label">
            Outcome
          </Text>
          <Chip.Group multiple value={query.outcomes} onChange={(value) => setFilters({ outcomes: value as NotificationOutcomeView[] })}>
            <Group gap={6} role="group" aria-labelledby="outcome-filter-label">
              {OUTCOMES.map((outcome) => (
                <Chip key={outcome} value={outcome} size="xs">
                  {outcome}
                </Chip>
              ))}
            </Group>
          </Chip.Group>
        </Stack>
        {filtered && (
          <Button variant="subtle" onClick={() => void store.getState().show(ALL_NOTIFICATIONS)}>
            Clear filters
          </Button>
        )}
        <Button variant="default" onClick={() => void store.getState().refresh()} disabled={loading}>
          Refresh
        </Button>
      </Group>
      <Grid gap="md">
        <Grid.Col span={{ base: 12, lg: selectedId !== null ? 7 : 12 }}>
          <KeysetTable
            store={store}
            label="Notifications"
            columns={columns}
            rowKey={rowKey}
            onOpen={open}
            errorTitle="The notifications could not be loaded"
            height="calc(100vh - 360px)"
            rowHeight={TWO_LINE_ROW_HEIGHT}
            empty={
              <Text c="dimmed" size="sm">
                {filtered
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
            {detailError ? (
              <LoadError title={`Notification #${selectedId} could not be read`} message={detailError} onRetry={retryDetail} />
            ) : (
              <Loader size="xs" aria-label="Loading the notification" />
            )}
          </Grid.Col>
        )}
        {selected === null && selectedId !== null && (
          <Grid.Col span={{ base: 12, lg: 5 }}>
            <Alert color="yellow">
              There is no notification #{selectedId}. Malformed notifications beyond the profile&apos;s retention rule (Settings) are deleted.
            </Alert>
          </Grid.Col>
        )}
      </Grid>
    </Stack>
  );
}
