// `npm run server -- [command] [options]`: builds Paydesk, then runs the team server on Node (no
// Electron) with the native modules built for Node. Signals are passed on, so SIGTERM stops the
// server cleanly (docs/team.md).
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const args = process.argv.slice(2);

function run(command, commandArgs) {
  const result = spawnSync(command, commandArgs, { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

run(process.execPath, [path.join(root, 'node_modules/electron-vite/bin/electron-vite.js'), 'build', '--logLevel', 'warn']);
run(process.execPath, [path.join(root, 'scripts/native.mjs'), 'node']);
const child = spawn(process.execPath, [path.join(root, 'out/main/server.js'), ...args], { cwd: root, stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
