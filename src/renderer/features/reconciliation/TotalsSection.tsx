import { Anchor, Button, Card, Group, SegmentedControl, Skeleton, Stack, Text, Title } from '@mantine/core';
import { useMemo, useState } from 'react';
import type { InvokeOutput } from '../../../shared/contract';
import type { LiveQuery } from '../../components/use-live-query';
import { navigate } from '../../shell/use-route';
import { ExportCsvButton } from './ExportCsvButton';
import { type ReconciliationFilter, totalsInput } from './filter';
import { TotalsCharts } from './TotalsCharts';
import { TotalsTable } from './TotalsTable';
import { type Grouping, groupTotals, type TotalsGroup } from './totals-groups';
import { LoadError } from '../../components/LoadError';

type Totals = InvokeOutput<'reconciliation:totals'>;

const groupings: { value: Grouping; label: string }[] = [
  { value: 'day', label: 'By day' },
  { value: 'currency', label: 'By currency' },
  { value: 'method', label: 'By method' },
  { value: 'status', label: 'By status' },
];

// The lists filter by currency, method and status, not by UTC day: a row opens every date.
const drillHints: Record<Grouping, string> = {
  day: '',
  currency: ' Open a row to list the transactions in that currency (every date).',
  method: ' Open a row to list the transactions of that method and currency (every date).',
  status: ' Open a row to list the transactions with that status and currency (every date).',
};

/** A totals row opens the list it sums: same subject, currency and method or status. */
function openList(by: Grouping, group: TotalsGroup): void {
  const params: Record<string, string> = { currency: group.currency };
  if (by === 'method' && group.value) params.method = group.value;
  if (by === 'status' && group.value) params.status = group.value;
  navigate(group.subject === 'payin' ? 'payins' : 'payouts', { params });
}

export function TotalsSection({ query, filter, valid }: { query: LiveQuery<Totals>; filter: ReconciliationFilter; valid: boolean }) {
  const [by, setBy] = useState<Grouping>('day');
  const rows = query.data?.rows;
  const groups = useMemo(() => (rows ? groupTotals(rows, by) : []), [rows, by]);

  return (
    <Stack gap="sm">
      <Group justify="space-between">
        <Title order={3}>Totals</Title>
        <Group gap="xs">
          <Button variant="subtle" size="xs" onClick={query.reload} loading={query.loading && query.data !== null} disabled={!valid}>
            Refresh
          </Button>
          <ExportCsvButton label="Export totals CSV" input={{ what: 'totals', ...totalsInput(filter) }} disabled={!valid} />
        </Group>
      </Group>
      {query.error && <LoadError title="Totals could not be loaded" message={query.error} onRetry={query.reload} />}
      {!rows && query.loading && <Skeleton h={260} aria-label="Loading totals" />}
      {rows && rows.length === 0 && (
        <Card withBorder data-testid="totals-empty">
          <Text fw={500}>No pay-ins or payouts {filter.from || filter.to ? 'in this range' : 'yet'}.</Text>
          <Text size="sm" c="dimmed">
            Widen the dates or the profile, or create one in the <Anchor href="#/playground">Sandbox playground</Anchor>.
          </Text>
        </Card>
      )}
      {rows && rows.length > 0 && (
        <>
          <TotalsCharts rows={rows} />
          <SegmentedControl aria-label="Group totals" value={by} onChange={(value) => setBy(value as Grouping)} data={groupings} w="fit-content" />
          <TotalsTable groups={groups} by={by} onOpen={by === 'day' ? undefined : (group) => openList(by, group)} />
          <Text size="xs" c="dimmed">
            Exact sums; days are UTC. Pay-ins (money in) and payouts (money out) are never added together.{drillHints[by]}
          </Text>
        </>
      )}
    </Stack>
  );
}
