import { Stack, Tabs, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useStore } from 'zustand';
import { useLiveQuery } from '../../components/use-live-query';
import { useApi, useProfiles, useStores } from '../../stores/context';
import { defaultFilter, exceptionScope, filterProblems, type ReconciliationFilter, totalsInput } from './filter';
import { ExceptionsSection } from './ExceptionsSection';
import { ReconciliationFilters } from './ReconciliationFilters';
import { useRememberedThreshold } from './remembered-threshold';
import { SweepCard } from './SweepCard';
import { TotalsSection } from './TotalsSection';
import { StatementsSection } from './statements/StatementsSection';
import { navigate, useRoute } from '../../shell/use-route';

/**
 * Finance's reconciliation (PRODUCT.md): the ledger (exact totals, every exception, the sweep, CSV
 * exports) and its statements (settlement reports and bank statements matched to it), each a tab:
 * #/reconciliation and #/reconciliation/statements.
 */
export function ReconciliationScreen() {
  const [route] = useRoute();
  const tab = route.id === 'statements' ? 'statements' : 'ledger';
  return (
    <Stack>
      <Title order={2}>Reconciliation</Title>
      <Tabs value={tab} onChange={(value) => navigate('reconciliation', value === 'statements' ? { id: 'statements' } : {})} keepMounted={false}>
        <Tabs.List aria-label="Reconcile">
          <Tabs.Tab value="ledger">Ledger</Tabs.Tab>
          <Tabs.Tab value="statements">Statements</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="ledger" pt="md">
          <LedgerReconciliation />
        </Tabs.Panel>
        <Tabs.Panel value="statements" pt="md">
          <StatementsSection />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}

/** The ledger's own reconciliation: totals, exceptions, the sweep. */
function LedgerReconciliation() {
  const api = useApi();
  const profilesLoaded = useProfiles((state) => state.profiles !== null);
  const loadProfiles = useProfiles((state) => state.load);
  useEffect(() => {
    if (!profilesLoaded) void loadProfiles();
  }, [profilesLoaded, loadProfiles]);

  const stores = useStores();
  const [filter, setFilter] = useState<ReconciliationFilter>(() => {
    const saved = stores.app.getState().settings?.reconciliationPendingMinutes;
    return saved === undefined ? defaultFilter() : { ...defaultFilter(), pendingMinutes: saved };
  });
  // Typing a threshold or a date should not fire a query per keystroke.
  const [settled] = useDebouncedValue(filter, 300);
  const problems = filterProblems(settled);
  const applyThreshold = useCallback((minutes: number) => setFilter((f) => (f.pendingMinutes === minutes ? f : { ...f, pendingMinutes: minutes })), []);
  const thresholdTyped = useRememberedThreshold(settled.pendingMinutes, problems.pendingMinutes === undefined, applyThreshold);
  const valid = Object.keys(problems).length === 0;
  const totalsArgs = useMemo(() => totalsInput(settled), [settled]);
  const scope = useMemo(() => exceptionScope(settled), [settled]);

  const totals = useLiveQuery(() => api.invoke('reconciliation:totals', totalsArgs), [JSON.stringify(totalsArgs)], {
    enabled: valid,
    pushes: ['payins:payin-changed', 'payouts:payout-changed'],
    throttleMs: 3_000,
  });
  const summary = useLiveQuery(() => api.invoke('reconciliation:summary', scope), [JSON.stringify(scope)], {
    enabled: valid,
    pushes: ['payins:payin-changed', 'payouts:payout-changed', 'notifications:notification-changed'],
    throttleMs: 2_000,
  });

  // When a sweep ends, everything it read may have moved: reload the figures and the open list.
  const [refreshKey, setRefreshKey] = useState(0);
  const sweepState = useStore(stores.sweep, (state) => state.sweep?.state);
  const previous = useRef(sweepState);
  const { reload: reloadTotals } = totals;
  const { reload: reloadSummary } = summary;
  useEffect(() => {
    if (previous.current === 'running' && sweepState !== 'running') {
      reloadTotals();
      reloadSummary();
      setRefreshKey((key) => key + 1);
    }
    previous.current = sweepState;
  }, [sweepState, reloadTotals, reloadSummary]);

  const errors = { ...totals.fieldErrors, ...summary.fieldErrors, ...problems };
  return (
    <Stack>
      <ReconciliationFilters
        filter={filter}
        onChange={(patch) => {
          if (patch.pendingMinutes !== undefined) thresholdTyped();
          setFilter((f) => ({ ...f, ...patch }));
        }}
        errors={errors}
      />
      <SweepCard filter={settled} />
      <TotalsSection query={totals} filter={settled} valid={valid} />
      <ExceptionsSection summary={summary} scope={scope} valid={valid} refreshKey={refreshKey} />
    </Stack>
  );
}
