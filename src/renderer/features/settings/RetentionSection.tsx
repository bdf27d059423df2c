import { Alert, Badge, Button, Card, Group, NumberInput, Skeleton, Stack, Text, Title } from '@mantine/core';
import { DateTime } from '../../components/DateTime';
import { useEffect, useState } from 'react';
import type { ProfileView, RetentionPolicy, RetentionView } from '../../../shared/contract';
import { LoadError } from '../../components/LoadError';
import { useAction } from '../../components/use-action';
import { useLiveQuery } from '../../components/use-live-query';
import { useApi } from '../../stores/context';
import { formatTime } from '../transactions/format';

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/**
 * How much of what the listener received but nobody can apply (malformed notifications and
 * orphans) the selected profile keeps, what the rule has dropped, and the rule itself. Main
 * applies a change at once and audits it; it also runs the rule by itself.
 */
export function RetentionSection({ profile }: { profile: ProfileView }) {
  const api = useApi();
  // The numbers move as notifications arrive and the rule runs: read again now and then.
  const query = useLiveQuery(() => api.invoke('settings:get-notification-retention'), [], { pushes: ['notifications:notification-changed'], throttleMs: 5_000 });
  const view = query.data?.find((candidate) => candidate.profileId === profile.id);
  return (
    <Card withBorder data-testid="retention">
      <Title order={4}>Notification retention · {profile.name}</Title>
      <Text size="sm" c="dimmed" mb="sm">
        Malformed notifications and orphans (about a transaction the ledger does not hold) can be posted by anyone who knows the listener path. Their raw bodies and
        headers are kept up to this rule, newest first, orphans before malformed ones; beyond it a malformed notification is deleted and an orphan keeps its ids and
        status without body and headers. What is kept is never cut.
      </Text>
      {query.error && !view && <LoadError title="The retention rule could not be read" message={query.error} onRetry={query.reload} />}
      {!view && !query.error && <Skeleton h={80} aria-label="Loading the retention rule" />}
      {view && <RetentionDetails key={profile.id} view={view} onSaved={query.reload} />}
    </Card>
  );
}

function RetentionDetails({ view, onSaved }: { view: RetentionView; onSaved: () => void }) {
  const api = useApi();
  const action = useAction();
  const [draft, setDraft] = useState<Record<keyof RetentionPolicy, number | string>>(view.policy);
  // Follow the rule main reports (a change made in another window, or the one just saved).
  const { maxCount, maxMiB, maxAgeDays } = view.policy;
  useEffect(() => setDraft({ maxCount, maxMiB, maxAgeDays }), [maxCount, maxMiB, maxAgeDays]);
  const changed = draft.maxCount !== maxCount || draft.maxMiB !== maxMiB || draft.maxAgeDays !== maxAgeDays;
  const complete = typeof draft.maxCount === 'number' && typeof draft.maxMiB === 'number' && typeof draft.maxAgeDays === 'number';
  const save = async () => {
    const saved = await action.run(
      () => api.invoke('settings:update-notification-retention', { profileId: view.profileId, maxCount: Number(draft.maxCount), maxMiB: Number(draft.maxMiB), maxAgeDays: Number(draft.maxAgeDays) }),
      'Retention rule saved and applied',
    );
    if (saved) onSaved();
  };
  const field = (key: keyof RetentionPolicy, label: string, description: string, min: number, max: number) => (
    <NumberInput
      label={label}
      description={description}
      min={min}
      max={max}
      allowDecimal={false}
      allowNegative={false}
      thousandSeparator=","
      value={draft[key]}
      onChange={(value) => {
        setDraft((current) => ({ ...current, [key]: value }));
        action.reset();
      }}
      error={action.fieldErrors[key]}
      w={200}
    />
  );
  const { kept, dropped } = view;
  return (
    <Stack gap="sm">
      <Group gap="xs" data-testid="retention-usage">
        <Text size="sm">
          Kept now: <b data-testid="retention-kept-count">{kept.count.toLocaleString('en')}</b> notifications, {size(kept.bytes)}.
        </Text>
        <Text size="sm" c="dimmed" data-testid="retention-dropped">
          Dropped so far: {dropped.malformedDeleted.toLocaleString('en')} malformed deleted, {dropped.orphanBodiesPruned.toLocaleString('en')} orphan bodies,{' '}
          {size(dropped.bytes)}
          {dropped.lastAt ? `, last at ${formatTime(dropped.lastAt)}` : ''}.
        </Text>
      </Group>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        <Group align="flex-start">
          {field('maxCount', 'Keep at most', 'notifications (10 – 1,000,000)', 10, 1_000_000)}
          {field('maxMiB', 'Of at most', 'MiB of bodies and headers', 1, 102_400)}
          {field('maxAgeDays', 'For at most', 'days', 1, 3_650)}
          <Button type="submit" mt={24} loading={action.busy} disabled={!changed || !complete}>
            Save and apply
          </Button>
        </Group>
      </form>
      {action.error && Object.keys(action.fieldErrors).length === 0 && (
        <Alert color="red" role="alert">
          {action.error}
        </Alert>
      )}
      <Group gap="xs">
        {view.isDefault ? (
          <Badge variant="light" color="gray" data-testid="retention-rule-state">
            default rule
          </Badge>
        ) : (
          <Badge variant="light" color="blue" data-testid="retention-rule-state">
            set <DateTime iso={view.changedAt} />
          </Badge>
        )}
        <Text size="xs" c="dimmed">
          Every change is recorded in the audit log. The rule also runs every ten minutes and soon after such notifications pile up.
        </Text>
      </Group>
    </Stack>
  );
}
