import { Alert, Badge, Button, Group, Stack, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useCallback, useEffect, useMemo } from 'react';
import { useStore } from 'zustand';
import type { PayinView, SavedViewFilters } from '../../../shared/contract';
import { downloadText } from '../../components/download';
import { useAction } from '../../components/use-action';
import { VirtualTable } from '../../components/VirtualTable';
import { navigate, routeHash } from '../../shell/use-route';
import { useApi, useStores } from '../../stores/context';
import { rememberListHash } from '../transactions/back-link';
import { groupDigits } from '../transactions/format';
import { SavedViewsControl } from '../transactions/SavedViewsControl';
import { payinColumns } from './columns';
import { filtersFromParams, filtersFromQuery, filtersToParams, filtersToQuery, hasAnyFilter, queryKey, type PayinFilters } from './filters';
import { PayinFilterBar } from './PayinFilterBar';
import { LoadError } from '../../components/LoadError';

/** Every pay-in in the ledger: filters in the route, keyset pages as the user scrolls, live rows. */
export function PayinsList({ params }: { params: Record<string, string> }) {
  const api = useApi();
  const store = useStores().payinsList;
  const filters = useMemo(() => filtersFromParams(params), [params]);
  const query = useMemo(() => filtersToQuery(filters), [filters]);
  const { rows, total, counting, countError, nextCursor, loading, error, errorFields, arrived } = useStore(store);
  const exporting = useAction();

  useEffect(() => {
    void store.getState().show(query);
    rememberListHash('payin', routeHash('payins', { params: filtersToParams(filters) }));
  }, [store, query, filters]);

  // Stable callbacks: the filter bar and saved views are memoised and must not re-render with every page.
  const setFilters = useCallback((next: PayinFilters) => navigate('payins', { params: filtersToParams(next) }), []);
  const applySaved = useCallback((saved: SavedViewFilters) => setFilters(filtersFromQuery(saved)), [setFilters]);
  const open = useCallback((row: PayinView) => navigate('payins', { id: row.id }), []);
  const loadMore = useCallback(() => void store.getState().loadMore(), [store]);

  const exportCsv = async () => {
    const file = await exporting.run(() => api.invoke('payins:export-csv', query));
    if (!file) return;
    downloadText(file.filename, file.csv, 'text/csv');
    notifications.show({
      color: file.truncated ? 'yellow' : 'teal',
      message: file.truncated ? `Exported the first ${file.rows.toLocaleString()} rows only (the export's limit): narrow the filters for the rest.` : `Exported ${file.rows.toLocaleString()} pay-ins.`,
    });
  };

  return (
    <Stack gap="sm">
      <Group justify="space-between" align="flex-end">
        <Group gap="sm" align="baseline">
          <Title order={2}>Pay-ins</Title>
          <Text c="dimmed" data-testid="payins-total" aria-live="polite" title={countError ?? undefined}>
            {total !== null
              ? `${groupDigits(total)} ${total === 1 ? 'pay-in' : 'pay-ins'}${hasAnyFilter(filters) ? ' match' : ''}`
              : loading || counting
                ? 'Counting…'
                : countError
                  ? 'Not counted'
                  : ''}
          </Text>
          {arrived > 0 && (
            <Badge variant="light" color="teal" data-testid="payins-arrived">
              {arrived} new since loaded
            </Badge>
          )}
        </Group>
        <Group gap="xs" align="flex-end">
          <SavedViewsControl subject="payin" current={query} keyOf={queryKey} onApply={applySaved} />
          <Button variant="default" onClick={() => void store.getState().refresh()} disabled={loading}>
            Refresh
          </Button>
          <Button onClick={() => void exportCsv()} loading={exporting.busy} disabled={total === 0}>
            Export CSV
          </Button>
        </Group>
      </Group>
      <PayinFilterBar filters={filters} onChange={setFilters} fieldErrors={errorFields} />
      {exporting.error && (
        <Alert color="red" title="The CSV export failed" withCloseButton onClose={exporting.reset}>
          {exporting.error}
        </Alert>
      )}
      {error && <LoadError title="The pay-ins could not be loaded" message={error} onRetry={() => void store.getState().refresh()} />}
      <VirtualTable
        label="Pay-ins"
        columns={payinColumns}
        rows={rows}
        rowKey={(p) => String(p.id)}
        onOpen={open}
        onEndReached={loadMore}
        hasMore={nextCursor !== null}
        loading={loading}
        height="calc(100vh - 290px)"
        empty={
          <Text c="dimmed">
            {hasAnyFilter(filters) ? 'No pay-in matches these filters.' : 'No pay-ins yet. Create one in the sandbox playground; it appears here live.'}
          </Text>
        }
      />
    </Stack>
  );
}
