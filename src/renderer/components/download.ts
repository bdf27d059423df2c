import { notifications } from '@mantine/notifications';
import { counted } from '../../shared/counted';

/**
 * Saves text the main process produced (CSV, evidence JSON) as a file, in Electron and web mode
 * alike. A CSV file starts with a UTF-8 byte order mark: without one Excel reads it in the
 * machine's code page and "José Müller" opens as "JosÃ© MÃ¼ller" (Paydesk's own imports drop it).
 */
export function downloadText(filename: string, text: string, type = 'text/plain'): void {
  const parts = type === 'text/csv' ? ['\ufeff', text] : [text];
  const url = URL.createObjectURL(new Blob(parts, { type: `${type};charset=utf-8` }));
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** A CSV export as main answers it: every row up to the file limit, and whether the limit cut it short. */
export interface CsvExport {
  filename: string;
  csv: string;
  rows: number;
  truncated: boolean;
}

/**
 * Saves an export and says what was saved: its rows counted in words (`noun`: one row of it), or,
 * when the file limit cut it short, that only the first rows are in it and `forTheRest` how to get
 * the others.
 */
export function saveCsvExport(file: CsvExport, forTheRest: string, noun: { one: string; many?: string } = { one: 'row' }): void {
  downloadText(file.filename, file.csv, 'text/csv');
  const rows = counted(file.rows, noun.one, noun.many);
  notifications.show({
    color: file.truncated ? 'orange' : 'teal',
    message: file.truncated ? `${file.filename}: the first ${rows} only (the file limit). ${forTheRest}` : `${file.filename}: ${rows} saved.`,
  });
}
