// The CSV reader's worker thread (reader-thread.ts starts it): a file's chunks come in as messages,
// csv-parse reads them (csv-reader.ts), and the records go back a chunk's worth at a time, their
// lines and cells apart. Each chunk is acknowledged once its records were sent, so the importing
// thread keeps only a few chunks ahead. Malformed CSV ends the work with a refusal naming its line;
// anything else with the error's message. The importing thread ends the worker when it is done.
import { on } from 'node:events';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { csvBatches } from './csv-reader';
import { StatementFileError } from './file-kind';
import type { ReaderInput, ReaderMessage, ReaderTask } from './reader-thread';

if (!parentPort) throw new Error('reader-worker.ts runs as a worker thread');
const port: MessagePort = parentPort;
const task = workerData as ReaderTask;
const post = (message: ReaderMessage) => port.postMessage(message);

/** The file's chunks as they arrive (events.on queues those not yet taken), up to the empty message at its end. */
async function* chunks(): AsyncGenerator<Uint8Array> {
  for await (const [message] of on(port, 'message') as AsyncIterable<[ReaderInput]>) {
    if (!message.chunk) return;
    yield message.chunk;
    // Resumed for the next one: this chunk's records were all sent.
    post({ kind: 'taken' });
  }
}

try {
  for await (const records of csvBatches(chunks(), task)) post({ kind: 'records', lines: records.map((r) => r.line), cells: records.map((r) => r.cells) });
  post({ kind: 'done' });
} catch (error) {
  if (error instanceof StatementFileError) post({ kind: 'refused', line: error.line, reason: error.reason });
  else post({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
}
