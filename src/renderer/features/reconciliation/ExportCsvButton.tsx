import { Button, Text, Tooltip } from '@mantine/core';
import type { InvokeInput } from '../../../shared/contract';
import { saveCsvExport } from '../../components/download';
import { useAction } from '../../components/use-action';
import { useApi } from '../../stores/context';

/** Asks main for a CSV file (it writes every row, not just the page on screen) and saves it. */
export function ExportCsvButton({ input, label, disabled }: { input: InvokeInput<'reconciliation:export-csv'>; label: string; disabled?: boolean }) {
  const api = useApi();
  const action = useAction();
  const exportCsv = async () => {
    const file = await action.run(() => api.invoke('reconciliation:export-csv', input));
    if (!file) return;
    saveCsvExport(file, 'Narrow the filters to export the rest.');
  };
  return (
    <>
      <Tooltip label="Every row that matches the filters, as a spreadsheet-safe CSV file">
        <Button variant="default" size="xs" loading={action.busy} disabled={disabled} onClick={() => void exportCsv()}>
          {label}
        </Button>
      </Tooltip>
      {action.error && (
        <Text size="xs" c="red" role="alert">
          Export failed: {action.error}
        </Text>
      )}
    </>
  );
}
