import { Alert, Anchor, Badge, Button, Card, Group, List, Progress, SimpleGrid, Skeleton, Stack, Text, Title, Tooltip } from '@mantine/core';
import dayjs from 'dayjs';
import { useEffect } from 'react';
import { useStore } from 'zustand';
import type { SweepState } from '../../../shared/contract';
import { useStores } from '../../stores/context';
import { type ReconciliationFilter, subjectsOf } from './filter';
import { RoleNote } from '../../components/RoleNote';
import { useAccess } from '../../stores/access';
import { routeHash } from '../../shell/use-route';

/** Which reads failed and why, each a link to its transaction; the count says when there were more. */
function SweepFailures({ sweep }: { sweep: SweepState }) {
  if (sweep.failed === 0) return null;
  const more = sweep.failed - sweep.failures.length;
  return (
    <div data-testid="sweep-failures">
      <Text size="sm" fw={600}>
        {sweep.failed === 1 ? 'The read that failed' : `The ${sweep.failed.toLocaleString('en')} reads that failed`}
      </Text>
      <List size="sm" spacing={2}>
        {sweep.failures.map((failure) => (
          <List.Item key={`${failure.subject}:${failure.rowId}`} data-failure={`${failure.subject}:${failure.rowId}`}>
            <Anchor href={routeHash(failure.subject === 'payin' ? 'payins' : 'payouts', { id: failure.rowId })} size="sm" ff="monospace">
              {failure.subject === 'payin' ? 'Pay-in' : 'Payout'} {failure.reference ?? `#${failure.rowId}`}
            </Anchor>
            : {failure.reason}
          </List.Item>
        ))}
      </List>
      {more > 0 && (
        <Text size="xs" c="dimmed">
          and {more.toLocaleString('en')} more, not listed: a sweep names the first {sweep.failures.length}.
        </Text>
      )}
    </div>
  );
}

const stateColors: Record<SweepState['state'], string> = { running: 'blue', done: 'teal', cancelled: 'gray', failed: 'red' };

const counters: { key: keyof SweepState; label: string; hint: string }[] = [
  { key: 'changed', label: 'Changed', hint: 'Reads whose answer moved the status forward' },
  { key: 'verified', label: 'Verified', hint: 'Notified claims the gateway confirmed' },
  { key: 'mismatches', label: 'Mismatches', hint: 'The gateway contradicted a notification' },
  { key: 'failed', label: 'Failed', hint: 'No usable answer: unreachable, refused, or still rate-limited after retries' },
  { key: 'skipped', label: 'Skipped', hint: 'Nothing to read by (a payout without payout_id)' },
  { key: 'rateLimited', label: 'Rate-limit waits', hint: 'HTTP 429 answers, each waited out per Retry-After' },
  { key: 'orphansMatched', label: 'Orphans matched', hint: 'Orphan notifications whose transaction has appeared' },
  { key: 'unknownSettled', label: 'Unknown settled', hint: 'Create calls whose outcome was unknown, settled under their own key first' },
  { key: 'unknownLeft', label: 'Unknown left', hint: 'Unknown outcomes left for a person: see the Unknown outcomes list' },
];

/** The sweep: one status read of every non-final item in scope, paced by the gateway's rate limit. */
export function SweepCard({ filter }: { filter: ReconciliationFilter }) {
  const store = useStores().sweep;
  const { sweep, loaded, busy, error, load, start, cancel } = useStore(store);
  useEffect(() => {
    void load();
  }, [load]);

  const running = sweep?.state === 'running';
  const { can } = useAccess();
  const percent = sweep ? (sweep.total === 0 ? 100 : Math.round((sweep.done / sweep.total) * 100)) : 0;
  const scope = `${filter.subject === 'both' ? 'pay-ins and payouts' : filter.subject === 'payin' ? 'pay-ins' : 'payouts'}${filter.profileId ? ' of the chosen profile' : ''}`;

  return (
    <Card withBorder data-testid="sweep">
      <Group justify="space-between" align="flex-start" mb="sm">
        <div>
          <Title order={3}>Sweep</Title>
          <Text size="sm" c="dimmed">
            Settles create calls whose outcome is unknown (under their own key), then re-reads every non-final {scope} from the gateway, within its rate limit, and settles notified claims.
          </Text>
        </div>
        {!can('reconciliation:sweep-start') ? (
          <RoleNote channel="reconciliation:sweep-start" />
        ) : running ? (
          <Button color="red" variant="light" loading={busy} onClick={() => void cancel()}>
            Cancel sweep
          </Button>
        ) : (
          <Button loading={busy} onClick={() => void start({ ...(filter.profileId ? { profileId: filter.profileId } : {}), subjects: subjectsOf(filter.subject) })}>
            Run sweep
          </Button>
        )}
      </Group>
      {error && (
        <Alert color="red" mb="sm" role="alert" title="Sweep">
          {error}
        </Alert>
      )}
      {!loaded && !error && <Skeleton h={24} aria-label="Loading sweep state" />}
      {loaded && !sweep && <Text size="sm">No sweep has run since Paydesk started.</Text>}
      {sweep && (
        <Stack gap="xs">
          <Group justify="space-between">
            <Group gap="xs">
              <Badge color={stateColors[sweep.state]} data-testid="sweep-state">
                {sweep.state}
              </Badge>
              <Text size="sm" data-testid="sweep-count">
                {sweep.done.toLocaleString('en')} of {sweep.total.toLocaleString('en')} read
              </Text>
            </Group>
            <Text size="xs" c="dimmed">
              started {dayjs(sweep.startedAt).format('HH:mm:ss')}
              {sweep.finishedAt ? ` · ended ${dayjs(sweep.finishedAt).format('HH:mm:ss')}` : ''}
            </Text>
          </Group>
          <Progress value={percent} animated={running} striped={running} size="lg" aria-label="Sweep progress" color={stateColors[sweep.state]} />
          {sweep.total === 0 && <Text size="sm">Nothing to read: every transaction in scope is final.</Text>}
          {running && (
            <Text size="xs" c="dimmed">
              Reads are paced to the gateway&apos;s get-status rate limit; a 429 answer is waited out as its Retry-After asks. You can leave this screen: the sweep goes on.
            </Text>
          )}
          {sweep.error && (
            <Text size="sm" c="red" role="alert">
              {sweep.error}
            </Text>
          )}
          <SimpleGrid cols={{ base: 2, sm: 4, lg: 7 }} spacing="xs">
            {counters.map(({ key, label, hint }) => (
              <Tooltip key={key} label={hint} multiline w={240}>
                <div data-counter={key}>
                  <Text size="xs" c="dimmed">
                    {label}
                  </Text>
                  <Text fw={600} c={key === 'rateLimited' && running && Number(sweep[key]) > 0 ? 'orange' : undefined}>
                    {Number(sweep[key]).toLocaleString('en')}
                  </Text>
                </div>
              </Tooltip>
            ))}
          </SimpleGrid>
          <SweepFailures sweep={sweep} />
        </Stack>
      )}
    </Card>
  );
}
