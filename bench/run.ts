// `npm run bench`: seeds (or reuses) the ledger, runs every benchmark in its own child process,
// prints a table (each figure with its target, its same-run baseline where there is one and the
// ratio to it, and its value in the previous run of the same scale) and writes bench/results[-SCALE].json, keeping the
// one it replaces as bench/results[-SCALE].previous.json. See docs/performance.md.
//   tsx bench/run.ts [--scale quick|1m|10m] [--quick] [--reuse]
//   --scale 1m   the default: 1,000,000 pay-ins, 200,000 payouts, 1,000,000 notifications; every benchmark
//   --scale 10m  10,000,000 pay-ins, 2,000,000 payouts, 10,000,000 notifications: the ledger's reads and
//                the web cold start only (the others do not depend on the ledger's size)
//   --quick      the same as --scale quick: small sizes, 1-second loads, a smoke test of the harness
//   --reuse      keep the seeded ledger of an earlier run of the same sizes instead of seeding again
//   --engine postgres  the ledger's reads on PostgreSQL at this scale (bench/postgres.ts alone: bulk seeding
//                checked against the repositories, look-ups and pages beside the same SQL through pg alone,
//                full reconciliation, the team server's cold start in Chromium), e.g. `--scale 10m --engine postgres`; writes bench/results-SCALE-postgres.json;
//                with --keep the seeded database is left behind (bench/postgres.ts prints its name), and
//                --reuse-database URL reads it again instead of seeding (the ten-million seeding takes ~30 min)
//   --only NAME  run only the benchmarks whose script name starts with NAME (e.g. `--only statements`),
//                no seeding unless one of them needs the ledger; the results file is left as it was, and
//                the figures go to bench/results.only-NAME.json
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { argText, benchDir, ensureBenchDir, RESULT_PREFIX, root, type Figure } from './lib';
import { SCALES, type Scale } from './seed-ledger';

const scale: Scale = process.argv.includes('--quick') ? 'quick' : (argText('scale', '1m') as Scale);
if (!(scale in SCALES)) throw new Error(`--scale ${scale}: one of ${Object.keys(SCALES).join(', ')}`);
const quick = scale === 'quick';
const reuse = process.argv.includes('--reuse');
const only = argText('only', '');
const engine = argText('engine', 'sqlite');
if (engine !== 'sqlite' && engine !== 'postgres') throw new Error(`--engine ${engine}: sqlite or postgres`);
const onPostgres = engine === 'postgres';
/** The benchmarks that do not depend on the ledger's size run at the default and quick scales, on the default engine. */
const everything = scale !== '10m' && !onPostgres;
/** Whether a benchmark script runs in this run (all of them unless --only picks some). */
const selected = (script: string) => only === '' || script.startsWith(only);
const ledgerNeeded = !onPostgres && (selected('seed-ledger.ts') || selected('ledger-queries.ts') || selected('web-cold-start.ts'));
const sizes = SCALES[scale];
const seconds = quick ? 1 : 5;
const batchRows = quick ? 100 : 1_000;
const resultsFile = path.join(import.meta.dirname, onPostgres ? `results-${scale}-postgres.json` : scale === '1m' ? 'results.json' : `results-${scale}.json`);

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

/** The figures of the previous run of this scale, by name (none on a first run). */
function previousRun(): { date: string | null; values: Map<string, number> } {
  if (!existsSync(resultsFile)) return { date: null, values: new Map() };
  const previous = JSON.parse(readFileSync(resultsFile, 'utf8')) as { date: string; figures: { name: string; value: number }[] };
  return { date: previous.date, values: new Map(previous.figures.map((f) => [f.name, f.value])) };
}

