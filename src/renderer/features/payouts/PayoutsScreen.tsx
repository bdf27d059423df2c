import { Alert, Group, Loader, Stack, Tabs, Text, Title } from '@mantine/core';
import { navigate } from '../../shell/use-route';
import { useActiveProfile } from '../playground/use-active-profile';
import { TransactionDetail } from '../transactions/TransactionDetail';
import { BatchPanel } from './BatchPanel';
import { LimitsPanel } from './LimitsPanel';
import { NewPayout } from './NewPayout';
import { useStores } from '../../stores/context';
import { payoutList } from '../transactions/list-domains';
import { TransactionList } from '../transactions/TransactionList';
import { RoleNote } from '../../components/RoleNote';
import { useAccess } from '../../stores/access';

const TABS = ['list', 'new', 'batch', 'limits'] as const;
type Tab = (typeof TABS)[number];

/**
 * `#/payouts[?filters]` the list; `?tab=new` a manual payout; `?tab=batch[&batch=<id>]` CSV
 * batches; `?tab=limits` the payout limits; `#/payouts/<id>` one payout's detail.
 */
export function PayoutsScreen({ id, params }: { id: string | null; params: Record<string, string> }) {
  const { profile, loading, error } = useActiveProfile();
  const { can } = useAccess();
  const store = useStores().payoutsList;
  if (id !== null) {
    const rowId = Number(id);
    if (!Number.isSafeInteger(rowId) || rowId <= 0) {
      return (
        <Alert color="yellow" title="No such payout">
          "{id}" is not a payout id. Use the search (Ctrl+K) to find a payout by reference.
        </Alert>
      );
    }
    return <TransactionDetail key={rowId} subject="payout" id={rowId} />;
  }

  const tab: Tab = (TABS as readonly string[]).includes(params.tab ?? '') ? (params.tab as Tab) : 'list';
  const batchId = params.batch && /^\d+$/.test(params.batch) ? Number(params.batch) : null;
  const disabled = profile !== null && !profile.payoutsEnabled;
  const needsProfile = (render: (p: NonNullable<typeof profile>) => React.ReactNode) =>
    profile ? render(profile) : loading ? <Loader size="sm" aria-label="Loading the active profile" /> : <Alert color="red" title="No active profile">{error ?? 'Create or activate a profile in Settings.'}</Alert>;

  return (
    <Stack gap="sm">
      <Group gap="sm" align="baseline">
        <Title order={2}>Payouts</Title>
        {profile && (
          <Text c="dimmed" size="sm">
            through {profile.name}
          </Text>
        )}
      </Group>
      {disabled && (
        <Alert color="yellow" title="Payouts are disabled for sandbox profiles" data-testid="payouts-disabled">
          The active profile “{profile.name}” is the provider sandbox, which has no payout endpoints (spec section 4, rule 3). New payouts and batches are switched off; switch to the local emulator or a live profile in Settings. The list still shows the payouts already in the ledger.
        </Alert>
      )}
      <Tabs value={tab} onChange={(value) => navigate('payouts', value === 'list' || value === null ? {} : { params: { tab: value } })} keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="list">List</Tabs.Tab>
          {can('payouts:create') && (
            <Tabs.Tab value="new" disabled={disabled}>
              New payout
            </Tabs.Tab>
          )}
          {can('batches:create') && (
            <Tabs.Tab value="batch" disabled={disabled && batchId === null}>
              Batch (CSV)
            </Tabs.Tab>
          )}
          <Tabs.Tab value="limits">Limits</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="list" pt="sm">
          <RoleNote channel="payouts:create" />
          <TransactionList domain={payoutList} store={store} params={params} />
        </Tabs.Panel>
        <Tabs.Panel value="new" pt="sm">
          {!disabled && can('payouts:create') && needsProfile((p) => <NewPayout key={p.id} profile={p} />)}
        </Tabs.Panel>
        <Tabs.Panel value="batch" pt="sm">
          {can('batches:create') ? needsProfile((p) => <BatchPanel profile={p} batchId={batchId} />) : <RoleNote channel="batches:create" />}
        </Tabs.Panel>
        <Tabs.Panel value="limits" pt="sm">
          <LimitsPanel />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
