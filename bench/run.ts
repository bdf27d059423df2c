// `npm run bench`: seeds (or reuses) the million-row ledger, runs every benchmark in its own child
// process, prints a table and writes bench/results.json. See docs/performance.md.
//   tsx bench/run.ts [--quick] [--reuse]
//   --quick  small sizes and short runs: a smoke test of the harness (under a minute)
//   --reuse  keep the seeded ledger of an earlier run of the same sizes instead of seeding again
import { spawn } from 'node:child_process';
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchDir, ensureBenchDir, RESULT_PREFIX, root, type Figure } from './lib';

const quick = process.argv.includes('--quick');
const reuse = process.argv.includes('--reuse');
const sizes = quick ? { payins: 20_000, payouts: 4_000, notifications: 20_000 } : { payins: 1_000_000, payouts: 200_000, notifications: 1_000_000 };
const seconds = quick ? 1 : 5;
const batchRows = quick ? 100 : 1_000;

interface Outcome {
  figures: Figure[];
  error?: string;
}

/** Runs one benchmark script in a child process, bounded in time; its figures from the result line. */
function bench(script: string, args: string[], timeoutMs: number): Promise<Outcome> {
  process.stderr.write(`\n▶ ${script} ${args.join(' ')}\n`);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, script), ...args], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      const line = out.split('\n').find((l) => l.startsWith(RESULT_PREFIX));
      if (!line) return resolve({ figures: [], error: `${script} exited with ${signal ?? code} and no result${signal ? ` (timeout ${timeoutMs / 1000} s)` : ''}` });
      resolve({ figures: JSON.parse(line.slice(RESULT_PREFIX.length)) as Figure[] });
    });
  });
}

const passes = (f: Figure): boolean | null => (f.target ? (f.target.op === '<' ? f.value < f.target.value : f.value >= f.target.value) : null);
const targetText = (f: Figure): string | null => (f.target ? `${f.target.op === '<' ? '<' : '≥'} ${f.target.value.toLocaleString('en')}` : null);

ensureBenchDir();
const started = new Date();
const ledger = path.join(benchDir, `ledger-${sizes.payins}-${sizes.payouts}-${sizes.notifications}.sqlite`);
const outcomes: Outcome[] = [];
if (reuse && existsSync(ledger)) {
  process.stderr.write(`reusing ${path.relative(root, ledger)} (seeding not measured)\n`);
} else {
  // Seeded under a temporary name: an interrupted seed is never mistaken for a finished one.
  const partial = `${ledger}.partial`;
  const seeded = await bench('seed-ledger.ts', ['--out', partial, '--payins', String(sizes.payins), '--payouts', String(sizes.payouts), '--notifications', String(sizes.notifications)], 20 * 60_000);
  outcomes.push(seeded);
  if (!seeded.error) renameSync(partial, ledger);
}
if (existsSync(ledger)) {
  outcomes.push(await bench('ledger-queries.ts', ['--ledger', ledger, '--samples', quick ? '500' : '5000'], 10 * 60_000));
}
outcomes.push(await bench('listener-throughput.ts', ['--connections', '64', '--seconds', String(seconds)], 2 * 60_000));
outcomes.push(await bench('emulator-creates.ts', ['--connections', '64', '--seconds', String(seconds)], 2 * 60_000));
if (existsSync(ledger)) outcomes.push(await bench('web-cold-start.ts', ['--ledger', ledger], 3 * 60_000));
outcomes.push(await bench('payout-batch.ts', ['--rows', String(batchRows)], 3 * 60_000));

const figures = outcomes.flatMap((o) => o.figures);
const errors = outcomes.flatMap((o) => (o.error ? [o.error] : []));
const rows = figures.map((f) => ({
  name: f.name,
  value: f.value,
  unit: f.unit,
  target: targetText(f),
  baseline: f.baseline ?? null,
  pass: passes(f),
  note: f.note ?? null,
}));
const cell = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'number' ? v.toLocaleString('en') : String(v));
const header = ['benchmark', 'value', 'unit', 'target', 'baseline', 'result'];
const table = rows.map((r) => [r.name, cell(r.value), r.unit, cell(r.target), cell(r.baseline), r.pass === null ? '' : r.pass ? 'pass' : 'MISS']);
const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => (row[i] ?? '').length)));
const line = (cells: string[]) => cells.map((c, i) => (i === 1 || i === 4 ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0))).join('  ');
process.stdout.write(`\nPaydesk benchmarks${quick ? ' (--quick: small sizes, not the targets’ sizes)' : ''}, ${started.toISOString()}, ${os.cpus().length} cores\n\n`);
process.stdout.write(`${line(header)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}\n${table.map(line).join('\n')}\n`);
for (const error of errors) process.stdout.write(`\nerror: ${error}\n`);

const results = {
  date: started.toISOString(),
  quick,
  sizes: { ...sizes, batchRows, loadSeconds: seconds },
  machine: { cores: os.cpus().length, cpu: os.cpus()[0]?.model ?? 'unknown', memoryGB: Math.round(os.totalmem() / 2 ** 30), node: process.version, platform: `${os.platform()} ${os.release()}` },
  figures: rows,
  errors,
};
writeFileSync(path.join(import.meta.dirname, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
process.stdout.write(`\nwrote bench/results.json (${rows.length} figures, ${rows.filter((r) => r.pass === false).length} targets missed)\n`);
