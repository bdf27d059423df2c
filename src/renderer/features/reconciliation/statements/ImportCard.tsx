import { Alert, Autocomplete, Button, Card, Checkbox, FileInput, Group, Progress, SegmentedControl, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useStore } from 'zustand';
import type { CsvLayoutInput } from '../../../../shared/contract';
import { STATEMENT_LIMITS } from '../../../../shared/contract/statements';
import { encodingLabel, FILE_ENCODINGS } from '../../../../shared/file-encoding';
import {
  otherDateReadings,
  DATE_FORMAT_LABELS,
  DATE_FORMATS,
  DELIMITER_LABELS,
  DELIMITERS,
  FIELDS_OF,
  FORMAT_LABELS,
  KIND_LABELS,
  missingFields,
  type StatementKind,
} from '../../../../shared/statement-layout';
import { countOf } from '../../../components/count';
import { useAccess } from '../../../stores/access';
import { fileRefusal, fileSizeText } from './file-size';
import type { StatementsStore } from './statements-store';
import { RowTable } from '../../../components/RowTable';

const NOT_IN_FILE = '';
const MiB = 1024 * 1024;

interface Props {
  store: StatementsStore;
}

/**
 * Imports a file: its kind, the file (refused at once over the limit), its upload with progress, then
 * the mapping step for a CSV — the source, encoding, delimiter, decimal separator, date format and
 * each field's column, proposed by main from the file and remembered per source — with the file's
 * first rows, and the import's answer: how many lines were added and were already there, or the
 * line and the reason that refused it (nothing imported).
 */
