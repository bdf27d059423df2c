// csv-parse in a worker thread: the same records, in the same order, as reading the file on the
// importing thread; a bounded read-ahead (a million-line file is never all in memory); a refusal
// of malformed CSV that names its line after the records before it; the reading of the file
// stopped when the records are no longer wanted.
import { describe, expect, it } from 'vitest';
import { csvBatches, type CsvRecord } from '../../../../src/main/services/statements/csv-reader';
import { StatementFileError } from '../../../../src/main/services/statements/file-kind';
import { csvBatchesInWorker } from '../../../../src/main/services/statements/reader-thread';

const HEADER = 'type,settlement_id,payin_id,method,currency,amount,note\r\n';
const line = (i: number) => `payin,STL-1,p-${i},card,EUR,${10 + (i % 90)}.${String(i % 100).padStart(2, '0')},${i % 7 === 0 ? '"two\nlines, quoted"' : 'plain'}\r\n`;
const file = (count: number, tail = '') => HEADER + Array.from({ length: count }, (_, i) => line(i)).join('') + tail;

/** The text in chunks of `size` bytes, counting how many were taken. */
function chunked(text: string | Buffer, size: number) {
  const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text);
  const source = { taken: 0, chunks: Math.ceil(bytes.length / size) };
  async function* read(): AsyncGenerator<Buffer> {
    for (let at = 0; at < bytes.length; at += size) {
      source.taken += 1;
      yield bytes.subarray(at, at + size);
    }
  }
  return { source, bytes: read() };
}

async function all(batches: AsyncIterable<CsvRecord[]>): Promise<CsvRecord[]> {
  const out: CsvRecord[] = [];
  for await (const batch of batches) out.push(...batch);
  return out;
}

const UTF8 = { encoding: 'utf-8', delimiter: ',' } as const;

describe('csv-parse in a worker thread', () => {
  it('gives the records, and the lines they end on, that reading on this thread gives', async () => {
    const text = file(5_000);
    const inWorker = await all(csvBatchesInWorker(chunked(text, 4096).bytes, UTF8));
    const here = await all(csvBatches(chunked(text, 4096).bytes, UTF8));
    expect(inWorker).toHaveLength(5_001);
    expect(inWorker).toEqual(here);
    // p-0 and p-7 hold a line break inside their quotes: p-7 starts on line 10 and ends on 11.
    expect(inWorker[8]).toEqual({ line: 11, cells: ['payin', 'STL-1', 'p-7', 'card', 'EUR', '17.07', 'two\nlines, quoted'] });
    expect(inWorker[9]?.line).toBe(12);
  });

  it('decodes Windows-1252 in the worker', async () => {
    const text = 'name;amount\r\nJosé Müller;12,50\r\n';
    const records = await all(csvBatchesInWorker(chunked(Buffer.from(text, 'latin1'), 5).bytes, { encoding: 'windows-1252', delimiter: ';' }));
    expect(records).toEqual([
      { line: 1, cells: ['name', 'amount'] },
      { line: 2, cells: ['José Müller', '12,50'] },
    ]);
  });

  it('reads at most a few chunks ahead of the records taken', async () => {
    const { source, bytes } = chunked(file(20_000), 512);
    const reading = csvBatchesInWorker(bytes, UTF8);
    await reading.next();
    // Time for the worker to run ahead if nothing held it back.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await reading.next();
    expect(source.chunks).toBeGreaterThan(1_000);
    expect(source.taken).toBeLessThanOrEqual(8);
    await reading.return(undefined);
  });

  it('hands on the records before malformed CSV, then refuses naming its line', async () => {
    const text = file(3_000, 'payin,STL-1,p-x,card,EUR,1.00,"never closed\r\n');
    const seen: CsvRecord[] = [];
    const refusal = await (async () => {
      try {
        for await (const batch of csvBatchesInWorker(chunked(text, 4096).bytes, UTF8)) seen.push(...batch);
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(StatementFileError);
    expect(refusal).toMatchObject({ reason: 'a quote opened here is never closed' });
    expect((refusal as StatementFileError).line).toBeGreaterThan(3_000);
    expect(seen).toHaveLength(3_001);
  });

  it('stops reading the file when the records are no longer wanted', async () => {
    const { source, bytes } = chunked(file(20_000), 1024);
    const reading = csvBatchesInWorker(bytes, UTF8);
    expect((await reading.next()).done).toBe(false);
    await reading.return(undefined);
    const taken = source.taken;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(source.taken).toBe(taken);
    expect(taken).toBeLessThan(10);
  });
});
