import { FormError } from '../../components/FormError';
import { Button, Card, Group, NumberInput, SimpleGrid, Skeleton, Table, Text, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { noticeThresholdsSchema, type NoticeThresholds } from '../../../shared/contract';
import { LoadError } from '../../components/LoadError';
import { RoleNote } from '../../components/RoleNote';
import { useAction } from '../../components/use-action';
import { useLiveQuery } from '../../components/use-live-query';
import { useAccess } from '../../stores/access';
import { useApi } from '../../stores/context';

type Key = keyof NoticeThresholds;

/** Each threshold in words; `teamOnly`: about approvals, which only a team server has. */
const FIELDS: readonly { key: Key; label: string; unit: string; teamOnly?: boolean }[] = [
  { key: 'approvalReminderMinutes', label: 'Remind the approvers after', unit: 'minutes an approval has waited', teamOnly: true },
  { key: 'approvalEscalationMinutes', label: 'Tell the admins before expiry', unit: 'minutes before an undecided approval expires', teamOnly: true },
  { key: 'silenceMinutes', label: 'Tell of a silent live profile after', unit: 'minutes without a notification while its pay-ins wait' },
  { key: 'declineRatePercent', label: "Tell of a method's decline rate from", unit: 'percent of its final transactions declined' },
  { key: 'declineRateWindowMinutes', label: 'Over a window of', unit: 'minutes' },
  { key: 'declineRateMinimum', label: 'Only with at least', unit: 'final transactions in the window' },
];

/** The bounds the contract checks, read off its schema (one place). */
const bounds = (key: Key) => ({ min: noticeThresholdsSchema.shape[key].minValue ?? 1, max: noticeThresholdsSchema.shape[key].maxValue ?? Number.MAX_SAFE_INTEGER });

/** The watches' thresholds, one set for the ledger: admins change them, others read them. */
export function NoticeThresholdsSection({ team }: { team: boolean }) {
  const api = useApi();
  const { can } = useAccess();
  const query = useLiveQuery(() => api.invoke('notices:get-thresholds'), []);
  const fields = FIELDS.filter((field) => team || !field.teamOnly);
  return (
    <Card withBorder data-testid="notice-thresholds">
      <Title order={3} mb="xs">
        When the watches tell
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        {team
          ? 'These thresholds are the whole team’s: a change applies to everyone and is recorded in the audit log.'
          : 'These thresholds are this desk’s: a change is recorded in the audit log.'}
      </Text>
      {query.error && !query.data && <LoadError title="The thresholds could not be read" message={query.error} onRetry={query.reload} />}
      {!query.data && !query.error && <Skeleton h={120} aria-label="Loading the thresholds" />}
      {query.data &&
        (can('notices:set-thresholds') ? (
          <ThresholdsForm saved={query.data} fields={fields} onSaved={query.reload} />
        ) : (
          <>
            <Table aria-label="Thresholds" withTableBorder maw={720}>
              <Table.Tbody>
                {fields.map((field) => (
                  <Table.Tr key={field.key}>
                    <Table.Th scope="row">{field.label}</Table.Th>
                    <Table.Td data-threshold={field.key}>
                      {query.data?.[field.key].toLocaleString('en')} {field.unit}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
            <RoleNote channel="notices:set-thresholds" />
          </>
        ))}
    </Card>
  );
}

function ThresholdsForm({ saved, fields, onSaved }: { saved: NoticeThresholds; fields: typeof FIELDS; onSaved: () => void }) {
  const api = useApi();
  const action = useAction();
  const [draft, setDraft] = useState<Record<Key, number | string>>(saved);
  // Follow what main reports (a change from another session, or the one just saved).
  useEffect(() => setDraft(saved), [saved]);
  const changed = fields.some((field) => draft[field.key] !== saved[field.key]);
  const save = async () => {
    const input = Object.fromEntries(Object.entries(draft).map(([key, value]) => [key, typeof value === 'number' ? value : Number.NaN])) as NoticeThresholds;
    const result = await action.run(() => api.invoke('notices:set-thresholds', input), 'Thresholds saved');
    if (result) onSaved();
  };
  return (
    <form
      aria-label="Thresholds"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
    >
      <SimpleGrid cols={{ base: 1, md: 2 }} maw={900}>
        {fields.map((field) => (
          <NumberInput
            key={field.key}
            label={field.label}
            description={`${field.unit} (${bounds(field.key).min.toLocaleString('en')} – ${bounds(field.key).max.toLocaleString('en')})`}
            {...bounds(field.key)}
            allowDecimal={false}
            allowNegative={false}
            thousandSeparator=","
            value={draft[field.key]}
            onChange={(value) => {
              setDraft((current) => ({ ...current, [field.key]: value }));
              action.reset();
            }}
            error={action.fieldErrors[field.key]}
          />
        ))}
      </SimpleGrid>
      <FormError action={action} shown={fields.map((field) => field.key)} mt="sm" />
      <Group mt="sm">
        <Button type="submit" loading={action.busy} disabled={!changed}>
          Save thresholds
        </Button>
      </Group>
    </form>
  );
}
