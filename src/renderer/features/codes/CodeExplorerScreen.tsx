import { Badge, Group, Select, Stack, Table, Tabs, Text, TextInput, Title } from '@mantine/core';
import { useMemo, useState } from 'react';
import {
  type CodeCategory,
  type CodeKind,
  PAYIN_STATUS_CATALOGUE,
  PAYOUT_STATUS_CATALOGUE,
  REASON_CATALOGUE,
} from '../../../shared/spec/codes';
import { categoryColors, categoryLabels } from './category';

const catalogues = {
  payin_status: { label: 'Pay-in status (3.1)', entries: PAYIN_STATUS_CATALOGUE },
  payout_status: { label: 'Payout status (3.2)', entries: PAYOUT_STATUS_CATALOGUE },
  reason: { label: 'Reason codes (7.3)', entries: REASON_CATALOGUE },
} as const;

function matches(query: string, ...texts: (string | number)[]): boolean {
  const needle = query.trim().toLowerCase();
  return needle === '' || texts.some((text) => String(text).toLowerCase().includes(needle));
}

/** Every code the API speaks, with what it means and what to do about it (PRODUCT.md capability 6). */
export function CodeExplorerScreen() {
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
            <Table.Th>Category</Table.Th>
            <Table.Th>Final</Table.Th>
            <Table.Th>Retry</Table.Th>
            <Table.Th>Tell the customer</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((entry) => (
            <Table.Tr key={String(entry.code)} data-code={String(entry.code)}>
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
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {rows.length === 0 && <Text c="dimmed">No code matches this search.</Text>}
    </Stack>
  );
}
