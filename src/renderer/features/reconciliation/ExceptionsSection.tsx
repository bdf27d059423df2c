import { Badge, Group, Loader, Stack, Tabs, Title } from '@mantine/core';
import { useState } from 'react';
import type { ExceptionKind, InvokeOutput } from '../../../shared/contract';
import type { LiveQuery } from '../../components/use-live-query';
import { exceptionKinds } from './exception-kinds';
import { ExceptionList } from './ExceptionList';
import { LoadError } from '../../components/LoadError';

type Summary = InvokeOutput<'reconciliation:summary'>;

interface Props {
  summary: LiveQuery<Summary>;
  scope: { profileId?: string; pendingOlderThanMinutes: number };
  valid: boolean;
  refreshKey: number;
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
