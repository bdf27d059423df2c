// Electron entry: composes the core, registers the contract over IPC, opens one hardened window.
import { app, BrowserWindow, dialog, ipcMain, Notification, session, shell } from 'electron';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createCore, type Core } from './core';
import { showDesktopNotices } from './desktop-notices';
import { forwardPushes, registerContractIpc } from './ipc/electron-ipc';
import { LedgerOpenError } from './ledger/connection';
import { DESK_LOG_FILE, jsonLogger, logLevelFromEnv } from './logger';
import { appUsage, OptionsError, parseAppOptions } from './options';
import { KeytarSecretStore } from './platform/keychain';
import { stopRequested } from './stop-signals';
import { hardenSession, hardenWebContents, mainWindowOptions } from './security';
import { APP_VERSION } from './version';

const here = path.dirname(fileURLToPath(import.meta.url));
const log = jsonLogger({ name: 'paydesk', level: logLevelFromEnv() });

function appUrl(): string {
  const devServer = process.env.ELECTRON_RENDERER_URL;
  if (!app.isPackaged && devServer) return devServer;
  return pathToFileURL(path.join(here, '../renderer/index.html')).toString();
}

async function start(): Promise<void> {
  // Electron passes its own flags first; ours follow `--`.
  const separator = process.argv.indexOf('--');
  const options = parseAppOptions(separator >= 0 ? process.argv.slice(separator + 1) : []);
  if (options.help) {
    console.log(appUsage);
    app.exit(0);
    return;
  }
  app.enableSandbox();
  await app.whenReady();
  hardenSession(session.defaultSession);
  app.on('web-contents-created', (_event, contents) => hardenWebContents(contents, appUrl(), { openExternal: (url) => void shell.openExternal(url) }));

  let core: Core;
  try {
    core = await createCore({ mode: 'electron', version: APP_VERSION, dataDir: options.dataDir, database: options.database, secrets: new KeytarSecretStore('Paydesk'), log });
  } catch (error) {
    const message = error instanceof LedgerOpenError ? error.message : String(error);
    dialog.showErrorBox('Paydesk cannot open its ledger', message);
    app.exit(1);
    return;
  }
  // The data directory exists now (the core made it): the log goes to its file too.
  log.alsoTo(path.join(options.dataDir, DESK_LOG_FILE));

  const url = appUrl();
  registerContractIpc(ipcMain, core.dispatch, url);
  let window: BrowserWindow | null = new BrowserWindow(mainWindowOptions(path.join(here, '../preload/index.cjs')));
  forwardPushes(core.events, () => window?.webContents ?? null);
  // What Paydesk tells its person shows on the desktop too; a click opens what it is about.
  showDesktopNotices({
    events: core.events,
    supported: () => Notification.isSupported(),
    create: (options) => new Notification(options),
    open: (link) => {
      // Only a screen's hash route, as the notices make them, ever reaches the page.
      if (!window || !/^#\/[\w/?=&%.-]*$/.test(link)) return;
      window.show();
      window.focus();
      void window.webContents.executeJavaScript(`window.location.hash = ${JSON.stringify(link)}`);
    },
  });
  window.once('ready-to-show', () => window?.show());
  window.on('closed', () => {
    window = null;
  });
  await window.loadURL(url);

  app.on('window-all-closed', () => {
    void core.close().finally(() => app.quit());
  });
  // Ctrl+C in the terminal that ran `npm start`, or a SIGTERM from the session: the one clean stop
  // web mode and the team server make (stop-signals.ts; repeats are logged, a stuck stop is bounded).
  void stopRequested(log).then(async () => {
    await core.close();
    log.info('stopped');
    app.exit(0);
  });
}

start().catch((error: unknown) => {
  if (error instanceof OptionsError) console.error(error.message);
  else log.error('Paydesk failed to start', error);
  app.exit(1);
});
