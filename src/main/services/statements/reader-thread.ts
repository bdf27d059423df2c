// A CSV statement is parsed in a worker thread (reader-worker.ts), beside the importing thread that
// reads each record's cells through the layout and stages the lines: csv-parse takes about as long
// as the rest (SQLite's inserts run on the thread that calls them), and the machine has a core for
// each. The importing thread sends the file's chunks as it reads them (at most READ_AHEAD of them
// not yet parsed) and takes the records back in order.
//
// Built, the worker is its own entry beside the main bundle (electron.vite.config.ts: out/main/
// statements-reader.js). Run from the sources (tests, benchmarks), the worker loads its TypeScript
// through tsx, as they do.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Delimiter } from '../../../shared/statement-layout';
import type { CsvRecord } from './csv-reader';
import { StatementFileError } from './file-kind';

/** What the worker is given to start. */
export interface ReaderTask {
  encoding: string;
  delimiter: Delimiter;
}

/** To the worker: the file's next chunk, or none at its end. */
export interface ReaderInput {
  chunk?: Uint8Array;
}

/** From the worker. */
export type ReaderMessage =
  /** A chunk's records: the file's line each ends on, and its cells. */
  | { kind: 'records'; lines: number[]; cells: string[][] }
  | { kind: 'taken' }
  | { kind: 'done' }
  | { kind: 'refused'; line: number | null; reason: string }
  | { kind: 'failed'; message: string };

/** The built worker's file, beside the bundle that starts it. */
const READER_ENTRY = 'statements-reader';

/** Chunks sent and not yet read through: enough to keep the worker busy while a batch is staged. */
const READ_AHEAD = 4;

function startWorker(task: ReaderTask): Worker {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return new Worker(path.join(path.dirname(fileURLToPath(here)), `${READER_ENTRY}.js`), { workerData: task });
  const tsx = pathToFileURL(path.join(path.dirname(createRequire(here).resolve('tsx')), 'esm', 'api', 'index.mjs')).href;
  const entry = here.replace(/[^/]+$/, 'reader-worker.ts');
  const boot = `const { tsImport } = await import(${JSON.stringify(tsx)}); await tsImport(${JSON.stringify(entry)}, import.meta.url);`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(boot)}`), { workerData: task });
}

/**
 * csvBatches (csv-reader.ts) in a worker thread: a CSV file's records, a chunk's worth at a time, in
 * the file's order. Malformed CSV is a StatementFileError naming its line, once the records before
 * it were handed on; the worker is ended when the records are all read, or the reading stops early.
 */
export async function* csvBatchesInWorker(bytes: AsyncIterable<Uint8Array>, task: ReaderTask): AsyncGenerator<CsvRecord[]> {
  const worker = startWorker(task);
  const inbox: ReaderMessage[] = [];
  let wake: (() => void) | null = null;
  const deliver = (message: ReaderMessage) => {
    inbox.push(message);
    wake?.();
  };
  worker.on('message', deliver);
  worker.on('error', (error) => deliver({ kind: 'failed', message: error.message }));
  worker.on('exit', (code) => deliver({ kind: 'failed', message: `the file's reader stopped (exit code ${code})` }));
  const source = bytes[Symbol.asyncIterator]();
  let ahead = 0;
  let sent = false;
  const send = async () => {
    while (!sent && ahead < READ_AHEAD) {
      const next = await source.next();
      if (next.done) {
        sent = true;
        worker.postMessage({} satisfies ReaderInput);
      } else {
        // A copy of its own to hand over: an upload's chunk may share its memory with others.
        const chunk = new Uint8Array(next.value);
        worker.postMessage({ chunk } satisfies ReaderInput, [chunk.buffer]);
        ahead += 1;
      }
    }
  };
  try {
    for (;;) {
      await send();
      while (inbox.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      wake = null;
      const message = inbox.shift()!;
      switch (message.kind) {
        case 'taken':
          ahead -= 1;
          break;
        case 'records':
          yield message.cells.map((cells, i) => ({ line: message.lines[i]!, cells }));
          break;
        case 'done':
          return;
        case 'refused':
          throw new StatementFileError(message.line, message.reason);
        case 'failed':
          throw new Error(`reading the file failed: ${message.message}`);
      }
    }
  } finally {
    worker.removeAllListeners().on('error', () => {});
    await worker.terminate();
  }
}
