// `npm start -- [options]`: builds Paydesk (unless PAYDESK_NO_BUILD=1), then opens the Electron
// window where Electron can run, or web mode where it cannot (no Electron binary, no display) or
// when `--web` is given. Web mode runs in this very process: package.json starts this script with
// `exec`, so npm's child is web mode itself, and SIGTERM or SIGINT to npm (which passes it on), to
// this process or to the whole process group stops it once, cleanly. Electron is a process of its
// own, which is passed the signals this one gets.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const args = process.argv.slice(2);

function electronBinary() {
  try {
    const binary = require('electron');
    return typeof binary === 'string' && existsSync(binary) ? binary : null;
  } catch {
    return null;
  }
}

function hasDisplay() {
  if (process.platform !== 'linux') return true;
  return Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
}

function run(command, commandArgs) {
  const result = spawnSync(command, commandArgs, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

function whyWebMode(binary) {
  if (args.includes('--web')) return '--web was given';
  if (!binary) return 'the Electron binary is not installed on this machine';
  if (!hasDisplay()) return 'there is no display';
  return null;
}

const binary = electronBinary();
const webReason = whyWebMode(binary);

const wantsHelp = args.includes('--help') || args.includes('-h');
const built = existsSync(path.join(root, 'out/main/web.js'));

// PAYDESK_NO_BUILD=1 starts the build out/ holds already (made once by `npm run build`); --help
// reads the built entry's help without building again.
if (process.env.PAYDESK_NO_BUILD !== '1' && !(wantsHelp && built)) run(process.execPath, [path.join(root, 'node_modules/electron-vite/bin/electron-vite.js'), 'build', '--logLevel', 'warn']);

if (webReason) {
  if (!wantsHelp) console.log(`[paydesk] starting web mode: ${webReason}.`);
  run(process.execPath, [path.join(root, 'scripts/native.mjs'), 'node']);
  // The entry reads its command line from process.argv, which is this script's: the same arguments.
  await import(pathToFileURL(path.join(root, 'out/main/web.js')).href);
} else {
  run(process.execPath, [path.join(root, 'scripts/native.mjs'), 'electron']);
  const child = spawn(binary, ['.', '--', ...args], { cwd: root, stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => child.kill(signal));
  }
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
