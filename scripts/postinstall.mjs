// Runs after `npm install` / `npm ci`. Electron's own install script is denied in package.json
// (allowScripts) because it downloads a binary from outside the npm registry, which fails on
// offline or locked-down machines and would fail the whole install. Here we try that same
// download ourselves and only warn when it fails: such machines run Paydesk in web mode.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

function electronInstallScript() {
  try {
    return path.join(path.dirname(require.resolve('electron/package.json')), 'install.js');
  } catch {
    return null;
  }
}

const script = electronInstallScript();
if (!script || !existsSync(script)) {
  console.warn('[paydesk] electron is not installed (production install?): web mode only.');
  process.exit(0);
}

const timeoutMs = Number(process.env.PAYDESK_ELECTRON_DOWNLOAD_TIMEOUT_MS ?? 120_000);
const result = spawnSync(process.execPath, [script], {
  stdio: 'inherit',
  timeout: timeoutMs,
  cwd: path.dirname(script),
});
if (result.status === 0) {
  console.log('[paydesk] Electron binary is ready: `npm start` opens the desktop window.');
} else {
  console.warn(
    '[paydesk] Electron binary could not be downloaded on this machine; the install continues.\n' +
      '[paydesk] `npm start` will run Paydesk in web mode (same app in your browser on 127.0.0.1).',
  );
}