export function ImportCard({ store }: Props) {
  const flow = useStore(store, (state) => state.flow);
  const { can, why } = useAccess();
  const allowed = can('statements:import');
  const { stage, kind, inspection, layout, result } = flow;

  const pick = (file: File | null) => {
    if (!file) return;
    const refusal = fileRefusal(file, STATEMENT_LIMITS.csvBytes);
    if (refusal) {
      store.setState((state) => ({ flow: { ...state.flow, error: refusal } }));
      return;
    }
    void store.getState().upload(kind, file);
  };

  return (
    <Card withBorder data-testid="statement-import">
      <Stack gap="sm">
        <Group justify="space-between" align="baseline">
          <Title order={3}>Import a file</Title>
          <Text size="sm" c="dimmed">
            CSV up to {STATEMENT_LIMITS.csvBytes / MiB} MB; camt.053 and MT940 up to {STATEMENT_LIMITS.structuredBytes / MiB} MB
          </Text>
        </Group>
        {!allowed && <Text size="sm" c="dimmed">{why('statements:import')}</Text>}
        <Group align="end" gap="md" wrap="wrap">
          <Stack gap={4}>
            <Text size="sm" fw={500} id="statement-kind-label">
              What it is
            </Text>
            <SegmentedControl
              aria-labelledby="statement-kind-label"
              value={kind}
              disabled={!allowed || stage === 'uploading' || stage === 'importing'}
              onChange={(value) => void store.getState().resetImport(value as StatementKind)}
              data={[
                { value: 'settlement', label: KIND_LABELS.settlement },
                { value: 'bank', label: KIND_LABELS.bank },
              ]}
            />
          </Stack>
          <FileInput
            label={kind === 'settlement' ? 'Settlement report (CSV)' : 'Bank statement (camt.053, MT940 or CSV)'}
            placeholder="Choose a file"
            accept={kind === 'settlement' ? '.csv,text/csv,text/plain' : '.xml,.csv,.sta,.mt940,.txt,text/csv,text/xml,application/xml,text/plain'}
            value={null}
            onChange={pick}
            disabled={!allowed || stage === 'uploading' || stage === 'importing'}
            w={320}
            data-testid="statement-file"
          />
        </Group>
        {stage === 'uploading' && (
          <Stack gap={4}>
            <Text size="sm">
              Sending {flow.fileName}: {fileSizeText(flow.sent)} of {fileSizeText(flow.size)}
            </Text>
            <Progress value={flow.size === 0 ? 0 : (flow.sent / flow.size) * 100} aria-label="Upload progress" />
          </Stack>
        )}
        {flow.error && (
          <Alert color="red" title="The file could not be read" role="alert" data-testid="import-error">
            {flow.error}
          </Alert>
        )}
        {inspection && (stage === 'mapping' || stage === 'importing') && (
          <Stack gap="sm">
            <Text size="sm">
              <strong>{inspection.fileName}</strong>: {FORMAT_LABELS[inspection.format]}, {fileSizeText(inspection.size)}
              {inspection.remembered && inspection.source ? ` · read as ${inspection.source}'s files were before` : ''}
            </Text>
            <Group align="end" gap="md" wrap="wrap">
              <Autocomplete
                label="Source"
                description="Where the file comes from: its layout is remembered under this name"
                data={inspection.sources}
                value={flow.source}
                onChange={(value) => store.getState().setSource(value)}
                onOptionSubmit={(value) => void store.getState().inspect({ source: value })}
                error={flow.fieldErrors.source}
                w={300}
              />
              {inspection.format === 'csv' && <Checkbox label="Remember this layout for the source" checked={flow.remember} onChange={(e) => store.getState().setRemember(e.currentTarget.checked)} />}
            </Group>
            {inspection.format === 'csv' && layout && <LayoutStep store={store} kind={inspection.kind} layout={layout} headers={inspection.headers} preview={inspection.preview} />}
            <Preview headers={inspection.headers} rows={inspection.preview} />
            {result?.outcome === 'refused' && (
              <Alert color="red" title={`Nothing was imported: ${result.line === null ? 'the file' : `line ${result.line.toLocaleString('en')}`} is refused`} role="alert" data-testid="import-refused">
                {result.reason}
              </Alert>
            )}
            <Group justify="space-between">
              <Button variant="default" onClick={() => void store.getState().resetImport()} disabled={stage === 'importing'}>
                Choose another file
              </Button>
              <Button onClick={() => void store.getState().runImport()} loading={stage === 'importing'} disabled={!flow.source.trim() || (inspection.format === 'csv' && (!layout || missingFields(inspection.kind, layout).length > 0))}>
                Import
              </Button>
            </Group>
          </Stack>
        )}
        {stage === 'done' && result?.outcome === 'imported' && (
          <Alert color="teal" title={`${result.import.fileName} imported`} data-testid="import-done">
            {countOf(result.import.lines, 'line', 'lines')} in the file: {result.import.added.toLocaleString('en')} added, {result.import.alreadyThere.toLocaleString('en')} already there.{' '}
            {result.matching.linesMatched > 0 && `${countOf(result.matching.linesMatched, 'line', 'lines')} matched to the ledger by id. `}
            {result.matching.bankLinesMatched > 0 && `${countOf(result.matching.bankLinesMatched, 'bank line', 'bank lines')} matched to settlements by reference. `}
            {result.matching.proposals > 0 && `${countOf(result.matching.proposals, 'match', 'matches')} proposed, for a person to accept.`}
          </Alert>
        )}
      </Stack>
    </Card>
  );
}

