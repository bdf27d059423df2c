import { Badge, Group, Loader, Stack, Tabs, Text, Title } from '@mantine/core';
import { useState } from 'react';
import type { ExceptionKind, ExceptionScope, InvokeOutput } from '../../../shared/contract';
import type { LiveQuery } from '../../components/use-live-query';
import { exceptionKinds } from './exception-kinds';
import { ExceptionList } from './ExceptionList';
import { LoadError } from '../../components/LoadError';

type Summary = InvokeOutput<'reconciliation:summary'>;

interface Props {
  summary: LiveQuery<Summary>;
  scope: ExceptionScope;
  valid: boolean;
  refreshKey: number;
}

/** What the lists hold, in words: the filter's dates and profile; pay-ins and payouts alike. */
function scopeText({ from, to, profileId }: ExceptionScope): string {
  const days = from && to ? `from ${from} to ${to}` : from ? `from ${from} on` : to ? `up to ${to}` : 'of every day';
  return `Pay-ins and payouts ${days} (UTC: a transaction or attempt by the day it was created, a notification by the day it arrived)${profileId ? ', in the chosen profile' : ''}. The Transactions choice narrows the totals and the sweep only: these lists show pay-ins and payouts alike.`;
}

/** Every exception list as a tab with its count; the open tab reads its list page by page. */
export function ExceptionsSection({ summary, scope, valid, refreshKey }: Props) {
  const [kind, setKind] = useState<ExceptionKind>('status_mismatch');
  const counts = new Map(summary.data?.counts.map((c) => [c.kind, c.count]));
  return (
    <Stack gap="xs">
      <Group gap="xs">
        <Title order={3}>Exceptions</Title>
        {summary.loading && <Loader size="xs" aria-label="Counting exceptions" />}
      </Group>
      <Text size="sm" c="dimmed" data-testid="exceptions-scope">
        {scopeText(scope)}
      </Text>
      {summary.error && <LoadError title="Exception counts could not be loaded" message={summary.error} onRetry={summary.reload} />}
      <Tabs value={kind} onChange={(value) => value && setKind(value as ExceptionKind)} keepMounted={false}>
        <Tabs.List aria-label="Exception lists">
          {exceptionKinds.map(({ kind: k, label }) => {
            const count = counts.get(k);
            return (
              <Tabs.Tab
                key={k}
                value={k}
                data-kind={k}
                rightSection={
                  <Badge size="sm" variant={count ? 'filled' : 'light'} color={count ? (k === 'duplicates' ? 'gray' : 'orange') : 'gray'} data-testid={`count-${k}`}>
                    {count === undefined ? '…' : count.toLocaleString('en')}
                  </Badge>
                }
              >
                {label}
              </Tabs.Tab>
            );
          })}
        </Tabs.List>
        {exceptionKinds.map(({ kind: k, label, explains }) => (
          <Tabs.Panel key={k} value={k}>
            <ExceptionList kind={k} label={label} explains={explains} scope={scope} enabled={valid} refreshKey={refreshKey} />
          </Tabs.Panel>
        ))}
      </Tabs>
    </Stack>
  );
}
