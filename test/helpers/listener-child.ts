// Runs a notification listener on an existing ledger in its own process, so a test can kill it with
// SIGKILL right after an acknowledgement and then check what was committed.
//   node --import tsx test/helpers/listener-child.ts <ledger file | postgres URL>
// Prints one JSON line {"port": N} once it accepts connections.
import { openLedger } from '../../src/main/ledger/connection';
import { ledgerAddress } from '../../src/main/ledger/engine/open';
import { startListener } from '../../src/main/listener/server';

const address = process.argv[2];
if (!address) throw new Error('usage: listener-child.ts <ledger file | postgres URL>');
const db = await openLedger(ledgerAddress(address));
const listener = await startListener({ db });
process.stdout.write(`${JSON.stringify({ port: listener.port })}\n`);
