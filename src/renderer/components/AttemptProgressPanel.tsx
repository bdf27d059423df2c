import { Card, Group, Loader, Stack, Text } from '@mantine/core';
import { ATTEMPT_SUBJECT, describeAttemptProgress } from './attempt-progress-text';
import { useAttemptProgress, type ProgressMatch } from './use-attempt-progress';

/**
 * A create call while it is being sent: the try under way, the time since the first one, what
 * happens next (a wait and why, the same key again, or giving up as "unknown") and the policy that
 * bounds it, live from main's pushes. Nothing while `match` is null (no call in flight).
 */
export function AttemptProgressPanel({ match }: { match: ProgressMatch | null }) {
  const { progress, sinceReportMs } = useAttemptProgress(match);
  if (match === null) return null;
  if (progress === null) {
    return (
      <Card withBorder data-testid="attempt-progress" data-phase="starting">
        <Group gap="xs">
          <Loader size="xs" aria-hidden />
          <Text size="sm">Sending the {ATTEMPT_SUBJECT[match.kind]}…</Text>
        </Group>
      </Card>
    );
  }
  const text = describeAttemptProgress(progress, sinceReportMs);
  return (
    <Card withBorder data-testid="attempt-progress" data-phase={progress.phase} data-try={progress.tryNumber}>
      <Stack gap={4}>
        <Group justify="space-between">
          <Group gap="xs">
            {progress.phase !== 'finished' && <Loader size="xs" aria-hidden />}
            <Text fw={600} data-testid="attempt-try" aria-live="polite">
              {text.heading}
            </Text>
          </Group>
          <Text size="sm" c="dimmed" data-testid="attempt-elapsed">
            {text.elapsed}
          </Text>
        </Group>
        <Text size="sm" data-testid="attempt-now">
          {text.now}
        </Text>
        {text.lastAnswer && (
          <Text size="sm" c="dimmed" data-testid="attempt-last-answer">
            {text.lastAnswer}
          </Text>
        )}
        <Text size="xs" c="dimmed" data-testid="attempt-policy">
          {text.policy}
        </Text>
        <Text size="xs" c="dimmed">
          Idempotency-Key <span style={{ fontFamily: 'var(--mantine-font-family-monospace)' }}>{progress.idempotencyKey}</span>
        </Text>
      </Stack>
    </Card>
  );
}
