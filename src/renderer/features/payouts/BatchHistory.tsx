import { Alert, Badge, Card, Progress, Table, Text, Title, UnstyledButton } from '@mantine/core';
import { DateTime } from '../../components/DateTime';
import { useEffect } from 'react';
import { useStore } from 'zustand';
import { navigate } from '../../shell/use-route';
import { useStores } from '../../stores/context';
import { RowTable } from '../../components/RowTable';

/** Recent batches with their progress; a batch that was running when the app stopped shows here running again. */
export function BatchHistory() {
  const store = useStores().batches;
  const { batches, batchOrder, batchesError } = useStore(store);
  useEffect(() => {
    void store.getState().loadBatches();
  }, [store]);

  return (
    <Card withBorder>
      <Title order={5} mb="xs">
        Recent batches
      </Title>
      {batchesError && <Alert color="red">{batchesError}</Alert>}
      {batchOrder.length === 0 ? (
        <Text size="sm" c="dimmed">
          No batch yet.
        </Text>
      ) : (
        <RowTable
          aria-label="Recent batches"
          highlightOnHover
          verticalSpacing={4}
          headings={['Batch', 'Created', 'Environment', 'State', { label: 'Progress', w: 220 }]}
          items={batchOrder}
          row={(id) => {
            const b = batches[id];
            if (!b) return null;
            const processed = b.total - b.counts.pending - b.counts.sending;
            const interruptions = b.history.filter((e) => e.kind === 'interrupted').length;
            return (
              <Table.Tr key={id}>
                <Table.Td>
                  <UnstyledButton onClick={() => navigate('payouts', { params: { tab: 'batch', batch: String(id) } })} aria-label={`Open batch ${id} · ${b.fileName}`}>
                    <Text size="sm" fw={500} c="indigo">
                      {id} · {b.fileName}
                    </Text>
                  </UnstyledButton>
                </Table.Td>
                <Table.Td>
                  <Text size="sm"><DateTime iso={b.createdAt} /></Text>
                </Table.Td>
                <Table.Td>
                  <Badge color={b.environment === 'live' ? 'red' : 'teal'} variant={b.environment === 'live' ? 'filled' : 'light'} size="sm">
                    {b.environment === 'live' ? 'LIVE' : b.environment}
                  </Badge>
                </Table.Td>
                <Table.Td>
                  <Text size="sm">{b.state}</Text>
                </Table.Td>
                <Table.Td>
                  <Progress value={b.total === 0 ? 0 : (processed / b.total) * 100} aria-label={`Batch ${id}: ${processed} of ${b.total} processed`} />
                  <Text size="xs" c="dimmed">
                    {processed} / {b.total}
                    {b.counts.refused > 0 ? ` · ${b.counts.refused} refused` : ''}
                    {b.counts.unknown > 0 ? ` · ${b.counts.unknown} unknown` : ''}
                    {interruptions > 0 ? ` · survived ${interruptions} ${interruptions === 1 ? 'interruption' : 'interruptions'}` : ''}
                  </Text>
                </Table.Td>
              </Table.Tr>
            );
          }}
        />
      )}
    </Card>
  );
}
