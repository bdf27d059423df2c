import { Button, Group, Stack, Text } from '@mantine/core';
import { useCallback, useEffect, useMemo } from 'react';
import { useStore } from 'zustand';
import type { PayoutView } from '../../../shared/contract';
import { VirtualTable } from '../../components/VirtualTable';
import { navigate, routeHash } from '../../shell/use-route';
import { useStores } from '../../stores/context';
import { rememberListHash } from '../transactions/back-link';
import { payoutColumns } from './columns';
import { filtersFromParams, filtersToParams, filtersToQuery, hasAnyFilter, type PayoutFilters } from './filters';
import { PayoutFilterBar } from './PayoutFilterBar';
import { LoadError } from '../../components/LoadError';

/** Every payout in the ledger: filters in the route, keyset pages as the user scrolls, live status. */
export function PayoutsList({ params }: { params: Record<string, string> }) {
  const store = useStores().payouts;
  const filters = useMemo(() => filtersFromParams(params), [params]);
  const query = useMemo(() => filtersToQuery(filters), [filters]);
  const { rows, total, counting, countError, nextCursor, loading, error, errorFields } = useStore(store, (state) => state.list);

  useEffect(() => {
    void store.getState().showList(query);
    rememberListHash('payout', routeHash('payouts', { params: filtersToParams(filters) }));
  }, [store, query, filters]);

  // Stable: the filter bar is memoised and must not re-render with every page.
  const setFilters = useCallback((next: PayoutFilters) => navigate('payouts', { params: filtersToParams(next) }), []);
  const open = useCallback((row: PayoutView) => navigate('payouts', { id: row.id }), []);
  const loadMore = useCallback(() => void store.getState().loadMore(), [store]);

  return (
    <Stack gap="sm">
      <Group justify="space-between" align="flex-end">
        <Text c="dimmed" data-testid="payouts-total" aria-live="polite" title={countError ?? undefined}>
          {total !== null
            ? `${total.toLocaleString()} ${total === 1 ? 'payout' : 'payouts'}${hasAnyFilter(filters) ? ' match' : ''}`
            : loading || counting
              ? 'Counting…'
              : countError
                ? 'Not counted'
                : ''}
        </Text>
        <Button variant="default" onClick={() => void store.getState().refreshList()} disabled={loading}>
          Refresh
        </Button>
      </Group>
      <PayoutFilterBar filters={filters} onChange={setFilters} fieldErrors={errorFields} />
      {error && <LoadError title="The payouts could not be loaded" message={error} onRetry={() => void store.getState().refreshList()} />}
      <VirtualTable
        label="Payouts"
        columns={payoutColumns}
        rows={rows}
        rowKey={(p) => String(p.id)}
        onOpen={open}
        onEndReached={loadMore}
        hasMore={nextCursor !== null}
        loading={loading}
        height="calc(100vh - 340px)"
        empty={<Text c="dimmed">{hasAnyFilter(filters) ? 'No payout matches these filters.' : 'No payouts yet. Make one with "New payout" or upload a CSV batch; it appears here live.'}</Text>}
      />
    </Stack>
  );
}
