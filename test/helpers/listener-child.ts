// Runs a notification listener on an existing ledger file in its own process, so a test can kill
// it with SIGKILL right after an acknowledgement and then check what reached the disk.
//   node --import tsx test/helpers/listener-child.ts <ledger file>
// Prints one JSON line {"port": N} once it accepts connections.
import { openLedger } from '../../src/main/ledger/connection';
import { startListener } from '../../src/main/listener/server';

const file = process.argv[2];
if (!file) throw new Error('usage: listener-child.ts <ledger file>');
const db = openLedger({ file });
const listener = await startListener({ db });
process.stdout.write(`${JSON.stringify({ port: listener.port })}\n`);
