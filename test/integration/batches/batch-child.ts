// A Paydesk core in its own process, so the batch test can SIGKILL it mid-batch:
//   node --import tsx test/integration/batches/batch-child.ts <config.json> <run>
// It opens the core on the given data directory with the gateway the test runs (it outlives the
// kill), uploads and starts the batch when the config carries rows, and prints JSON lines.
import { readFileSync } from 'node:fs';
import { createCore } from '../../../src/main/core';
import { coreOptions, uploadBatch, type BatchChildConfig } from './helpers';

const emit = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);

const config = JSON.parse(readFileSync(process.argv[2] as string, 'utf8')) as BatchChildConfig;
const core = await createCore(coreOptions(config));
emit({ event: 'ready', pid: process.pid });
if (config.rows) {
  const batch = await uploadBatch(core.dispatch, config.rows, { fileName: 'killed.csv' });
  emit({ event: 'started', id: batch.id });
}
process.on('SIGTERM', () => void core.close().then(() => process.exit(0)));
