import { Badge, Group, Select, Skeleton, Stack, Table, Tabs, Text, TextInput, Title } from '@mantine/core';
import { useMemo, useState } from 'react';
import type { CodeUsage } from '../../../shared/contract';
import {
  type CodeCategory,
  type CodeKind,
  PAYIN_STATUS_CATALOGUE,
  PAYOUT_STATUS_CATALOGUE,
  REASON_CATALOGUE,
} from '../../../shared/spec/codes';
import { categoryColors, categoryLabels } from './category';
import { CodeRow } from './CodeRow';
import { UnknownCodesSection } from './UnknownCodesSection';
import { usageKey, useCodeUsage } from './use-code-usage';
import { LoadError } from '../../components/LoadError';

const catalogues = {
  payin_status: { label: 'Pay-in status (3.1)', entries: PAYIN_STATUS_CATALOGUE },
  payout_status: { label: 'Payout status (3.2)', entries: PAYOUT_STATUS_CATALOGUE },
  reason: { label: 'Reason codes (7.3)', entries: REASON_CATALOGUE },
} as const;

function matches(query: string, ...texts: (string | number)[]): boolean {
  const needle = query.trim().toLowerCase();
  return needle === '' || texts.some((text) => String(text).toLowerCase().includes(needle));
}

/**
 * Every code the API speaks, with what it means, what to do about it and how many ledger rows carry
 * it; a row opens the transactions that carry its code (PRODUCT.md capability 6).
 */
export function CodeExplorerScreen() {
  const usage = useCodeUsage();
  const [kind, setKind] = useState<CodeKind>('payin_status');
  const [query, setQuery] = useState('');
  const [category, setCategory] = useState<CodeCategory | null>(null);

  const rows = useMemo(
    () =>
      catalogues[kind].entries.filter(
        (entry) => (category === null || entry.category === category) && matches(query, entry.code, entry.meaning, entry.tellCustomer),
      ),
    [kind, query, category],
  );

  return (
    <Stack>
      <Title order={2}>Code explorer</Title>
      {usage.error && (
        <LoadError title="Ledger counts could not be loaded" message={usage.error} onRetry={usage.reload}>
          The catalogue below is complete; only the counts are missing.
        </LoadError>
      )}
      <Tabs value={kind} onChange={(value) => value && setKind(value as CodeKind)}>
        <Tabs.List>
          {Object.entries(catalogues).map(([value, { label, entries }]) => (
            <Tabs.Tab key={value} value={value}>
              {label} · {entries.length}
            </Tabs.Tab>
          ))}
        </Tabs.List>
      </Tabs>
      <Group>
        <TextInput
          aria-label="Search codes"
          placeholder="Search code, meaning or customer text"
          value={query}
          onChange={(event) => setQuery(event.currentTarget.value)}
          w={360}
        />
        <Select
          aria-label="Category"
          placeholder="Any category"
          clearable
          value={category}
          onChange={(value) => setCategory(value as CodeCategory | null)}
          data={Object.entries(categoryLabels)
            .filter(([value]) => value !== 'unknown')
            .map(([value, label]) => ({ value, label }))}
        />
        <Text size="sm" c="dimmed">
          {rows.length} shown
        </Text>
      </Group>
      <Table striped highlightOnHover stickyHeader aria-label="Codes">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Code</Table.Th>
            <Table.Th>Meaning</Table.Th>
            <Table.Th miw={150}>Category</Table.Th>
            <Table.Th>Final</Table.Th>
            <Table.Th>Retry</Table.Th>
            <Table.Th>Tell the customer</Table.Th>
            <Table.Th ta="right" style={{ whiteSpace: 'nowrap' }}>
              Ledger rows
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((entry) => (
            <CodeRow key={String(entry.code)} kind={kind} code={entry.code}>
              <Table.Td>
                <Text ff="monospace" fw={600}>
                  {entry.code}
                </Text>
              </Table.Td>
              <Table.Td>{entry.meaning}</Table.Td>
              <Table.Td>
                <Badge color={categoryColors[entry.category]} variant="light">
                  {categoryLabels[entry.category]}
                </Badge>
              </Table.Td>
              <Table.Td>{entry.final ? 'final' : 'not final'}</Table.Td>
              <Table.Td>{entry.retry.text}</Table.Td>
              <Table.Td>{entry.tellCustomer}</Table.Td>
              <Table.Td ta="right" data-column="rows">
                <UsageCount usage={usage.byCode?.get(usageKey(kind, entry.code))} loading={usage.byCode === null && usage.loading} />
              </Table.Td>
            </CodeRow>
          ))}
        </Table.Tbody>
      </Table>
      {rows.length === 0 && <Text c="dimmed">No code matches this search.</Text>}
      <UnknownCodesSection unknown={usage.unknown} loading={usage.loading} />
    </Stack>
  );
}

function UsageCount({ usage, loading }: { usage: CodeUsage | undefined; loading: boolean }) {
  if (loading) return <Skeleton h={14} w={40} ml="auto" aria-label="Counting" />;
  if (!usage) return <Text c="dimmed">—</Text>;
  return (
    <>
      <Text fw={usage.rows > 0 ? 600 : undefined} c={usage.rows > 0 ? undefined : 'dimmed'}>
        {usage.rows.toLocaleString('en')}
      </Text>
      {usage.notifications > 0 && (
        <Text size="xs" c="dimmed">
          {usage.notifications.toLocaleString('en')} notified
        </Text>
      )}
    </>
  );
}
