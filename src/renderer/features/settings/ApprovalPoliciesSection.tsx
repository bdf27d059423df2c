import { Alert, Button, Card, Group, Loader, NumberInput, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { LIMIT_ENVIRONMENT_LABELS, type PolicyEnvironment, type PolicyMode, type PolicyView } from '../../../shared/contract';
import { LoadError } from '../../components/LoadError';
import { RoleNote } from '../../components/RoleNote';
import { useAction } from '../../components/use-action';
import { useLiveQuery } from '../../components/use-live-query';
import { useAccess } from '../../stores/access';
import { useApi } from '../../stores/context';
import { formatAmount } from '../transactions/format';

const ENVIRONMENTS = (['live', 'local', 'any'] as const).map((value) => ({ value, label: LIMIT_ENVIRONMENT_LABELS[value] }));
const MODES: { value: PolicyMode; label: string }[] = [
  { value: 'threshold', label: 'Above an amount' },
  { value: 'always', label: 'Always' },
  { value: 'never', label: 'Never' },
];
const environmentLabel = (e: PolicyEnvironment) => LIMIT_ENVIRONMENT_LABELS[e];

interface Draft {
  environment: PolicyEnvironment;
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
          <Table aria-label="Approval policies">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Currency</Table.Th>
                <Table.Th>Environment</Table.Th>
                <Table.Th>Needs approval</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {data.policies.map((policy) => (
                <Table.Tr key={`${policy.currency}-${policy.environment}`} data-policy={`${policy.currency}/${policy.environment}`}>
                  <Table.Td fw={500}>{policy.currency}</Table.Td>
                  <Table.Td>{environmentLabel(policy.environment)}</Table.Td>
                  <Table.Td>
                    {policy.mode === 'threshold'
                      ? [policy.payoutAbove !== null ? `payouts above ${formatAmount(policy.payoutAbove, policy.currency)}` : null, policy.batchAbove !== null ? `batches above ${formatAmount(policy.batchAbove, policy.currency)}` : null].filter(Boolean).join('; ')
                      : policy.mode === 'always'
                        ? 'every payout and batch'
                        : 'nothing'}
                  </Table.Td>
                  <Table.Td>
                    <Group gap="xs" justify="flex-end" wrap="nowrap" hidden={!mayChange}>
                      <Button size="xs" variant="default" onClick={() => edit(policy)} aria-label={`Edit the ${policy.currency} policy (${environmentLabel(policy.environment)})`}>
                        Edit
                      </Button>
                      <Button
                        size="xs"
                        variant="subtle"
                        color="red"
                        loading={remove.busy}
                        aria-label={`Remove the ${policy.currency} policy (${environmentLabel(policy.environment)})`}
                        onClick={() => void remove.run(() => api.invoke('approvals:remove-policy', { environment: policy.environment, currency: policy.currency }), `Approval policy for ${policy.currency} removed`)}
                      >
                        Remove
                      </Button>
                    </Group>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
        {remove.error && (
          <Text c="red" size="sm" role="alert">
            {remove.error}
          </Text>
        )}
        <RoleNote channel="approvals:set-policy" />
        {mayChange && (
          <form
            aria-label="Set an approval policy"
            onSubmit={(event) => {
              event.preventDefault();
              void submit();
            }}
          >
            <Group align="flex-start" gap="sm">
              <Select label="Environment" data={ENVIRONMENTS} value={draft.environment} onChange={(v) => v && set('environment', v)} allowDeselect={false} w={170} />
              <TextInput label="Currency" placeholder="EUR" value={draft.currency} onChange={(e) => set('currency', e.currentTarget.value.toUpperCase())} w={100} maxLength={3} error={save.fieldErrors.currency} withAsterisk />
              <Select label="Approval needed" data={MODES} value={draft.mode} onChange={(v) => v && set('mode', v)} allowDeselect={false} w={200} />
              {draft.mode === 'threshold' && (
                <>
                  <TextInput label="Payouts above" placeholder="no payout rule" value={draft.payoutAbove} onChange={(e) => set('payoutAbove', e.currentTarget.value)} w={160} error={save.fieldErrors.payoutAbove} styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }} />
                  <TextInput label="Batches above (total)" placeholder="no batch rule" value={draft.batchAbove} onChange={(e) => set('batchAbove', e.currentTarget.value)} w={170} error={save.fieldErrors.batchAbove} styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }} />
                </>
              )}
              <Button type="submit" mt={25} loading={save.busy}>
                Save policy
              </Button>
            </Group>
            {save.error && !Object.keys(save.fieldErrors).length && (
              <Text c="red" size="sm" role="alert" mt="xs">
                {save.error}
              </Text>
            )}
          </form>
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