/** The file's first rows as they are in it. */
function Preview({ headers, rows }: { headers: string[]; rows: string[][] }) {
  if (rows.length === 0) return null;
  // Wider than the card when the file has many columns: a region the keyboard can scroll too.
  return (
    <div style={{ overflowX: 'auto' }} tabIndex={0} role="region" aria-label="First rows of the file, scrollable">
      <Table aria-label="First rows of the file" verticalSpacing={2} fz="xs" withTableBorder striped>
        <Table.Thead>
          <Table.Tr>
            {headers.map((h, i) => (
              <Table.Th key={i} style={{ whiteSpace: 'nowrap' }}>
                {h || `Column ${i + 1}`}
              </Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((row, r) => (
            <Table.Tr key={r}>
              {row.map((cell, c) => (
                <Table.Td key={c} ff="monospace" style={{ whiteSpace: 'nowrap' }}>
                  {cell}
                </Table.Td>
              ))}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </div>
  );
}

interface LayoutProps {
  store: StatementsStore;
  kind: StatementKind;
  layout: CsvLayoutInput;
  headers: string[];
  /** The file's first rows. */
  preview: string[][];
}

/** How the CSV reads and which column holds which field, each the person's to change. */
function LayoutStep({ store, kind, layout, headers, preview }: LayoutProps) {
  const fields = FIELDS_OF[kind] as Record<string, { label: string; required: boolean }>;
  const firstRow = preview[0] ?? [];
  // The first rows' dates, to warn when they read just as well with day and month the other way round.
  const dateCells = ['booking_date', 'value_date'].flatMap((field) => {
    const index = headers.indexOf(layout.columns[field] ?? '\u0000');
    return index < 0 ? [] : preview.map((row) => row[index] ?? '');
  });
  const otherReadings = otherDateReadings(dateCells, layout.dateFormat);
  const missing = new Set(missingFields(kind, layout));
  const columnChoices = [{ value: NOT_IN_FILE, label: '— not in the file —' }, ...headers.map((h, i) => ({ value: h, label: h || `Column ${i + 1}` }))];
  const set = (patch: Partial<CsvLayoutInput>) => store.getState().setLayout({ ...layout, ...patch });
  const setColumn = (field: string, header: string | null) => {
    const columns = { ...layout.columns };
    if (!header) delete columns[field];
    else columns[field] = header;
    set({ columns });
  };
  return (
    <Stack gap="xs">
      <Group gap="md" align="end" wrap="wrap">
        <Select
          label="Encoding"
          data={FILE_ENCODINGS.map((e) => ({ value: e.value, label: e.label }))}
          value={layout.encoding}
          onChange={(value) => value && void store.getState().inspect({ encoding: value })}
          allowDeselect={false}
          w={260}
          data-testid="statement-encoding"
        />
        <Select
          label="Delimiter"
          data={DELIMITERS.map((d) => ({ value: d, label: DELIMITER_LABELS[d] }))}
          value={layout.delimiter}
          onChange={(value) => value && void store.getState().inspect({ delimiter: value as CsvLayoutInput['delimiter'] })}
          allowDeselect={false}
          w={160}
        />
        <Select
          label="Decimal separator"
          data={[
            { value: '.', label: 'Point: 1,234.56' },
            { value: ',', label: 'Comma: 1.234,56' },
          ]}
          value={layout.decimal}
          onChange={(value) => value && set({ decimal: value as CsvLayoutInput['decimal'] })}
          allowDeselect={false}
          w={200}
        />
        <Select
          label="Dates"
          data={DATE_FORMATS.map((f) => ({ value: f, label: DATE_FORMAT_LABELS[f] }))}
          value={layout.dateFormat}
          onChange={(value) => value && set({ dateFormat: value as CsvLayoutInput['dateFormat'] })}
          allowDeselect={false}
          w={200}
          description={otherReadings.length > 0 ? `These dates read just as well written ${otherReadings.map((f) => DATE_FORMAT_LABELS[f]).join(' or ')}: check whether the day or the month comes first` : undefined}
          data-testid="statement-date-format"
        />
        {kind === 'bank' && !layout.columns.currency && (
          <TextInput
            label="Currency of every line"
            description="The file has no currency column"
            value={layout.currency ?? ''}
            onChange={(e) => set({ currency: e.currentTarget.value.trim().toUpperCase() || undefined })}
            maxLength={3}
            w={200}
          />
        )}
      </Group>
      <Text size="xs" c="dimmed">
        Read as {encodingLabel(layout.encoding)}. If names look wrong in the first rows below, choose the encoding the file was saved in.
      </Text>
      <RowTable
        aria-label="Column mapping"
        verticalSpacing={2}
        headings={['Field', 'Column in the file', 'First row']}
        items={Object.entries(fields)}
        row={([field, spec]) => {
          const header = layout.columns[field] ?? null;
          const index = header === null ? -1 : headers.indexOf(header);
          return (
            <Table.Tr key={field} data-field={field}>
              <Table.Td>
                <Text size="sm" fw={500}>
                  {spec.label}
                </Text>
                {missing.has(field) && (
                  <Text size="xs" c="red">
                    needed: map a column
                  </Text>
                )}
              </Table.Td>
              <Table.Td>
                <Select aria-label={`Column for ${spec.label}`} data={columnChoices} value={header ?? NOT_IN_FILE} onChange={(value) => setColumn(field, value)} allowDeselect={false} w={240} />
              </Table.Td>
              <Table.Td>
                <Text size="sm" ff="monospace" c={index < 0 ? 'dimmed' : undefined} truncate="end" maw={260} title={index < 0 ? undefined : firstRow[index]}>
                  {index < 0 ? '—' : (firstRow[index] ?? '')}
                </Text>
              </Table.Td>
            </Table.Tr>
          );
        }}
      />
    </Stack>
  );
}
