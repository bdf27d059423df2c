// Copies the screenshots the end-to-end suite saved (test-results/screens) into docs/screens,
// which the README shows. Run after `npm run test:e2e`: `npm run screenshots`.
import { copyFileSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
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
const files = readdirSync(from).filter((name) => name.endsWith('.png'));
for (const name of files) copyFileSync(path.join(from, name), path.join(to, name));
console.log(`Copied ${files.length} screenshots to docs/screens.`);
