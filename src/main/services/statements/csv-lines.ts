// A CSV statement's lines through its layout, the header first checked: the lines of each batch of
// records at a time. Settlement lines carry whether their key surely appears for the first time
// (FirstOccurrences).
import type { CsvLayout, StatementKind } from '../../../shared/statement-layout';
import type { StagedBankLine } from '../../ledger/repositories/bank-lines';
import type { StagedSettlementLine } from '../../ledger/repositories/settlement-lines';
import { bankLineFrom } from './bank-rows';
import { columnIndexes, RowReader } from './cells';
import type { CsvRecord } from './csv-reader';
import { FirstOccurrences, settlementLineFrom } from './settlement-rows';

export type StagedLine = StagedSettlementLine | StagedBankLine;

export async function* csvLines(batches: AsyncIterable<CsvRecord[]>, kind: StatementKind, layout: CsvLayout): AsyncGenerator<StagedLine[]> {
  let row: RowReader | null = null;
  const firsts = new FirstOccurrences();
  const lineOf =
    kind === 'settlement'
      ? (r: RowReader): StagedSettlementLine => {
          const line = settlementLineFrom(r);
          line.occurrence = firsts.of(line.baseKey);
          return line;
        }
      : (r: RowReader) => bankLineFrom(r, layout.currency);
  for await (const records of batches) {
    const lines: StagedLine[] = [];
    for (const record of records) {
      if (row === null) row = new RowReader(columnIndexes(record.cells, layout.columns, record.line), record.cells, layout);
      else lines.push(lineOf(row.at(record.cells, record.line)));
    }
    yield lines;
  }
}
