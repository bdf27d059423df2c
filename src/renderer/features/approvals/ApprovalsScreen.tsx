import { Badge, Button, Card, Group, Loader, SegmentedControl, Stack, Table, Text, Title } from '@mantine/core';
import { useState } from 'react';
import type { ApprovalView } from '../../../shared/contract';
import { Amount } from '../../components/Amount';
import { DateTime } from '../../components/DateTime';
import { LoadError } from '../../components/LoadError';
import { RowTable } from '../../components/RowTable';
import { useLiveQuery } from '../../components/use-live-query';
import { navigate } from '../../shell/use-route';
import { useApi } from '../../stores/context';
import { ApprovalDetail } from './ApprovalDetail';
import { STATE_LABELS } from './approval-states';

type Scope = 'queue' | 'mine' | 'decided';

/** A payout's amount, or a batch's total (in words when it has several currencies). */
export function ApprovalAmount({ approval }: { approval: ApprovalView }) {
  return approval.currency.length === 3 ? <Amount value={approval.amount} currency={approval.currency} /> : <>{approval.amount}</>;
}

/** What awaits a decision, what the person submitted, and what was decided; one opened below. */
export function ApprovalsScreen({ id }: { id: string | null }) {
  const api = useApi();
  const [scope, setScope] = useState<Scope>('queue');
  const list = useLiveQuery(() => api.invoke('approvals:list', { scope }), [scope], { pushes: ['approvals:approval-changed'], throttleMs: 200 });
  const openId = id !== null && /^\d+$/.test(id) ? Number(id) : null;
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>Approvals</Title>
        {list.data && (
          <Badge color={list.data.awaiting > 0 ? 'yellow' : 'gray'} variant="light" data-testid="approvals-awaiting">
            {list.data.awaiting} awaiting
          </Badge>
        )}
      </Group>
      <Text size="sm" c="dimmed">
        Payouts and batches the approval policy holds back wait here, sent by nobody until a different person with the approver role approves them. Approving sends at once; rejecting needs a reason.
      </Text>
      <SegmentedControl
        aria-label="Which approvals"
        value={scope}
        onChange={(value) => setScope(value as Scope)}
        data={[
          { value: 'queue', label: 'Awaiting a decision' },
          { value: 'mine', label: 'Submitted by me' },
          { value: 'decided', label: 'Decided' },
        ]}
        w="fit-content"
      />
      {openId !== null && <ApprovalDetail key={openId} id={openId} onClose={() => navigate('approvals')} />}
      {list.error && <LoadError title="The approvals could not be read" message={list.error} onRetry={list.reload} />}
      <Card withBorder p={0}>
        {list.data === null ? (
          <Loader m="md" size="sm" aria-label="Loading approvals" />
        ) : list.data.items.length === 0 ? (
          <Text m="md" c="dimmed" data-testid="no-approvals">
            {scope === 'queue' ? 'Nothing awaits a decision.' : scope === 'mine' ? 'You have submitted nothing for approval.' : 'Nothing has been decided yet.'}
          </Text>
        ) : (
          <RowTable
            aria-label="Approvals"
            highlightOnHover
            data-testid="approvals-table"
            headings={['#', 'What', { label: 'Amount', ta: 'right' }, 'Profile', 'Maker', 'Submitted', 'State', '']}
            items={list.data.items}
            row={(approval) => (
              <Table.Tr key={approval.id} data-approval-id={approval.id} data-state={approval.state} aria-selected={approval.id === openId}>
                <Table.Td ff="monospace">{approval.id}</Table.Td>
                <Table.Td>{approval.kind === 'payout' ? `Payout ${approval.subject}` : `Batch ${approval.batch?.name ?? approval.subject} (${approval.itemCount})`}</Table.Td>
                <Table.Td ta="right">
                  <ApprovalAmount approval={approval} />
                </Table.Td>
                <Table.Td>
                  {approval.profile.name} ({approval.profile.environment})
                </Table.Td>
                <Table.Td>{approval.maker.name}</Table.Td>
                <Table.Td>
                  <DateTime iso={approval.createdAt} />
                </Table.Td>
                <Table.Td>
                  <Badge color={STATE_LABELS[approval.state].color} variant="light">
                    {STATE_LABELS[approval.state].label}
                  </Badge>
                </Table.Td>
                <Table.Td>
                  <Button size="xs" variant="default" onClick={() => navigate('approvals', { id: approval.id })} aria-label={`Open approval ${approval.id}`}>
                    Open
                  </Button>
                </Table.Td>
              </Table.Tr>
            )}
          />
        )}
      </Card>
    </Stack>
  );
}
