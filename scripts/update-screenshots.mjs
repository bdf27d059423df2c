// Copies the screenshots the README shows (docs/screens/<name>.png) from the ones the end-to-end
// suite saved (test-results/screens). Run after `npm run test:e2e`: `npm run screenshots`.
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const from = path.join(root, 'test-results', 'screens');
const to = path.join(root, 'docs', 'screens');
if (!existsSync(from)) {
  console.error('No screenshots yet: run `npm run test:e2e` first.');
  process.exit(1);
}
mkdirSync(to, { recursive: true });
const shown = [...new Set([...readFileSync(path.join(root, 'README.md'), 'utf8').matchAll(/docs\/screens\/([\w.-]+\.png)/g)].map((m) => m[1]))];
const missing = shown.filter((name) => !existsSync(path.join(from, name)));
for (const name of shown.filter((n) => !missing.includes(n))) copyFileSync(path.join(from, name), path.join(to, name));
console.log(`Copied ${shown.length - missing.length} screenshots the README shows to docs/screens.`);
if (missing.length > 0) {
  console.error(`Not saved by the end-to-end run (kept as they were): ${missing.join(', ')}`);
  process.exitCode = 1;
}
