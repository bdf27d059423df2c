import { Badge, Card, Skeleton, Table, Text, Title } from '@mantine/core';
import type { CodeUsage } from '../../../shared/contract';
import { codeKindLabels } from './code-links';
import { CodeRow } from './CodeRow';

/**
 * Codes the ledger holds that the catalogue does not know (the spec says new ones appear over
 * time): kept and shown as unknown, never dropped.
 */
export function UnknownCodesSection({ unknown, loading }: { unknown: CodeUsage[] | null; loading: boolean }) {
  return (
    <Card withBorder data-testid="unknown-codes">
      <Title order={4}>Seen in the ledger but unknown to the catalogue</Title>
      <Text size="sm" c="dimmed" mb="sm">
        Treat them as not final and ask the provider what they mean; open one to see the transactions that carry it.
      </Text>
      {unknown === null && loading && <Skeleton h={40} aria-label="Loading unknown codes" />}
      {unknown !== null && unknown.length === 0 && <Text size="sm">None: every code in the ledger is in the catalogue.</Text>}
      {unknown !== null && unknown.length > 0 && (
        <Table aria-label="Unknown codes" highlightOnHover>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Code</Table.Th>
              <Table.Th>Kind</Table.Th>
              <Table.Th ta="right">Ledger rows</Table.Th>
              <Table.Th ta="right">Notifications</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {unknown.map((usage) => (
              <CodeRow key={`${usage.kind}:${usage.code}`} kind={usage.kind} code={usage.code}>
                <Table.Td>
                  <Text ff="monospace" fw={600} span>
                    {usage.code}
                  </Text>{' '}
                  <Badge color="dark" variant="outline" size="sm">
                    unknown
                  </Badge>
                </Table.Td>
                <Table.Td>{codeKindLabels[usage.kind]}</Table.Td>
                <Table.Td ta="right" data-column="rows">
                  {usage.rows.toLocaleString('en')}
                </Table.Td>
                <Table.Td ta="right">{usage.notifications.toLocaleString('en')}</Table.Td>
              </CodeRow>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Card>
  );
}
