// `npm run ledger:copy -- --from <ledger> --to <ledger>`: copies a whole ledger between engines
// (see copy.ts), printing progress and, at the end, what it verified.
import { parseArgs } from 'node:util';
import { openLedger } from '../connection';
import { isPostgresAddress, ledgerAddress, redactedUrl } from '../engine/open';
import { copyLedger } from './copy';
import type { LedgerEngine } from '../engine/types';

const usage = `Usage: npm run ledger:copy -- --from <ledger> --to <ledger>

Copies a Paydesk ledger into an empty one, then verifies row counts, the exact sum per currency
and the audit hash chain. A ledger is a SQLite file (a desk's <data-dir>/ledger.sqlite) or a
PostgreSQL URL (postgres://user@host:5432/database). Stop Paydesk on the source first.
Re-running continues an interrupted copy and never writes a row twice.

Options:
  --from <ledger>   the ledger to copy
  --to <ledger>     the empty ledger to copy into (created if it is a SQLite file)
  -h, --help        show this help`;

function shown(address: string): string {
  return isPostgresAddress(address) ? redactedUrl(new URL(address)) : address;
}

async function main(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: { from: { type: 'string' }, to: { type: 'string' }, help: { type: 'boolean', short: 'h', default: false } }, strict: true }));
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${usage}`);
    return 2;
  }
  if (values.help) {
    console.log(usage);
    return 0;
  }
  if (!values.from || !values.to) {
    console.error(`Both --from and --to are needed.\n\n${usage}`);
    return 2;
  }
  const opened: LedgerEngine[] = [];
  try {
    const from = await openLedger(ledgerAddress(values.from));
    opened.push(from);
    const to = await openLedger(ledgerAddress(values.to));
    opened.push(to);
    console.log(`Copying ${shown(values.from)} into ${shown(values.to)}`);
    let lastTable = '';
    const report = await copyLedger(from, to, {
      onProgress: (table, copied, total) => {
        if (table !== lastTable || copied === total) console.log(`  ${table}: ${copied} of ${total}`);
        lastTable = table;
      },
    });
    const rows = Object.values(report.rows).reduce((a, b) => a + b, 0);
    console.log(`${report.resumed ? 'Continued and verified' : 'Copied and verified'}: ${rows} rows in ${Object.keys(report.rows).length} tables.`);
    for (const [table, sums] of Object.entries(report.sums)) {
      const list = Object.entries(sums).map(([currency, sum]) => `${sum} ${currency}`);
      if (list.length > 0) console.log(`  ${table}: ${list.join(', ')}`);
    }
    console.log(report.auditHead ? `  audit log: ${report.auditHead.seq} entries, head ${report.auditHead.hash}` : '  audit log: empty');
    return 0;
  } catch (error) {
    console.error(`ledger:copy failed: ${(error as Error).message}`);
    return 1;
  } finally {
    for (const engine of opened) await engine.close();
  }
}

process.exitCode = await main(process.argv.slice(2));
