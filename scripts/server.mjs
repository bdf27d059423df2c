// `npm run server -- [command] [options]`: builds Paydesk (unless PAYDESK_NO_BUILD=1), then runs
// the team server on Node (no Electron) with the native modules built for Node, in this very
// process. package.json starts this script with `exec`, so npm's child is the server itself: no
// shell or wrapper in between to lose a signal or pass it on a second time. SIGTERM or SIGINT to
// npm (which passes it on), to this process or to the whole process group stops the server once,
// cleanly (docs/team.md, "Stopping it").
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

function run(command, commandArgs) {
  const result = spawnSync(command, commandArgs, { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const args = process.argv.slice(2);
const wantsHelp = args.includes('--help') || args.includes('-h');
const built = existsSync(path.join(root, 'out/main/server.js'));

// PAYDESK_NO_BUILD=1 runs the build out/ holds already (made once by `npm run build`); --help reads
// the built entry's help without building again.
if (process.env.PAYDESK_NO_BUILD !== '1' && !(wantsHelp && built)) run(process.execPath, [path.join(root, 'node_modules/electron-vite/bin/electron-vite.js'), 'build', '--logLevel', 'warn']);
run(process.execPath, [path.join(root, 'scripts/native.mjs'), 'node']);
// The entry reads its command line from process.argv, which is this script's: the same arguments.
await import(pathToFileURL(path.join(root, 'out/main/server.js')).href);
