import { Alert, Anchor, Badge, Button, Card, Group, Loader, Progress, SegmentedControl, Stack, Text, Title } from '@mantine/core';
import { Amount } from '../../components/Amount';
import { CellLines } from '../../components/CellLines';
import { CopyValue } from '../../components/CopyValue';
import { DATE_TIME_COLUMN_WIDTH, DateTime } from '../../components/DateTime';
import { useEffect, useState } from 'react';
import { useStore } from 'zustand';
import type { BatchItemState, BatchItemView, BatchView } from '../../../shared/contract';
import { methodLabel } from '../../../shared/spec/methods';
import { useAction } from '../../components/use-action';
import { TWO_LINE_ROW_HEIGHT, VirtualTable, type Column } from '../../components/VirtualTable';
import { routeHash } from '../../shell/use-route';
import { useApi, useStores } from '../../stores/context';
import { formatMoney, formatTime } from '../transactions/format';
import { StatusBadge } from '../transactions/StatusBadge';
import { useBatchItems } from './batch-items';
import { useBatchResume } from './BatchReview';
import { BatchEvents } from './BatchEvents';
import { BatchFinalStates } from './BatchFinalStates';
import { BatchLeftOut } from './BatchLeftOut';
import { errorMessage } from '../../../shared/error-message';
import { counted } from '../../../shared/counted';

const STATE_COLORS: Record<BatchItemState, string> = { pending: 'gray', sending: 'blue', sent: 'teal', refused: 'red', unknown: 'yellow', cancelled: 'dark' };
const BATCH_COLORS: Record<BatchView['state'], string> = { draft: 'gray', running: 'blue', paused: 'yellow', cancelled: 'dark', done: 'teal' };

// Two lines a row, so that a batch's items fit the screen at 1280 px with every value whole but a
// long reference, beneficiary or error (whole on hover): the line; the item's state over its
// payout's status; the time it last changed; the reference over the beneficiary; the amount over
// the method; where it goes (masked) over why it was refused.
const itemColumns: Column<BatchItemView>[] = [
  { key: 'line', header: 'Line', width: 56, align: 'right', render: (i) => i.line },
  {
    key: 'state',
    header: 'State / payout status',
    width: 186,
    render: (i) => (
      <CellLines
        first={
          <Badge color={STATE_COLORS[i.state]} variant="light" data-item-state={i.state}>
            {i.state}
          </Badge>
        }
        second={i.payoutRowId === null ? '—' : <StatusBadge subject="payout" code={i.statusCode} />}
      />
    ),
  },
  { key: 'updated', header: 'Updated', width: DATE_TIME_COLUMN_WIDTH, render: (i) => <DateTime iso={i.updatedAt} /> },
  {
    key: 'reference',
    header: 'merchantReference / beneficiary',
    width: 'minmax(150px, 1fr)',
    render: (i) => <CellLines first={<CopyValue value={i.merchantReference} label="merchantReference" truncate />} second={i.beneficiary} />,
  },
  { key: 'amount', header: 'Amount / method', width: 200, align: 'right', render: (i) => <CellLines first={<Amount value={i.amount} currency={i.currency} />} firstTitle={formatMoney(i.amount, i.currency)} second={methodLabel(i.method)} /> },
  {
    key: 'destination',
    header: 'Destination / why',
    width: 180,
    render: (i) => (
      <CellLines
        first={
          <Text span size="xs" ff="monospace" title={i.destination}>
            {i.destination}
          </Text>
        }
        second={
          <Text span size="xs" c="red" title={i.error ?? undefined}>
            {i.error ?? ''}
          </Text>
        }
      />
    ),
  },
];

const FILTERS: { value: string; label: string; states?: BatchItemState[] }[] = [
  { value: 'all', label: 'All' },
  { value: 'problems', label: 'Refused or unknown', states: ['refused', 'unknown'] },
  { value: 'sent', label: 'Sent', states: ['sent'] },
];

