// Web-mode entry (plain Node, no Electron): `node out/main/web.js [options]`, normally via `npm start`.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCore } from '../core';
import { consoleLogger } from '../logger';
import { appUsage, OptionsError, parseAppOptions } from '../options';
import { KeytarSecretStore } from '../platform/keychain';
import { LedgerVersionError } from '../ledger/connection';
import { APP_VERSION } from '../version';
import { startWebServer } from './server';

const here = path.dirname(fileURLToPath(import.meta.url));

async function main(): Promise<number> {
  const log = consoleLogger();
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
  const secrets = new KeytarSecretStore('Paydesk');
  let core;
  try {
    core = await createCore({ mode: 'web', version: APP_VERSION, dataDir: options.dataDir, secrets, log });
  } catch (error) {
    if (error instanceof LedgerVersionError) {
      console.error(`Paydesk cannot open its ledger: ${error.message}`);
      return 1;
    }
    throw error;
  }
  const keychain = await secrets.status();
  if (!keychain.available) log.warn(keychain.message);

  const server = await startWebServer({
    dispatch: core.dispatch,
    events: core.events,
    rendererDir: path.join(here, '../renderer'),
    port: options.port,
    log,
  });
  console.log(`Paydesk is running in web mode. Open this address in your browser:\n  ${server.url}`);
  console.log(`Data directory: ${options.dataDir}`);

  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
  await core.close();
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('Paydesk failed to start:', error);
    process.exit(1);
  },
);