ensureBenchDir();
const started = new Date();
const previous = previousRun();
const ledger = path.join(benchDir, `ledger-${sizes.payins}-${sizes.payouts}-${sizes.notifications}.sqlite`);
const outcomes: Outcome[] = [];
const seedStarted = performance.now();
const reused = reuse && existsSync(ledger);
if (!ledgerNeeded) {
  process.stderr.write(`--only ${only}: no seeded ledger needed\n`);
} else if (reused) {
  process.stderr.write(`reusing ${path.relative(root, ledger)} (seeding not measured)\n`);
} else {
  // Seeded under a temporary name: an interrupted seed is never mistaken for a finished one.
  const partial = `${ledger}.partial`;
  const seeded = await bench('seed-ledger.ts', ['--out', partial, '--payins', String(sizes.payins), '--payouts', String(sizes.payouts), '--notifications', String(sizes.notifications)], 60 * 60_000);
  outcomes.push(seeded);
  if (!seeded.error) renameSync(partial, ledger);
}
if (onPostgres && selected('postgres.ts')) {
  // The ledger's reads on PostgreSQL at this scale; the listener is measured by the default run (its cost does not depend on the ledger's size).
  const hours = scale === '10m' ? 4 : 1;
  outcomes.push(await bench('postgres.ts', ['--payins', String(sizes.payins), '--payouts', String(sizes.payouts), '--notifications', String(sizes.notifications),
    '--scale', scale, '--samples', quick ? '500' : '5000', '--no-ingest', '--cold-start', '--timeout', String(hours * 3600 - 60), ...(process.argv.includes('--keep') ? ['--keep'] : []),
    ...(argText('reuse-database', '') ? ['--reuse-database', argText('reuse-database', '')] : [])], hours * 60 * 60_000));
}
const seedMinutes = (performance.now() - seedStarted) / 60_000;
if (!onPostgres && existsSync(ledger) && selected('ledger-queries.ts')) {
  outcomes.push(await bench('ledger-queries.ts', ['--ledger', ledger, '--samples', quick ? '500' : '5000', '--scale', scale], 20 * 60_000));
}
if (everything) {
  if (selected('listener-throughput.ts')) outcomes.push(await bench('listener-throughput.ts', ['--connections', '64', '--seconds', String(seconds)], 2 * 60_000));
  if (selected('emulator-creates.ts')) outcomes.push(await bench('emulator-creates.ts', ['--connections', '64', '--seconds', String(seconds)], 2 * 60_000));
}
// The ten-million ledger is opened where it lies: a copy would double its ~17 GB on disk and push it out of the page cache.
if (!onPostgres && existsSync(ledger) && selected('web-cold-start.ts')) outcomes.push(await bench('web-cold-start.ts', ['--ledger', ledger, ...(scale === '10m' ? ['--in-place'] : [])], 5 * 60_000));
if (everything) {
  if (selected('payout-batch.ts')) outcomes.push(await bench('payout-batch.ts', ['--rows', String(batchRows)], 3 * 60_000));
  if (selected('postgres.ts')) outcomes.push(await bench('postgres.ts', quick ? ['--payins', '20000', '--payouts', '4000', '--notifications', '20000', '--seconds', '1'] : [], 15 * 60_000));
  // Statements: import and match of a settlement report of a million lines (quick: 20,000), SQLite and PostgreSQL.
  if (selected('statements.ts')) outcomes.push(await bench('statements.ts', ['--lines', quick ? '20000' : '1000000'], 60 * 60_000));
  // Notifications to people: event to mail at a loopback SMTP server, and a burst folded into digests.
  if (selected('notices.ts')) outcomes.push(await bench('notices.ts', quick ? ['--events', '20', '--burst', '1000', '--timeout', '240'] : ['--events', '100', '--burst', '10000', '--timeout', '600'], 11 * 60_000));
  if (selected('team.ts')) outcomes.push(await bench('team.ts', ['--rows', String(batchRows), '--clients', quick ? '5' : '50', '--changes', quick ? '20' : '200',
    '--people', quick ? '5' : '50', '--work-seconds', quick ? '8' : '20'], 10 * 60_000));
}

const figures = outcomes.flatMap((o) => o.figures);
const errors = outcomes.flatMap((o) => (o.error ? [o.error] : []));
const rows = figures.map((f) => ({
  name: f.name,
  value: f.value,
  unit: f.unit,
  target: targetText(f),
  baseline: f.baseline ?? null,
  previous: previous.values.get(f.name) ?? null,
  pass: passes(f),
  note: f.note ?? null,
}));
const cell = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'number' ? v.toLocaleString('en') : String(v));
/** How many times its same-run baseline a figure is (the cost over what could not be avoided). */
const ratio = (r: { value: number; baseline: number | null }) => (r.baseline ? `${(r.value / r.baseline).toFixed(1)}×` : '');
const header = ['benchmark', 'value', 'unit', 'target', 'baseline', 'ratio', 'previous', 'result'];
const table = rows.map((r) => [r.name, cell(r.value), r.unit, cell(r.target), cell(r.baseline), ratio(r), cell(r.previous), r.pass === null ? '' : r.pass ? 'pass' : 'MISS']);
const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => (row[i] ?? '').length)));
const line = (cells: string[]) => cells.map((c, i) => ([1, 4, 5, 6].includes(i) ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0))).join('  ');
const totalMinutes = (Date.now() - started.getTime()) / 60_000;
const ledgerGB = existsSync(ledger) ? statSync(ledger).size / 2 ** 30 : 0;
process.stdout.write(`\nPaydesk benchmarks, scale ${scale}${onPostgres ? ' on PostgreSQL' : ''}${quick ? ' (small sizes, not the targets’ sizes)' : ''}, ${started.toISOString()}, ${os.cpus().length} cores\n`);
process.stdout.write(`previous run of this scale: ${previous.date ?? 'none'}; this run ${totalMinutes.toFixed(1)} min (seeding ${seedMinutes.toFixed(1)} min), ledger ${ledgerGB.toFixed(2)} GB on disk\n\n`);
process.stdout.write(`${line(header)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}\n${table.map(line).join('\n')}\n`);
for (const error of errors) process.stdout.write(`\nerror: ${error}\n`);

const results = {
  date: started.toISOString(),
  scale,
  sizes: { ...sizes, batchRows, loadSeconds: seconds },
  run: { minutes: Number(totalMinutes.toFixed(1)), seedMinutes: Number(seedMinutes.toFixed(1)), ledgerGB: Number(ledgerGB.toFixed(2)), reused },
  previousDate: previous.date,
  machine: { cores: os.cpus().length, cpu: os.cpus()[0]?.model ?? 'unknown', memoryGB: Math.round(os.totalmem() / 2 ** 30), node: process.version, platform: `${os.platform()} ${os.release()}` },
  figures: rows,
  errors,
};
if (only !== '') {
  // A partial run would replace the full run's figures that the next full run compares with: its
  // figures (notes included) go to a file of their own.
  const onlyFile = resultsFile.replace(/\.json$/, `.only-${only.replace(/[^\w.-]/g, '_')}.json`);
  writeFileSync(onlyFile, `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`\n--only ${only}: ${path.relative(root, resultsFile)} left as it was; wrote ${path.relative(root, onlyFile)} (${rows.filter((r) => r.pass === false).length} targets missed)\n`);
} else {
  if (existsSync(resultsFile)) renameSync(resultsFile, resultsFile.replace(/\.json$/, '.previous.json'));
  writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`\nwrote ${path.relative(root, resultsFile)} (${rows.length} figures, ${rows.filter((r) => r.pass === false).length} targets missed)\n`);
}