/** One batch: a progress bar, counters, pause / resume / cancel, and its items live. */
export function BatchProgress({ id }: { id: number }) {
  const api = useApi();
  const store = useStores().batches;
  const batch = useStore(store, (state) => state.batches[id]);
  const action = useAction();
  const [loadError, setLoadError] = useState<string | null>(null);
  const [filter, setFilter] = useState('all');
  // A live batch resumes only after main's review of what remains (a dialog); others at once.
  const resumer = useBatchResume(batch, (view) => store.getState().putBatch(view));

  useEffect(() => {
    api
      .invoke('batches:get', { id })
      .then((view) => store.getState().putBatch(view))
      .catch((error: unknown) => setLoadError(errorMessage(error)));
  }, [api, store, id]);

  const items = useBatchItems(id, FILTERS.find((f) => f.value === filter)?.states, `${batch?.updatedAt ?? ''}|${batch?.outcomes.paid ?? 0}|${batch?.outcomes.failed ?? 0}`);

  if (loadError) return <Alert color="red" title={`Batch ${id} could not be loaded`}>{loadError}</Alert>;
  if (!batch) return <Loader size="sm" aria-label="Loading the batch" />;

  const { counts } = batch;
  const processed = counts.sent + counts.refused + counts.cancelled + counts.unknown;
  const percent = batch.total === 0 ? 0 : (processed / batch.total) * 100;
  const open = counts.sending + counts.unknown;
  const interruptions = batch.history.filter((e) => e.kind === 'interrupted').length;
  const run = (work: () => Promise<BatchView>, message: string) => void action.run(async () => store.getState().putBatch(await work()), message);
  const section = (count: number) => (batch.total === 0 ? 0 : (count / batch.total) * 100);

  return (
    <Card withBorder data-testid="batch-progress" data-batch-state={batch.state}>
      <Stack gap="sm">
        <Group justify="space-between" align="baseline">
          <Group gap="sm" align="baseline">
            <Title order={4}>
              Batch {batch.id} · {batch.fileName}
            </Title>
            <Badge color={BATCH_COLORS[batch.state]} data-testid="batch-state">
              {batch.state}
            </Badge>
            {interruptions > 0 && (
              <Badge color="orange" variant="light" title="The app stopped while this batch was running; see its history below." data-testid="batch-interruptions">
                {interruptions} {interruptions === 1 ? 'interruption' : 'interruptions'}
              </Badge>
            )}
            <Badge color={batch.environment === 'live' ? 'red' : 'teal'} variant={batch.environment === 'live' ? 'filled' : 'light'}>
              {batch.environment === 'live' ? `LIVE · ${batch.profileName}` : batch.profileName}
            </Badge>
          </Group>
          <Text size="sm" c="dimmed">
            started <DateTime iso={batch.startedAt} />
            {batch.finishedAt ? ` · ended ${formatTime(batch.finishedAt)}` : ''}
          </Text>
        </Group>
        <Stack gap={4}>
          <Progress.Root size="xl" aria-label="Batch progress" aria-valuenow={Math.round(percent)} aria-valuemin={0} aria-valuemax={100} role="progressbar" data-testid="batch-progress-bar">
            <Progress.Section withAria={false} value={section(counts.sent)} color="teal" />
            <Progress.Section withAria={false} value={section(counts.refused)} color="red" />
            <Progress.Section withAria={false} value={section(counts.unknown)} color="yellow" />
            <Progress.Section withAria={false} value={section(counts.cancelled)} color="gray" />
            <Progress.Section withAria={false} value={section(counts.sending)} color="blue" animated />
          </Progress.Root>
          <Text size="sm" data-testid="batch-processed" data-in-flight={counts.sending} aria-live="polite">
            {processed.toLocaleString()} of {batch.total.toLocaleString()} processed · {counts.sent.toLocaleString()} sent · {counts.refused} refused · {counts.unknown} unknown · {counts.cancelled} cancelled · {counts.pending + counts.sending} to go
            {counts.sending > 0 ? ` (${counts.sending} in flight)` : ''}
          </Text>
          <Text size="sm" c="dimmed">
            Total {batch.totals.map((t) => `${formatMoney(t.amount, t.currency)} (${t.count.toLocaleString()})`).join(' · ')}
            {batch.leftOut > 0 ? ` · the file had ${counted(batch.total + batch.leftOut, 'row')}, ${batch.leftOut.toLocaleString()} left out` : ''}
          </Text>
        </Stack>
        <BatchLeftOut batch={batch} />
        <BatchFinalStates batch={batch} />
        {batch.lastError && (
          <Alert color="orange" title="The batch stopped by itself">
            {batch.lastError} Fix the cause, then resume: nothing is sent twice.
          </Alert>
        )}
        {counts.unknown > 0 && batch.state !== 'running' && (
          <Alert color="yellow" title={`${counts.unknown} ${counts.unknown === 1 ? 'payout has' : 'payouts have'} an unknown outcome`}>
            The request may have reached the gateway. “Settle open payouts” asks again under the same Idempotency-Key: the gateway answers with its first answer, nothing is paid twice.
          </Alert>
        )}
        {(action.error ?? resumer.error) && (
          <Text c="red" size="sm" role="alert">
            {action.error ?? resumer.error}
          </Text>
        )}
        {resumer.dialog}
        <Group gap="xs">
          {batch.state === 'running' && (
            <Button variant="default" onClick={() => run(() => api.invoke('batches:pause', { id }), 'Batch paused')} loading={action.busy}>
              Pause
            </Button>
          )}
          {batch.state === 'paused' && (
            <Button onClick={() => void resumer.resume('Batch resumed')} loading={resumer.busy}>
              Resume
            </Button>
          )}
          {(batch.state === 'done' || batch.state === 'cancelled') && open > 0 && (
            <Button onClick={() => void resumer.resume('Settling the open payouts')} loading={resumer.busy}>
              Settle open payouts
            </Button>
          )}
          {(batch.state === 'running' || batch.state === 'paused') && (
            <Button
              color="red"
              variant="light"
              loading={action.busy}
              onClick={() => {
                if (window.confirm(`Cancel batch ${id}? The ${counted(counts.pending, 'payout')} not sent yet will never be sent; the ones already sent are followed to their outcome.`)) {
                  run(() => api.invoke('batches:cancel', { id }), 'Batch cancelled');
                }
              }}
            >
              Cancel batch
            </Button>
          )}
        </Group>
        <Group justify="space-between" align="flex-end">
          <SegmentedControl aria-label="Which items" data={FILTERS.map(({ value, label }) => ({ value, label }))} value={filter} onChange={setFilter} size="xs" />
          {items.error && (
            <Text size="sm" c="red">
              {items.error}
            </Text>
          )}
        </Group>
        <VirtualTable
          label="Batch items"
          columns={itemColumns}
          rows={items.items}
          rowKey={(i) => String(i.id)}
          onOpen={(i) => {
            if (i.payoutRowId !== null) window.location.hash = routeHash('payouts', { id: i.payoutRowId });
          }}
          onEndReached={() => void items.loadMore()}
          hasMore={items.hasMore}
          loading={items.loading && items.items.length === 0}
          height={360}
          rowHeight={TWO_LINE_ROW_HEIGHT}
          empty={<Text c="dimmed">No item here.</Text>}
        />
        <Text size="xs" c="dimmed">
          Open a sent item (click or Enter) for its payout's timeline. <Anchor href={routeHash('payouts', { params: { tab: 'batch' } })}>Upload another file</Anchor>
        </Text>
        <BatchEvents batch={batch} />
      </Stack>
    </Card>
  );
}
