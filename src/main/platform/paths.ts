// Where Paydesk keeps its data when neither --data-dir nor PAYDESK_DATA_DIR says otherwise.
// Matches Electron's app.getPath('userData') for an app named "Paydesk", so Electron and web
// mode share one data directory on the same machine.
import os from 'node:os';
import path from 'node:path';

export const APP_NAME = 'Paydesk';

export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  const home = os.homedir();
  if (platform === 'win32') return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), APP_NAME);
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', APP_NAME);
  return path.join(env.XDG_CONFIG_HOME ?? path.join(home, '.config'), APP_NAME);
}

export function ledgerFile(dataDir: string): string {
  return path.join(dataDir, 'ledger.sqlite');
}
