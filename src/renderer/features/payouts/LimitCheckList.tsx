import { List, Text, ThemeIcon } from '@mantine/core';
import type { LimitCheckResult } from '../../../shared/contract';

/** Each limit that applies, green within it, red over it, in main's words. */
export function LimitCheckList({ result, currency }: { result: LimitCheckResult; currency: string }) {
  if (result.checks.length === 0) {
    return (
      <Text size="sm" c="dimmed" data-testid="limit-check">
        No payout limit is set for {currency} ({result.environment === 'live' ? 'live' : 'this environment'}). Set one under “Limits”.
      </Text>
    );
  }
  return (
    <List spacing={4} size="sm" data-testid="limit-check" center>
      {result.checks.map((check) => (
        <List.Item
          key={`${check.environment}-${check.kind}`}
          data-ok={check.ok}
          icon={
            <ThemeIcon size={18} radius="xl" color={check.ok ? 'teal' : 'red'} aria-label={check.ok ? 'within the limit' : 'over the limit'}>
              <Text size="xs" fw={700} c="white" aria-hidden="true">
                {check.ok ? '✓' : '!'}
              </Text>
            </ThemeIcon>
          }
        >
          <Text size="sm" c={check.ok ? undefined : 'red'}>
            {check.message}
          </Text>
        </List.Item>
      ))}
    </List>
  );
}
