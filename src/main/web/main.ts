// Web-mode entry (plain Node, no Electron): `node out/main/web.js [options]`, normally via `npm start`.
//
// The server listens and prints its address before the core exists: loading the core's code
// (zod, jose, ky, SQLite…) and opening the ledger take a few hundred ms, which the browser spends
// opening the page and parsing the bundle anyway. The page and its assets need no core; a
// contract call that arrives before the core is up waits for it (see lateDispatch). So the
// address comes with "starting", and a second line says "ready" — or, if the core fails (a ledger
// written by a newer Paydesk), the reason and that the address no longer answers.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Core } from '../core';
import { DESK_LOG_FILE, jsonLogger, logLevelFromEnv, type Logger } from '../logger';
import { redactedUrl } from '../ledger/engine/open';
import { appUsage, OptionsError, parseAppOptions } from '../options';
import { EventBus } from '../services/event-bus';
import { stopRequested } from '../stop-signals';
import { APP_VERSION } from '../version';
import { lateDispatch } from './late-dispatch';
import { startWebServer } from './server';

const here = path.dirname(fileURLToPath(import.meta.url));

/** Printed once the core is up: only then does the address printed earlier answer every call. */
const READY = 'Paydesk is ready: open the address above in your browser.';
/** Printed after the reason when the core could not start: the address printed earlier is closed. */
const NOT_STARTED = 'Paydesk did not start: the address above no longer answers.';

type Trace = (phase: string) => void;

/** PAYDESK_TRACE=1: start-up phases and web requests on stderr: ms since the process started, epoch ms, CPU ms used so far. */
function traceFromEnv(): Trace | undefined {
  if (!process.env.PAYDESK_TRACE) return undefined;
  return (phase) => {
    const now = performance.now();
    const { user, system } = process.cpuUsage();
    process.stderr.write(`trace +${now.toFixed(1)} @${(performance.timeOrigin + now).toFixed(1)} cpu ${((user + system) / 1000).toFixed(0)} ms ${phase}\n`);
  };
}

/** Loads the core's code and builds the core; the bus is the server's, so pushes reach streams opened meanwhile. */
async function startCore(args: { dataDir: string; database: string | undefined; events: EventBus; log: Logger; trace?: Trace }): Promise<Core> {
  const [{ createCore }, { KeytarSecretStore }] = await Promise.all([import('../core'), import('../platform/keychain')]);
  args.trace?.('main: core modules loaded');
  const secrets = new KeytarSecretStore('Paydesk');
  const core = await createCore({ mode: 'web', version: APP_VERSION, secrets, ...args });
  args.trace?.('main: core created');
  // The keychain's state is only a warning here: calls need not wait for it.
  void secrets.status().then((keychain) => {
    if (keychain.state !== 'available') args.log.warn(keychain.message);
  });
  return core;
}

async function main(): Promise<number> {
  const log = jsonLogger({ name: 'paydesk', level: logLevelFromEnv() });
  let options;
  try {
    options = parseAppOptions(process.argv.slice(2));
  } catch (error) {
    if (error instanceof OptionsError) {
      console.error(error.message);
      return 2;
    }
    throw error;
  }
  if (options.help) {
    console.log(appUsage);
    return 0;
  }
  const trace = traceFromEnv();
  trace?.('main: server modules loaded');
  // Listened for from the start: a stop asked for while the core starts waits for it, then closes
  // it as any other (without a listener, Node would end the process on the spot).
  const stop = stopRequested(log);
  const events = new EventBus();
  const starting = startCore({ dataDir: options.dataDir, database: options.database, events, log, trace });
  starting.catch(() => {}); // handled below, after the address is printed

  const server = await startWebServer({ dispatch: lateDispatch(starting), events, rendererDir: path.join(here, '../renderer'), port: options.port, log, trace });
  trace?.('main: listening, printing the address');
  // Scripts, tests and the benchmark read the address from its own line: keep it alone on a line.
  console.log(`Paydesk is starting in web mode. Its address, for your browser:\n  ${server.url}`);
  console.log(`Data directory: ${options.dataDir}`);
  if (options.database) console.log(`Ledger: PostgreSQL ${redactedUrl(new URL(options.database))}`);

  let core: Core;
  try {
    core = await starting;
  } catch (error) {
    await server.close();
    // Not imported up front: loading it is part of the core's start-up cost (and may be what failed).
    const ledgerRefused = await import('../ledger/connection').then(
      ({ LedgerOpenError }) => error instanceof LedgerOpenError,
      () => false,
    );
    if (ledgerRefused) console.error(`Paydesk cannot open its ledger: ${(error as Error).message}`);
    else console.error('Paydesk could not start:', error);
    console.error(NOT_STARTED);
    return 1;
  }
  // The data directory exists now (the core made it): the log goes to its file too.
  log.alsoTo(path.join(options.dataDir, DESK_LOG_FILE));
  console.log(READY);

  await stop;
  // The calls in flight are answered (their sends recorded) before the core closes.
  await server.close();
  await core.close();
  log.info('stopped');
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('Paydesk failed to start:', error);
    process.exit(1);
  },
);
