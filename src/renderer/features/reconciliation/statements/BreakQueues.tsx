import { Badge, Button, Group, Stack, Tabs, Text, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { useStore } from 'zustand';
import type { BreakQueue, BreakRow, StatementScope } from '../../../../shared/contract';
import { methodLabel } from '../../../../shared/spec/methods';
import { Amount } from '../../../components/Amount';
import { CellLines } from '../../../components/CellLines';
import { CopyValue } from '../../../components/CopyValue';
import { saveCsvExport } from '../../../components/download';
import { KeysetTable } from '../../../components/KeysetTable';
import { useAction } from '../../../components/use-action';
import { type Column, TWO_LINE_ROW_HEIGHT } from '../../../components/VirtualTable';
import { navigate } from '../../../shell/use-route';
import { useApi } from '../../../stores/context';
import { createKeysetListStore, queryKey } from '../../../stores/keyset-list';
import { formatMoney } from '../../transactions/format';
import { subjectNoun } from '../../transactions/status';
import { BREAK_QUEUES } from './break-queues';

const PAGE = 200;

const money = (amount: string | null, currency: string | null) => (amount && currency ? <Amount value={amount} currency={currency} /> : '—');

const columns: Column<BreakRow>[] = [
  { key: 'date', header: 'Date', width: 110, render: (r) => <Text size="sm">{r.date ?? '—'}</Text> },
  {
    key: 'what',
    header: 'What / why',
    width: 'minmax(260px, 1fr)',
    render: (r) => {
      const id = r.reference ?? r.gatewayId ?? r.settlementId;
      return (
        <CellLines
          first={
            <Group gap={4} wrap="nowrap" style={{ minWidth: 0 }}>
              <Text span size="sm" style={{ flexShrink: 0 }}>
                {r.subject ? subjectNoun(r.subject) : r.bankLineId !== null ? 'Bank credit' : r.settlementId && r.lineId === null ? 'Settlement' : 'Report line'}
              </Text>
              {id ? <CopyValue value={id} label="reference" truncate /> : <Text span size="sm">—</Text>}
            </Group>
          }
          second={r.detail}
        />
      );
    },
  },
  {
    key: 'amount',
    header: 'Statement / ledger',
    width: 210,
    align: 'right',
    render: (r) => (
      <CellLines first={money(r.amount, r.currency)} firstTitle={r.amount && r.currency ? formatMoney(r.amount, r.currency) : undefined} second={money(r.otherAmount, r.otherCurrency)} />
    ),
  },
  {
    key: 'method',
    header: 'Method / settlement',
    width: 230,
    render: (r) => <CellLines first={r.method ? methodLabel(r.method) : '—'} second={r.settlementId ?? '—'} />,
  },
];

/** Where a row leads: its pay-in or payout, else its settlement (the statements view opens it). */
function openRow(row: BreakRow, openSettlement: (id: string, profileId: string) => void): void {
  if (row.subject && row.rowId !== null) navigate(row.subject === 'payin' ? 'payins' : 'payouts', { id: row.rowId });
  else if (row.settlementId) openSettlement(row.settlementId, row.profileId);
}

interface ListProps {
  queue: BreakQueue;
  label: string;
  explains: string;
  /** What an empty queue means, in words. */
  empty: string;
  scope: StatementScope;
  version: number;
  onOpenSettlement: (settlementId: string, profileId: string) => void;
}

function BreakList({ queue, label, explains, empty, scope, version, onOpenSettlement }: ListProps) {
  const api = useApi();
  const action = useAction();
  const [store] = useState(() =>
    createKeysetListStore<StatementScope & { queue: BreakQueue }, BreakRow>({
      list: async (query, cursor) => {
        const page = await api.invoke('statements:breaks', { ...query, cursor, limit: PAGE });
        return { items: page.items, next: page.nextCursor, total: page.total };
      },
      matches: () => true,
      key: (row) => row.key,
      compare: () => 0,
    }),
  );
  useEffect(() => () => store.dispose(), [store]);
  useEffect(() => {
    const query = { ...scope, queue };
    const state = store.getState();
    void (state.key === queryKey(query) ? state.refresh() : state.show(query));
  }, [store, scope, queue, version]);
  const total = useStore(store, (state) => state.total);
  const shown = useStore(store, (state) => state.rows.length);
  const exportCsv = async () => {
    const file = await action.run(() => api.invoke('statements:export-csv', { ...scope, queue }));
    if (!file) return;
    saveCsvExport(file, 'Narrow the dates to export the rest.');
  };
  return (
    <>
      <Group justify="space-between" my="xs" wrap="nowrap" align="start">
        <Text size="sm" c="dimmed">
          {explains} {total !== null && <strong data-testid="break-total">{total.toLocaleString('en')} in all.</strong>}
        </Text>
        <Button variant="default" size="xs" loading={action.busy} onClick={() => void exportCsv()} style={{ flexShrink: 0 }}>
          Export CSV
        </Button>
      </Group>
      {action.error && (
        <Text size="xs" c="red" role="alert">
          Export failed: {action.error}
        </Text>
      )}
      <KeysetTable
        store={store}
        label={label}
        columns={columns}
        rowKey={(row) => row.key}
        onOpen={(row) => openRow(row, onOpenSettlement)}
        errorTitle={`${label} could not be loaded`}
        height={Math.min(8, Math.max(3, shown)) * TWO_LINE_ROW_HEIGHT + 4}
        rowHeight={TWO_LINE_ROW_HEIGHT}
        empty={<Text c="dimmed">Nothing here: {empty}</Text>}
      />
    </>
  );
}

interface Props {
  counts: Map<BreakQueue, number>;
  scope: StatementScope;
  version: number;
  onOpenSettlement: (settlementId: string, profileId: string) => void;
}

/** Every break queue as a tab with its count; the open tab reads its rows page by page. */
export function BreakQueues({ counts, scope, version, onOpenSettlement }: Props) {
  const [queue, setQueue] = useState<BreakQueue>('unsettled');
  return (
    <Stack gap="xs">
      <Title order={3}>Breaks</Title>
      <Tabs value={queue} onChange={(value) => value && setQueue(value as BreakQueue)} keepMounted={false}>
        <Tabs.List aria-label="Break queues">
          {BREAK_QUEUES.map(({ queue: q, label }) => {
            const count = counts.get(q);
            return (
              <Tabs.Tab
                key={q}
                value={q}
                data-queue={q}
                rightSection={
                  <Badge size="sm" variant={count ? 'filled' : 'light'} color={count ? 'orange' : 'gray'} data-testid={`break-count-${q}`}>
                    {count === undefined ? '…' : count.toLocaleString('en')}
                  </Badge>
                }
              >
                {label}
              </Tabs.Tab>
            );
          })}
        </Tabs.List>
        {BREAK_QUEUES.map(({ queue: q, label, explains, empty }) => (
          <Tabs.Panel key={q} value={q}>
            <BreakList queue={q} label={label} explains={explains} empty={empty} scope={scope} version={version} onOpenSettlement={onOpenSettlement} />
          </Tabs.Panel>
        ))}
      </Tabs>
    </Stack>
  );
}
