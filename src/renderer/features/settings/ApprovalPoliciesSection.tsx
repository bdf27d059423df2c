import { Alert, Button, Card, Group, Loader, NumberInput, Select, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import type { PolicyMode, PolicyView, RuleEnvironment } from '../../../shared/contract';
import { AmountRuleForm, AmountRulesTable, RuleAmountInput, type RuleColumn } from '../../components/AmountRules';
import { LoadError } from '../../components/LoadError';
import { RoleNote } from '../../components/RoleNote';
import { useAction } from '../../components/use-action';
import { useLiveQuery } from '../../components/use-live-query';
import { useAccess } from '../../stores/access';
import { useApi } from '../../stores/context';
import { formatAmount } from '../transactions/format';

const ENVIRONMENTS = ['live', 'local', 'any'] as const;
const MODES: { value: PolicyMode; label: string }[] = [
  { value: 'threshold', label: 'Above an amount' },
  { value: 'always', label: 'Always' },
  { value: 'never', label: 'Never' },
];

const COLUMNS: RuleColumn<PolicyView>[] = [
  {
    header: 'Needs approval',
    cell: (policy) =>
      policy.mode === 'threshold'
        ? [policy.payoutAbove !== null ? `payouts above ${formatAmount(policy.payoutAbove, policy.currency)}` : null, policy.batchAbove !== null ? `batches above ${formatAmount(policy.batchAbove, policy.currency)}` : null].filter(Boolean).join('; ')
        : policy.mode === 'always'
          ? 'every payout and batch'
          : 'nothing',
  },
];

interface Draft {
  environment: RuleEnvironment;
  currency: string;
  mode: PolicyMode;
  payoutAbove: string;
  batchAbove: string;
}

const EMPTY: Draft = { environment: 'live', currency: '', mode: 'threshold', payoutAbove: '', batchAbove: '' };

/**
 * Approval policies per environment and currency (admins set them; everyone reads them): on a
 * team server what they hold back waits for a second person's approval, on a desk its amount is
 * typed again. Every change is audited.
 */
export function ApprovalPoliciesSection() {
  const api = useApi();
  const mayChange = useAccess().can('approvals:set-policy');
  const query = useLiveQuery(() => api.invoke('approvals:policies'), [], { pushes: ['approvals:policies-changed'], throttleMs: 200 });
  const save = useAction();
  const remove = useAction();
  const expiry = useAction();
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [hours, setHours] = useState<number | string>('');
  const set = (key: keyof Draft, value: string) => setDraft((current) => ({ ...current, [key]: value }));
  const edit = (policy: PolicyView) => setDraft({ environment: policy.environment, currency: policy.currency, mode: policy.mode, payoutAbove: policy.payoutAbove ?? '', batchAbove: policy.batchAbove ?? '' });

  const submit = async () => {
    const threshold = draft.mode === 'threshold';
    const saved = await save.run(
      () =>
        api.invoke('approvals:set-policy', {
          environment: draft.environment,
          currency: draft.currency,
          mode: draft.mode,
          payoutAbove: threshold ? draft.payoutAbove.trim() || null : null,
          batchAbove: threshold ? draft.batchAbove.trim() || null : null,
        }),
      `Approval policy for ${draft.currency.toUpperCase()} saved`,
    );
    if (saved) setDraft(EMPTY);
  };

  const data = query.data;
  return (
    <Card withBorder data-testid="approval-policies">
      <Stack gap="sm">
        <Title order={4}>Approval policies</Title>
        <Text size="sm" c="dimmed">
          {data?.team === false
            ? 'On this desk a payout or batch a policy holds back is sent only once its amount is typed again. On a team server it waits for another person with the approver role.'
            : `What a policy holds back is not sent: it waits in Approvals for another person with the approver role${data ? `, ${data.expiryHours} hours at most` : ''}.`}
        </Text>
        {query.error && <LoadError title="The approval policies could not be read" message={query.error} onRetry={query.reload} />}
        {data === null ? (
          <Loader size="sm" aria-label="Loading the approval policies" />
        ) : data.policies.length === 0 ? (
          <Text c="dimmed" data-testid="no-policies">
            No policy is set: nothing needs approval.
          </Text>
        ) : (
          <AmountRulesTable
            label="Approval policies"
            noun="policy"
            rowAttribute="data-policy"
            rules={data.policies}
            columns={COLUMNS}
            mayChange={mayChange}
            onEdit={edit}
            onRemove={(policy) => void remove.run(() => api.invoke('approvals:remove-policy', { environment: policy.environment, currency: policy.currency }), `Approval policy for ${policy.currency} removed`)}
            removing={remove.busy}
          />
        )}
        {remove.error && (
          <Text c="red" size="sm" role="alert">
            {remove.error}
          </Text>
        )}
        <RoleNote channel="approvals:set-policy" />
        {mayChange && (
          <AmountRuleForm label="Set an approval policy" environments={ENVIRONMENTS} draft={draft} set={set} save={save} submitLabel="Save policy" onSubmit={() => void submit()} widths={{ environment: 170, currency: 100 }}>
            <Select label="Approval needed" data={MODES} value={draft.mode} onChange={(v) => v && set('mode', v)} allowDeselect={false} w={200} />
            {draft.mode === 'threshold' && (
              <>
                <RuleAmountInput label="Payouts above" placeholder="no payout rule" value={draft.payoutAbove} onChange={(value) => set('payoutAbove', value)} w={160} error={save.fieldErrors.payoutAbove} />
                <RuleAmountInput label="Batches above (total)" placeholder="no batch rule" value={draft.batchAbove} onChange={(value) => set('batchAbove', value)} w={170} error={save.fieldErrors.batchAbove} />
              </>
            )}
          </AmountRuleForm>
        )}
        {mayChange && data?.team && (
          <Group align="flex-end" gap="sm">
            <NumberInput label="An approval expires after (hours)" min={1} max={720} value={hours === '' ? data.expiryHours : hours} onChange={setHours} w={240} error={expiry.fieldErrors.hours} />
            <Button variant="default" loading={expiry.busy} onClick={() => void expiry.run(() => api.invoke('approvals:set-expiry', { hours: Number(hours === '' ? data.expiryHours : hours) }), 'Approval expiry saved')}>
              Save expiry
            </Button>
          </Group>
        )}
        {expiry.error && !Object.keys(expiry.fieldErrors).length && (
          <Alert color="red" role="alert">
            {expiry.error}
          </Alert>
        )}
      </Stack>
    </Card>
  );
}
