import { Alert, Card, Loader, Stack, Text, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import type { LimitView, RuleEnvironment } from '../../../shared/contract';
import { AmountRuleForm, AmountRulesTable, RuleAmountInput, type RuleColumn } from '../../components/AmountRules';
import { useAction } from '../../components/use-action';
import { formatAmount } from '../transactions/format';
import { useApi, useStores } from '../../stores/context';
import { useStore } from 'zustand';
import { useAccess } from '../../stores/access';
import { RoleNote } from '../../components/RoleNote';
import { DuplicateWindow } from './DuplicateWindow';

const ENVIRONMENTS = ['any', 'local', 'live'] as const;

const COLUMNS: RuleColumn<LimitView>[] = [
  { header: 'Per payout', amount: true, cell: (limit) => (limit.perPayoutMax === null ? '—' : formatAmount(limit.perPayoutMax, limit.currency)) },
  { header: 'Daily total', amount: true, cell: (limit) => (limit.dailyMax === null ? '—' : formatAmount(limit.dailyMax, limit.currency)) },
  {
    header: 'Used today',
    cell: (limit) => (
      <Text size="sm" ff="monospace">
        {limit.usage.map((u) => `${u.environment}: ${formatAmount(u.usedToday, limit.currency)}`).join(' · ')}
      </Text>
    ),
  },
];

interface Draft {
  environment: RuleEnvironment;
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
            <AmountRulesTable
              label="Payout limits"
              noun="limit"
              rowAttribute="data-limit"
              highlightOnHover
              rules={limits.limits}
              columns={COLUMNS}
              mayChange={mayChange}
              onEdit={edit}
              onRemove={(limit) => void remove.run(() => api.invoke('limits:remove', { environment: limit.environment, currency: limit.currency }), `Limit for ${limit.currency} removed`)}
              removing={remove.busy}
            />
          )
        )}
        {remove.error && (
          <Text c="red" size="sm" role="alert" mt="xs">
            {remove.error}
          </Text>
        )}
      </Card>
      <RoleNote channel="limits:set" />
      {mayChange && (
        <AmountRuleForm label="Set a payout limit" title="Set a limit" environments={ENVIRONMENTS} draft={draft} set={set} save={save} submitLabel="Save limit" onSubmit={() => void submit()} widths={{ environment: 190, currency: 110 }}>
          <RuleAmountInput label="Per-payout maximum" placeholder="no maximum" value={draft.perPayoutMax} onChange={(value) => set('perPayoutMax', value)} w={190} error={save.fieldErrors.perPayoutMax} />
          <RuleAmountInput label="Daily total" placeholder="no daily total" value={draft.dailyMax} onChange={(value) => set('dailyMax', value)} w={190} error={save.fieldErrors.dailyMax} />
        </AmountRuleForm>
      )}
      <DuplicateWindow days={limits?.duplicateWindowDays ?? null} />
    </Stack>
  );
}
