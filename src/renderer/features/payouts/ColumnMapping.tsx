import { Alert, Button, Card, Group, Select, Stack, Table, Text, Title } from '@mantine/core';
import { METHOD_LABELS, PAYOUT_METHODS, type PayoutMethod } from '../../../shared/spec/methods';
import { countOf } from '../../components/count';
import { MAPPING_TARGETS, TEMPLATE_ADVICE, type Mapping, type ParsedCsv } from './csv';
import { encodingLabel, FILE_ENCODINGS, type DetectedEncoding } from '../../../shared/file-encoding';
import { fieldLabel, requirementOf } from './form-fields';

const BATCH_METHODS = PAYOUT_METHODS.filter((m) => m !== 'credit_card');
const NOT_IN_FILE = '';

interface ColumnMappingProps {
  csv: ParsedCsv;
  mapping: Mapping;
  /** The encoding found for the file (csv.encoding is the one it is read in now). */
  detected: DetectedEncoding;
  /** Why the file could not be read or checked (in another encoding, say). */
  error: string | null;
  onEncoding: (encoding: string) => void;
  onChange: (mapping: Mapping) => void;
  onBack: () => void;
  onNext: () => void;
}

/**
 * How the file is read and which column holds which payout field: the encoding found from its
 * bytes and the columns guessed from its headers, each one the user's to change.
 */
export function ColumnMapping({ csv, mapping, detected, error, onEncoding, onChange, onBack, onNext }: ColumnMappingProps) {
  const columns = [{ value: NOT_IN_FILE, label: '— not in the file —' }, ...csv.headers.map((header, i) => ({ value: String(i), label: header || `Column ${i + 1}` }))];
  const sample = csv.rows[0]?.cells ?? [];
  const encodings = FILE_ENCODINGS.some((e) => e.value === csv.encoding) ? FILE_ENCODINGS : [...FILE_ENCODINGS, { value: csv.encoding, label: csv.encoding }];
  const referenceColumn = mapping.columns.merchantReference ?? null;
  const withoutReference = referenceColumn === null ? csv.rows.length : csv.rows.filter((row) => (row.cells[referenceColumn] ?? '').trim() === '').length;
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
            {countOf(csv.rows.length, 'row', 'rows')} · {countOf(csv.headers.length, 'column', 'columns')}
          </Text>
        </Group>
        <Group gap="sm" align="end" wrap="wrap">
          <Select
            label="File encoding"
            data={encodings.map((e) => ({ value: e.value, label: e.value === detected.encoding ? `${e.label} · found in the file` : e.label }))}
            value={csv.encoding}
            onChange={(value) => value && onEncoding(value)}
            allowDeselect={false}
            w={440}
            data-testid="file-encoding"
          />
          <Text size="sm" c="dimmed" data-testid="encoding-note" maw={520}>
            {csv.encoding === detected.encoding
              ? `Read as ${encodingLabel(csv.encoding)}${detected.bom ? ' (the file starts with its byte order mark)' : ', as found from its bytes'}. If names look wrong in “First row” below, choose the encoding the file was saved in.`
              : `Read as ${encodingLabel(csv.encoding)}, as you chose; the file looked like ${encodingLabel(detected.encoding)}.`}
          </Text>
        </Group>
        {error && (
          <Alert color="red" title="The rows could not be checked" role="alert">
            {error}
          </Alert>
        )}
        {withoutReference > 0 && (
          <Alert color="yellow" title={`${countOf(withoutReference, 'row has', 'rows have')} no merchantReference`} data-testid="reference-advice">
            {TEMPLATE_ADVICE}
          </Alert>
        )}
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
