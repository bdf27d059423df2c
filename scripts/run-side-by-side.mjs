// Runs npm scripts at the same time and prints each one's output whole, one after the other, once
// all have ended (interleaved lines would be unreadable); exits non-zero when any failed. `npm
// test` runs the typecheck beside the lint this way: each is one process on one core, so on a
// 2-core machine together they take the time of the longer. (The test passes themselves use both
// cores each, and run one after the other.)
// Usage: node scripts/run-side-by-side.mjs <npm script> [<npm script> …]
import { spawn } from 'node:child_process';

const scripts = process.argv.slice(2);
const started = Date.now();
const runs = scripts.map(
  (script) =>
    new Promise((resolve) => {
      const child = spawn('npm', ['run', script], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: process.env.FORCE_COLOR ?? '1' } });
      const chunks = [];
      child.stdout.on('data', (chunk) => chunks.push(chunk));
      child.stderr.on('data', (chunk) => chunks.push(chunk));
      child.on('close', (code) => resolve({ script, code: code ?? 1, output: Buffer.concat(chunks).toString(), seconds: Math.round((Date.now() - started) / 1000) }));
    }),
);
const results = await Promise.all(runs);
for (const { script, code, output, seconds } of results) {
  process.stdout.write(`\n===== npm run ${script} (ended after ${seconds} s, exit ${code}) =====\n${output}`);
}
process.exit(results.some((r) => r.code !== 0) ? 1 : 0);
