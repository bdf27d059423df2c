// Command-line options of the Paydesk app (`npm start -- [options]`), shared by both entries.
import { parseArgs } from 'node:util';
import { isPostgresAddress } from './ledger/engine/open';
import { defaultDataDir } from './platform/paths';

export interface AppOptions {
  web: boolean;
  dataDir: string;
  /** The PostgreSQL ledger's URL; undefined: the SQLite ledger in the data directory. */
  database: string | undefined;
  port: number;
  help: boolean;
}

export const appUsage = `Usage: npm start -- [options]

Starts Paydesk: the Electron window where Electron is available, otherwise web mode.

Options:
  --web               Run in web mode even when Electron is available: serve the app on
                      127.0.0.1 behind a random session token and print its address.
  --port <n>          Web mode port on 127.0.0.1 (default 0: any free port).
  --data-dir <dir>    Where the ledger and settings live. Default: $PAYDESK_DATA_DIR, else the
                      platform's app-data folder (Linux: ~/.config/Paydesk).
  --database <url>    Keep the ledger in PostgreSQL instead of <data-dir>/ledger.sqlite, e.g.
                      postgres://paydesk@db.example.com:5432/paydesk. Default: $PAYDESK_DATABASE_URL,
                      else SQLite. The emulator's state stays in the data directory.
  -h, --help          Show this help.

Paydesk also starts its embedded gateway emulator (the default "Local emulator" profile, state
in <data-dir>/emulator.sqlite) and its notification listener on 127.0.0.1 (address in Settings).
Credentials are kept only in the OS keychain, never in the data directory.`;

export class OptionsError extends Error {}

export function parseAppOptions(argv: string[], env: NodeJS.ProcessEnv = process.env): AppOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        web: { type: 'boolean', default: false },
        port: { type: 'string', default: '0' },
        'data-dir': { type: 'string' },
        database: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new OptionsError(`${(error as Error).message}\n\n${appUsage}`);
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new OptionsError(`--port must be a whole number from 0 to 65535, got "${values.port}".`);
  }
  const dataDir = values['data-dir'] ?? (env.PAYDESK_DATA_DIR || defaultDataDir(env));
  const database = values.database ?? (env.PAYDESK_DATABASE_URL || undefined);
  if (database !== undefined && !isPostgresAddress(database)) {
    throw new OptionsError('--database takes a PostgreSQL URL (postgres://user@host:5432/database); the SQLite ledger is the file in --data-dir.');
  }
  return { web: values.web, port, dataDir, database, help: values.help };
}
