// Native modules (better-sqlite3, keytar) are built for one runtime at a time: Node (tests, web
// mode, emulator) or Electron (the desktop window). This script makes sure they are built for
// the runtime asked for, rebuilding from source with node-gyp when they are not.
//   node scripts/native.mjs node       # before tests / web mode
//   node scripts/native.mjs electron   # before launching Electron
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const stampFile = path.join(root, 'node_modules', '.paydesk-native-target');
const modules = ['better-sqlite3', 'keytar'];
const target = process.argv[2];

if (target !== 'node' && target !== 'electron') {
  console.error('usage: node scripts/native.mjs <node|electron>');
  process.exit(2);
}

function loadsInNode() {
  const probe = spawnSync(process.execPath, ['-e', modules.map((m) => `require(${JSON.stringify(m)})`).join(';')], {
    cwd: root,
    encoding: 'utf8',
  });
  return probe.status === 0;
}

function rebuild(extraEnv) {
  console.log(`[paydesk] rebuilding ${modules.join(', ')} for ${target}…`);
  const result = spawnSync('npm', ['rebuild', ...modules], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, ...extraEnv },
  });
  if (result.status !== 0) {
    console.error(`[paydesk] rebuilding native modules for ${target} failed (see above).`);
    process.exit(result.status ?? 1);
  }
  writeFileSync(stampFile, target);
}

const current = existsSync(stampFile) ? readFileSync(stampFile, 'utf8').trim() : 'node';

if (target === 'node') {
  if (current === 'node' && loadsInNode()) process.exit(0);
  rebuild({});
  if (!loadsInNode()) {
    console.error('[paydesk] native modules still do not load in Node after the rebuild.');
    process.exit(1);
  }
} else {
  if (current === 'electron') process.exit(0);
  const electronVersion = JSON.parse(readFileSync(require.resolve('electron/package.json'), 'utf8')).version;
  rebuild({
    npm_config_runtime: 'electron',
    npm_config_target: electronVersion,
    npm_config_disturl: 'https://electronjs.org/headers',
    npm_config_nodedir: '',
  });
}
