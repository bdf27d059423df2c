import { Alert, Button, Card, Group, Loader, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { LIMIT_ENVIRONMENT_LABELS, type LimitEnvironment, type LimitView } from '../../../shared/contract';
import { useAction } from '../../components/use-action';
import { formatAmount } from '../transactions/format';
import { useApi, useStores } from '../../stores/context';
import { useStore } from 'zustand';
import { useAccess } from '../../stores/access';
import { RoleNote } from '../../components/RoleNote';

const ENVIRONMENTS = (['any', 'local', 'live'] as const).map((value) => ({ value, label: LIMIT_ENVIRONMENT_LABELS[value] }));
const environmentLabel = (e: LimitEnvironment) => LIMIT_ENVIRONMENT_LABELS[e];

interface Draft {
  environment: LimitEnvironment;
  currency: string;
  perPayoutMax: string;
  dailyMax: string;
}

const EMPTY: Draft = { environment: 'any', currency: '', perPayoutMax: '', dailyMax: '' };

/**
 * Payout limits per currency: a per-payout maximum and a daily total (UTC day, counted per
 * environment). Main enforces them before anything is prepared; every change is audited.
 */
export function LimitsPanel() {
  const api = useApi();
  const mayChange = useAccess().can('limits:set');
  const store = useStores().limits;
  const limits = useStore(store, (state) => state.limits);
  const error = useStore(store, (state) => state.limitsError);
  const save = useAction();
  const remove = useAction();
  const [draft, setDraft] = useState<Draft>(EMPTY);

  useEffect(() => {
    void store.getState().loadLimits();
  }, [store]);

  const submit = async () => {
    const saved = await save.run(
      () => api.invoke('limits:set', { environment: draft.environment, currency: draft.currency, perPayoutMax: draft.perPayoutMax.trim() || null, dailyMax: draft.dailyMax.trim() || null }),
      `Limit for ${draft.currency.toUpperCase()} saved`,
    );
    if (saved) setDraft(EMPTY);
  };
  const edit = (limit: LimitView) => setDraft({ environment: limit.environment, currency: limit.currency, perPayoutMax: limit.perPayoutMax ?? '', dailyMax: limit.dailyMax ?? '' });
  const set = (key: keyof Draft, value: string) => setDraft((current) => ({ ...current, [key]: value }));

  return (
    <Stack gap="md">
      <Card withBorder>
        <Title order={4} mb={4}>
          Payout limits
        </Title>
        <Text size="sm" c="dimmed" mb="sm">
          Checked by Paydesk before a payout is recorded or sent (manual and batch alike). Daily totals count today's payouts (UTC day) in the payout's own environment, except refused or failed ones{limits ? ` — today is ${limits.day}` : ''}.
        </Text>
        {error && (
          <Alert color="red" title="The limits could not be loaded" mb="sm">
            {error}
          </Alert>
        )}
        {limits === null && !error ? (
          <Loader size="sm" aria-label="Loading the limits" />
        ) : limits && limits.limits.length === 0 ? (
          <Text c="dimmed" data-testid="no-limits">
            No limit is set: any amount can be paid out. Add one below.
          </Text>
        ) : (
          limits && (
            <Table aria-label="Payout limits" highlightOnHover>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Currency</Table.Th>
                  <Table.Th>Environment</Table.Th>
                  <Table.Th ta="right">Per payout</Table.Th>
                  <Table.Th ta="right">Daily total</Table.Th>
                  <Table.Th>Used today</Table.Th>
                  <Table.Th />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {limits.limits.map((limit) => (
                  <Table.Tr key={`${limit.currency}-${limit.environment}`} data-limit={`${limit.currency}/${limit.environment}`}>
                    <Table.Td fw={500}>{limit.currency}</Table.Td>
                    <Table.Td>{environmentLabel(limit.environment)}</Table.Td>
                    <Table.Td ta="right" ff="monospace">
                      {limit.perPayoutMax === null ? '—' : formatAmount(limit.perPayoutMax, limit.currency)}
                    </Table.Td>
                    <Table.Td ta="right" ff="monospace">
                      {limit.dailyMax === null ? '—' : formatAmount(limit.dailyMax, limit.currency)}
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm" ff="monospace">
                        {limit.usage.map((u) => `${u.environment}: ${formatAmount(u.usedToday, limit.currency)}`).join(' · ')}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Group gap="xs" justify="flex-end" wrap="nowrap" hidden={!mayChange}>
                        <Button size="xs" variant="default" onClick={() => edit(limit)} aria-label={`Edit the ${limit.currency} limit (${environmentLabel(limit.environment)})`}>
                          Edit
                        </Button>
                        <Button
                          size="xs"
                          variant="subtle"
                          color="red"
                          loading={remove.busy}
                          aria-label={`Remove the ${limit.currency} limit (${environmentLabel(limit.environment)})`}
                          onClick={() => void remove.run(() => api.invoke('limits:remove', { environment: limit.environment, currency: limit.currency }), `Limit for ${limit.currency} removed`)}
                        >
                          Remove
                        </Button>
                      </Group>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )
        )}
        {remove.error && (
          <Text c="red" size="sm" role="alert" mt="xs">
            {remove.error}
          </Text>
        )}
      </Card>
      <RoleNote channel="limits:set" />
      {mayChange && <Card withBorder component="form" onSubmit={(event) => { event.preventDefault(); void submit(); }} aria-label="Set a payout limit">
        <Title order={5} mb="sm">
          Set a limit
        </Title>
        <Group align="flex-start" gap="sm">
          <Select label="Environment" data={ENVIRONMENTS} value={draft.environment} onChange={(v) => v && set('environment', v)} allowDeselect={false} w={190} error={save.fieldErrors.environment} />
          <TextInput label="Currency" placeholder="EUR" value={draft.currency} onChange={(e) => set('currency', e.currentTarget.value.toUpperCase())} w={110} maxLength={3} error={save.fieldErrors.currency} withAsterisk />
          <TextInput label="Per-payout maximum" placeholder="no maximum" value={draft.perPayoutMax} onChange={(e) => set('perPayoutMax', e.currentTarget.value)} w={190} error={save.fieldErrors.perPayoutMax} styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }} />
          <TextInput label="Daily total" placeholder="no daily total" value={draft.dailyMax} onChange={(e) => set('dailyMax', e.currentTarget.value)} w={190} error={save.fieldErrors.dailyMax} styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }} />
          <Button type="submit" mt={25} loading={save.busy}>
            Save limit
          </Button>
        </Group>
        {save.error && !Object.keys(save.fieldErrors).length && (
          <Text c="red" size="sm" role="alert" mt="xs">
            {save.error}
          </Text>
        )}
      </Card>}
    </Stack>
  );
}
