import { Alert, Badge, Button, Card, Group, Progress, Stack, Switch, Text, Title } from '@mantine/core';
import { useMemo, useState } from 'react';
import type { ProfileView } from '../../../shared/contract';
import { methodLabel } from '../../../shared/spec/methods';
import { Amount } from '../../components/Amount';
import { VirtualTable, type Column } from '../../components/VirtualTable';
import { formatMoney } from '../transactions/format';
import { totalsOf, type PreviewRow } from './csv';
import { EnvironmentBanner } from './EnvironmentBanner';
import { fieldLabel } from './form-fields';
import { destinationSummary } from '../../../shared/payout-destination';

const describeProblems = (row: PreviewRow) =>
  Object.entries(row.problems)
    .map(([field, problem]) => `${field === 'method' ? 'Method' : fieldLabel(field)}: ${problem}`)
    .join(' · ');

const columns: Column<PreviewRow>[] = [
  { key: 'line', header: 'Line', width: 56, render: (r) => r.line },
  {
    key: 'check',
    header: 'Check',
    width: 110,
    render: (r) =>
      Object.keys(r.problems).length > 0 ? (
        <Badge color="red" variant="light" data-row-state="error">
          {Object.keys(r.problems).length} {Object.keys(r.problems).length === 1 ? 'problem' : 'problems'}
        </Badge>
      ) : r.warning ? (
        <Badge color="yellow" variant="light" data-row-state="warning">
          warning
        </Badge>
      ) : (
        <Badge color="teal" variant="light" data-row-state="ok">
          ok
        </Badge>
      ),
  },
  { key: 'method', header: 'Method', width: 110, render: (r) => (r.method ? methodLabel(r.method) : '—') },
  { key: 'amount', header: 'Amount', width: 200, align: 'right', render: (r) => (r.form.amount === undefined ? '—' : <Amount value={r.form.amount} currency={r.form.currency ?? ''} />) },
  { key: 'beneficiary', header: 'Beneficiary', width: 'minmax(100px, 1fr)', render: (r) => `${r.form.customer?.firstName ?? ''} ${r.form.customer?.lastName ?? ''}`.trim() || '—' },
  { key: 'destination', header: 'Destination', width: 'minmax(150px, 1.2fr)', render: (r) => <Text span size="sm" ff="monospace">{destinationSummary(r.method, r.form.paymentDetails ?? {}) || '—'}</Text> },
  {
    key: 'problems',
    header: 'Problems',
    width: 'minmax(180px, 2fr)',
    render: (r) => (
      <Text span size="sm" c={Object.keys(r.problems).length > 0 ? 'red' : 'yellow.8'} title={describeProblems(r) || r.warning || undefined}>
        {describeProblems(r) || r.warning || ''}
      </Text>
    ),
  },
];

interface BatchPreviewProps {
  fileName: string;
  rows: PreviewRow[];
  profile: ProfileView;
  /** Upload progress (rows stored by main), while starting. */
  uploading: { done: number; total: number } | null;
  error: string | null;
  onBack: () => void;
  onStart: (rows: PreviewRow[]) => void;
}

/**
 * Every row checked with the shared rules, problems named per field; the rows without problems
 * are what a start sends. The environment and the totals are shown next to the start button.
 */
export function BatchPreview({ fileName, rows, profile, uploading, error, onBack, onStart }: BatchPreviewProps) {
  const [onlyProblems, setOnlyProblems] = useState(false);
  const valid = useMemo(() => rows.filter((r) => Object.keys(r.problems).length === 0), [rows]);
  const warned = valid.filter((r) => r.warning !== null).length;
  const invalid = rows.length - valid.length;
  const shown = onlyProblems ? rows.filter((r) => Object.keys(r.problems).length > 0 || r.warning !== null) : rows;
  const totals = useMemo(() => totalsOf(valid), [valid]);
  const live = profile.environment === 'live';

  return (
    <Stack gap="md">
      <Card withBorder>
        <Stack gap="sm">
          <Group justify="space-between" align="baseline">
            <Title order={4}>Check {fileName}</Title>
            <Group gap="xs" data-testid="preview-summary">
              <Badge color="teal" variant="light">
                {valid.length} ready
              </Badge>
              {invalid > 0 && (
                <Badge color="red" variant="light">
                  {invalid} with problems (left out)
                </Badge>
              )}
              {warned > 0 && (
                <Badge color="yellow" variant="light">
                  {warned} over a daily limit
                </Badge>
              )}
            </Group>
          </Group>
          <Switch label="Only rows with problems or warnings" checked={onlyProblems} onChange={(event) => setOnlyProblems(event.currentTarget.checked)} />
          <VirtualTable label="Batch preview" columns={columns} rows={shown} rowKey={(r) => String(r.line)} height={Math.min(420, 44 + shown.length * 40)} empty={<Text c="dimmed">No row has a problem.</Text>} />
        </Stack>
      </Card>
      <Card withBorder>
        <Stack gap="sm">
          <Title order={4}>Start the batch</Title>
          <EnvironmentBanner environment={profile.environment} profileName={profile.name} />
          {valid.length === 0 ? (
            <Text c="red">No row can be sent: fix the file or the mapping.</Text>
          ) : (
            <Text size="sm" data-testid="batch-totals">
              {valid.length} {valid.length === 1 ? 'payout' : 'payouts'}: {totals.map((t) => `${formatMoney(t.amount, t.currency)} (${t.count})`).join(' · ')}
            </Text>
          )}
          <Text size="xs" c="dimmed">
            Every payout goes through the same checks as a manual one (limits included) and is sent exactly once, even if the app is closed or killed meanwhile: the batch resumes at the next start.
          </Text>
          {live && (
            <Text size="sm" c="red">
              A live batch is stored first, then main shows its review (count and totals as it will send them) and starts it only once you confirm there.
            </Text>
          )}
          {error && (
            <Alert color="red" title="The batch was not started" role="alert">
              {error}
            </Alert>
          )}
          {uploading && <Progress value={(uploading.done / Math.max(1, uploading.total)) * 100} aria-label="Storing the batch" />}
          <Group justify="space-between">
            <Button variant="default" onClick={onBack} disabled={uploading !== null}>
              Back to the mapping
            </Button>
            <Button color={live ? 'red' : undefined} onClick={() => onStart(valid)} loading={uploading !== null} disabled={valid.length === 0 || !profile.payoutsEnabled}>
              {live ? `Review LIVE batch of ${valid.length}` : `Start batch of ${valid.length}`}
            </Button>
          </Group>
        </Stack>
      </Card>
    </Stack>
  );
}
