import { Button, Card, Group, Loader, Stack, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useEffect, useMemo, useState } from 'react';
import { useStore } from 'zustand';
import type { BreakQueue } from '../../../../shared/contract';
import { LoadError } from '../../../components/LoadError';
import { ProfileFilter } from '../../../components/ProfileFilter';
import { ThresholdInput } from '../../../components/ThresholdInput';
import { useAccess } from '../../../stores/access';
import { useApi, useStores } from '../../../stores/context';
import { BreakQueues } from './BreakQueues';
import { ImportCard } from './ImportCard';
import { SettlementDetail } from './SettlementDetail';
import { filterProblems, scopeOf } from './statements-store';
import { DailyView, ImportsTable, ProposalsCard, SettlementsTable } from './StatementViews';

/**
 * Reconciliation of the money itself (docs/statements.md): settlement reports and bank statements
 * imported, matched to the ledger and to each other, and what does not agree in break queues.
 */
export function StatementsSection() {
  const api = useApi();
  const store = useStores().statements;
  const filter = useStore(store, (state) => state.filter);
  const [settled] = useDebouncedValue(filter, 300);
  const problems = filterProblems(filter);
  const summary = useStore(store, (state) => state.summary);
  const settlements = useStore(store, (state) => state.settlements);
  const more = useStore(store, (state) => state.settlementsMore);
  const daily = useStore(store, (state) => state.daily);
  const proposals = useStore(store, (state) => state.proposals);
  const imports = useStore(store, (state) => state.imports);
  const loading = useStore(store, (state) => state.loading);
  const error = useStore(store, (state) => state.error);
  const version = useStore(store, (state) => state.version);
  const [open, setOpen] = useState<{ settlementId: string; profileId: string } | null>(null);
  const { can } = useAccess();
  const scope = useMemo(() => scopeOf(settled), [settled]);

  useEffect(() => {
    void store.getState().load();
  }, [store, settled]);
  const counts = useMemo(() => new Map<BreakQueue, number>(summary?.counts.map((c) => [c.queue, c.count])), [summary]);

  return (
    <Stack gap="md">
      <Card withBorder>
        <Group align="flex-start" gap="md" wrap="wrap">
          <TextInput type="date" label="From (UTC)" value={filter.from} onChange={(e) => store.getState().setFilter({ from: e.currentTarget.value })} error={problems.from} w={170} />
          <TextInput type="date" label="To (UTC)" value={filter.to} onChange={(e) => store.getState().setFilter({ to: e.currentTarget.value })} error={problems.to} w={170} />
          <ProfileFilter value={filter.profileId} onChange={(profileId) => store.getState().setFilter({ profileId })} w={200} />
          <ThresholdInput label="Not settled after (days)" description="Threshold of the “Not settled” queue" max={365} value={filter.unsettledAfterDays} onChange={(unsettledAfterDays) => store.getState().setFilter({ unsettledAfterDays })} error={problems.unsettledAfterDays} w={220} />
          <Group gap="xs" mt={24}>
            <Button variant="subtle" size="xs" onClick={() => void store.getState().load()} loading={loading}>
              Refresh
            </Button>
            {can('statements:rematch') && (
              <Button variant="default" size="xs" onClick={() => void api.invoke('statements:rematch', scope.profileId ? { profileId: scope.profileId } : {}).then(() => store.getState().load())}>
                Match again
              </Button>
            )}
          </Group>
        </Group>
        <Text size="xs" c="dimmed" mt="xs">
          Days are UTC: a report line by the day of the pay-in it settles (else its own date, else the day it was imported), a settlement by its value date, a bank line by its booking date, a pay-in by the day it was created.
        </Text>
      </Card>
      {error && <LoadError title="Statements could not be loaded" message={error} onRetry={() => void store.getState().load()} />}
      <ImportCard store={store} />
      <ProposalsCard proposals={proposals} onDecided={() => void store.getState().load()} />
      {!summary && loading && <Loader size="sm" aria-label="Loading statements" />}
      <BreakQueues counts={counts} scope={scope} version={version} onOpenSettlement={(settlementId, profileId) => setOpen({ settlementId, profileId })} />
      <SettlementsTable settlements={settlements} more={more} onOpen={(s) => setOpen({ settlementId: s.settlementId, profileId: s.profileId })} />
      <DailyView rows={daily} />
      <ImportsTable imports={imports} />
      <SettlementDetail settlementId={open?.settlementId ?? null} profileId={open?.profileId ?? null} onClose={() => setOpen(null)} />
    </Stack>
  );
}
