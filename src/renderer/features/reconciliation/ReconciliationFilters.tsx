import { Card, Group, SegmentedControl, Stack, Text, TextInput } from '@mantine/core';
import { ProfileFilter } from '../../components/ProfileFilter';
import { ThresholdInput } from '../../components/ThresholdInput';
import type { ReconciliationFilter, SubjectChoice } from './filter';

interface Props {
  filter: ReconciliationFilter;
  onChange: (patch: Partial<ReconciliationFilter>) => void;
  /** Field → what is wrong and how to fix it (checked here or by main). */
  errors: Partial<Record<string, string>>;
}

export function ReconciliationFilters({ filter, onChange, errors }: Props) {
  return (
    <Card withBorder>
      <Group align="flex-start" gap="md" wrap="wrap">
        <TextInput type="date" label="From (UTC)" value={filter.from} onChange={(e) => onChange({ from: e.currentTarget.value })} error={errors.from} w={170} />
        <TextInput type="date" label="To (UTC)" value={filter.to} onChange={(e) => onChange({ to: e.currentTarget.value })} error={errors.to} w={170} />
        <Stack gap={4}>
          <Text size="sm" fw={500} id="reconciliation-subject-label">
            Transactions
          </Text>
          <SegmentedControl
            aria-labelledby="reconciliation-subject-label"
            value={filter.subject}
            onChange={(value) => onChange({ subject: value as SubjectChoice })}
            data={[
              { value: 'both', label: 'Both' },
              { value: 'payin', label: 'Pay-ins' },
              { value: 'payout', label: 'Payouts' },
            ]}
          />
        </Stack>
        <ProfileFilter value={filter.profileId} onChange={(profileId) => onChange({ profileId })} error={errors.profileId} w={200} />
        <ThresholdInput label="Pending too long after (minutes)" description="Threshold of the pending and stuck lists" max={525_600} value={filter.pendingMinutes} onChange={(pendingMinutes) => onChange({ pendingMinutes })} error={errors.pendingMinutes ?? errors.pendingOlderThanMinutes} w={250} />
      </Group>
    </Card>
  );
}
