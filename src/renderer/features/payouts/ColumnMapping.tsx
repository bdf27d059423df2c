import { Button, Card, Group, Select, Stack, Table, Text, Title } from '@mantine/core';
import { METHOD_LABELS, PAYOUT_METHODS, type PayoutMethod } from '../../../shared/spec/methods';
import { MAPPING_TARGETS, type Mapping, type ParsedCsv } from './csv';
import { fieldLabel, requirementOf } from './form-fields';

const BATCH_METHODS = PAYOUT_METHODS.filter((m) => m !== 'credit_card');
const NOT_IN_FILE = '';

interface ColumnMappingProps {
  csv: ParsedCsv;
  mapping: Mapping;
  onChange: (mapping: Mapping) => void;
  onBack: () => void;
  onNext: () => void;
}

/** Which column holds which payout field: guessed from the headers, each one the user's to change. */
export function ColumnMapping({ csv, mapping, onChange, onBack, onNext }: ColumnMappingProps) {
  const columns = [{ value: NOT_IN_FILE, label: '— not in the file —' }, ...csv.headers.map((header, i) => ({ value: String(i), label: header || `Column ${i + 1}` }))];
  const sample = csv.rows[0]?.cells ?? [];
  const setColumn = (target: string, value: string | null) => {
    const index = value === null || value === NOT_IN_FILE ? null : Number(value);
    onChange({ columns: { ...mapping.columns, [target]: index }, fixedMethod: target === 'method' && index === null ? (mapping.fixedMethod ?? 'open_banking') : mapping.fixedMethod });
  };

  return (
    <Card withBorder>
      <Stack gap="sm">
        <Group justify="space-between" align="baseline">
          <Title order={4}>Map the columns of {csv.fileName}</Title>
          <Text size="sm" c="dimmed">
            {csv.rows.length.toLocaleString()} rows · {csv.headers.length} columns
          </Text>
        </Group>
        <Text size="sm" c="dimmed">
          Paydesk guessed from the header names; change any that are wrong. Fields a method does not use are ignored for its rows.
        </Text>
        <Table aria-label="Column mapping" verticalSpacing={4}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Payout field</Table.Th>
              <Table.Th>Column in the file</Table.Th>
              <Table.Th>First row</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {MAPPING_TARGETS.map((target) => {
              const index = mapping.columns[target] ?? null;
              return (
                <Table.Tr key={target} data-target={target}>
                  <Table.Td>
                    <Text size="sm" fw={500}>
                      {target === 'method' ? 'Payout method' : fieldLabel(target)}
                    </Text>
                    <Text size="xs" c="dimmed" ff="monospace">
                      {target}
                    </Text>
                    {index === null && target !== 'method' && requirementOf(target) && (
                      <Text size="xs" c={requirementOf(target) === 'required' ? 'red' : 'dimmed'} data-unmapped-required={target}>
                        {requirementOf(target)}: not mapped
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Group gap="xs" wrap="nowrap">
                      <Select aria-label={`Column for ${target}`} data={columns} value={index === null ? NOT_IN_FILE : String(index)} onChange={(value) => setColumn(target, value)} allowDeselect={false} w={220} />
                      {target === 'method' && index === null && (
                        <Select
                          aria-label="Method for every row"
                          data={BATCH_METHODS.map((m) => ({ value: m, label: `Every row: ${METHOD_LABELS[m]}` }))}
                          value={mapping.fixedMethod}
                          onChange={(value) => value && onChange({ ...mapping, fixedMethod: value as PayoutMethod })}
                          allowDeselect={false}
                          w={260}
                        />
                      )}
                    </Group>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" ff="monospace" c={index === null ? 'dimmed' : undefined} truncate="end" maw={260}>
                      {index === null ? '—' : (sample[index] ?? '')}
                    </Text>
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
        <Group justify="space-between">
          <Button variant="default" onClick={onBack}>
            Choose another file
          </Button>
          <Button onClick={onNext}>Check the rows</Button>
        </Group>
      </Stack>
    </Card>
  );
}
