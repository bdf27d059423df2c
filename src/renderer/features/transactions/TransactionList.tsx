import { Alert, Badge, Button, Group, Stack, Text, Title } from '@mantine/core';
import { useCallback, useEffect, useMemo } from 'react';
import { useStore } from 'zustand';
import type { PayinView, PayoutView, SavedViewFilters } from '../../../shared/contract';
import { saveCsvExport } from '../../components/download';
import { KeysetTable } from '../../components/KeysetTable';
import { TWO_LINE_ROW_HEIGHT } from '../../components/VirtualTable';
import { useAction } from '../../components/use-action';
import type { KeysetListStore } from '../../stores/keyset-list';
import { queryKey } from '../../stores/keyset-list';
import { navigate, routeHash } from '../../shell/use-route';
import { useApi } from '../../stores/context';
import { rememberListHash } from './back-link';
import { groupDigits } from './format';
import type { TransactionListDomain } from './list-domains';
import { filtersFromParams, filtersFromQuery, filtersToParams, filtersToQuery, hasAnyFilter, type TransactionFilters, type TransactionQuery } from './list-query';
import { SavedViewsControl } from './SavedViewsControl';
import { TransactionFilterBar } from './TransactionFilterBar';
import { useAccess } from '../../stores/access';
import { requestLandingFocus, useLandingFocus } from '../../components/focus-landing';

interface Props<Row extends PayinView | PayoutView> {
  domain: TransactionListDomain<Row>;
  store: KeysetListStore<TransactionQuery, Row>;
  params: Record<string, string>;
}

/** Every pay-in or payout in the ledger: filters in the route, keyset pages as the user scrolls, live rows that follow the filters. */
export function TransactionList<Row extends PayinView | PayoutView>({ domain, store, params }: Props<Row>) {
  const api = useApi();
  const filters = useMemo(() => filtersFromParams(params), [params]);
  const query = useMemo(() => filtersToQuery(filters), [filters]);
  const total = useStore(store, (state) => state.total);
  const counting = useStore(store, (state) => state.counting || (state.loading && state.total === null));
  const countError = useStore(store, (state) => state.countError);
  const loading = useStore(store, (state) => state.loading);
  const arrived = useStore(store, (state) => state.arrived);
  const errorFields = useStore(store, (state) => state.errorFields);
  const exporting = useAction();
  const mayExport = useAccess().can('payins:export-csv');
  const { subject, screen, noun, exportCsv } = domain;

  useEffect(() => {
    void store.getState().show(query);
    rememberListHash(subject, routeHash(screen, { params: filtersToParams(filters) }));
  }, [store, query, filters, subject, screen]);

  // Stable callbacks: the filter bar and saved views are memoised and must not re-render with every page.
  const setFilters = useCallback((next: TransactionFilters) => navigate(screen, { params: filtersToParams(next) }), [screen]);
  const applySaved = useCallback((saved: SavedViewFilters) => setFilters(filtersFromQuery(saved)), [setFilters]);
  const open = useCallback(
    (row: Row) => {
      requestLandingFocus();
      navigate(screen, { id: row.id });
    },
    [screen],
  );
  const heading = useLandingFocus<HTMLHeadingElement>();
  const rowKey = useCallback((row: Row) => String(row.id), []);

  const exportRows = async () => {
    const file = await exporting.run(() => exportCsv(api, query));
    if (!file) return;
    saveCsvExport(file, 'Narrow the filters to export the rest.', noun);
  };

  const filtered = hasAnyFilter(filters);
  return (
    <Stack gap="sm">
      <Group justify="space-between" align="flex-end">
        <Group gap="sm" align="baseline">
          {domain.titled && (
            <Title order={2} ref={heading} tabIndex={-1}>
              {domain.label}
            </Title>
          )}
          <Text c="dimmed" data-testid={`${screen}-total`} aria-live="polite" title={countError ?? undefined}>
            {total !== null ? `${groupDigits(total)} ${total === 1 ? noun.one : noun.many}${filtered ? (total === 1 ? ' matches' : ' match') : ''}` : counting ? 'Counting…' : countError ? 'Not counted' : ''}
          </Text>
          {arrived > 0 && (
            <Badge variant="light" color="teal" data-testid={`${screen}-arrived`}>
              {arrived} joined since loaded
            </Badge>
          )}
        </Group>
        <Group gap="xs" align="flex-end">
          <SavedViewsControl subject={subject} current={query} keyOf={queryKey} onApply={applySaved} />
          <Button variant="default" onClick={() => void store.getState().refresh()} disabled={loading}>
            Refresh
          </Button>
          {mayExport && (
            <Button onClick={() => void exportRows()} loading={exporting.busy} disabled={total === 0}>
              Export CSV
            </Button>
          )}
        </Group>
      </Group>
      <TransactionFilterBar domain={domain} filters={filters} onChange={setFilters} fieldErrors={errorFields} />
      {exporting.error && (
        <Alert color="red" title="The CSV export failed" withCloseButton onClose={exporting.reset}>
          {exporting.error}
        </Alert>
      )}
      <KeysetTable
        store={store}
        label={domain.label}
        columns={domain.columns}
        rowKey={rowKey}
        onOpen={open}
        errorTitle={`The ${noun.many} could not be loaded`}
        height={domain.tableHeight}
        rowHeight={TWO_LINE_ROW_HEIGHT}
        empty={<Text c="dimmed">{filtered ? `No ${noun.one} matches these filters.` : domain.emptyText}</Text>}
      />
    </Stack>
  );
}
