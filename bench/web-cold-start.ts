// Web mode cold start on the seeded ledger: from spawning the built main process (out/main/web.js)
// to the first pay-ins page rendered in Chromium (rows in the table), with the browser already
// running; then the main process's peak memory (VmHWM). Its floor, in the same browser right
// after: a bare node:http server spawned the same way, serving a static page of 50 rows in
// a table of the same name, from the spawn to its first row visible (target: at most 3× that). The ledger is copied into a fresh data
// directory so the cached file stays untouched; with --in-place it is linked instead, and the
// app's start-up writes (settings, its local profile) go into the seeded file.
//   node --import tsx bench/web-cold-start.ts --ledger FILE [--phases] [--in-place]
// --phases also prints one timeline, in ms since the spawn: the main process's start-up and request
// trace (PAYDESK_TRACE=1) and Chromium's navigation and resource timings.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { launchBrowser } from '../test/e2e/harness';
import { processMemory, staticPageFloor } from './browser';
import { argText, ensureBenchDir, log, percentile, report, root, round, type Figure } from './lib';

/** The cold start at most this many times the static page's. */
const STATIC_RATIO = 3;
const ledger = argText('ledger', '');
const phases = process.argv.includes('--phases');
const inPlace = process.argv.includes('--in-place');
if (!ledger) throw new Error('usage: web-cold-start.ts --ledger FILE');
const entry = path.join(root, 'out/main/web.js');
if (!existsSync(entry)) throw new Error(`${entry} is missing: npm run bench builds it (electron-vite build)`);
const dataDir = mkdtempSync(path.join(ensureBenchDir(), 'web-'));
// --in-place: a link to the seeded file (SQLite follows it, its WAL beside the file), not a copy:
// the ten-million ledger would take ~17 GB more disk and push itself out of the page cache.
if (inPlace) symlinkSync(path.resolve(ledger), path.join(dataDir, 'ledger.sqlite'));
else copyFileSync(ledger, path.join(dataDir, 'ledger.sqlite'));
const browser = await launchBrowser();

const t0 = performance.now();
const t0Epoch = performance.timeOrigin + t0;
const child = spawn(process.execPath, [entry, '--data-dir', dataDir], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'pipe'],
  env: phases ? { ...process.env, PAYDESK_TRACE: '1' } : process.env,
});
let output = '';
child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
try {
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`web mode printed no address within 30 s:\n${output}`)), 30_000);
    child.stdout.on('data', () => {
      const match = /http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[0]);
      }
    });
    child.once('exit', (code) => reject(new Error(`web mode exited with ${code}:\n${output}`)));
  });
  const listening = performance.now() - t0;
  const page = await browser.newPage();
  page.setDefaultTimeout(30_000);
  await page.goto(`${url}#/payins`);
  const loaded = performance.now() - t0;
  await page.getByRole('table', { name: 'Pay-ins' }).locator('[data-row-key]').first().waitFor();
  const rendered = performance.now() - t0;
  const rows = await page.getByRole('table', { name: 'Pay-ins' }).locator('[data-row-key]').count();
  if (phases) await printTimeline(page, { listening, loaded, rendered });
  const frames = await scrollFrames(page);
  // Scroll the list a little and let main settle, so the peak includes a second page.
  await page.mouse.wheel(0, 4000);
  await new Promise((r) => setTimeout(r, 500));
  const peak = child.pid ? processMemory(child.pid, 'VmHWM') : 0;
  const rss = child.pid ? processMemory(child.pid, 'VmRSS') : 0;
  log(`web: address after ${round(listening)} ms, page loaded after ${round(loaded)} ms, first pay-ins page (${rows} rows) after ${round(rendered)} ms; main RSS ${round(rss)} MB, peak ${round(peak)} MB`);
  const floor = await staticPageFloor(browser);
  log(`static page from a bare node:http server: address after ${round(floor.listening)} ms, first row after ${round(floor.rendered)} ms`);
  const figures: Figure[] = [
    { name: 'web cold start to first pay-ins page', value: round(rendered / 1000, 2), unit: 's', target: { op: '<', value: 1.0 }, baseline: round(floor.rendered / 1000, 3), note: `address printed after ${round(listening / 1000, 2)} s, page loaded after ${round(loaded / 1000, 2)} s; ${rows} rows rendered; Chromium already running` },
    { name: 'web cold start ÷ static page from a bare server', value: round(rendered / Math.max(1, floor.rendered), 2), unit: '×', target: { op: '<', value: STATIC_RATIO },
      note: `${round(rendered)} ms ÷ ${round(floor.rendered)} ms: a bare node:http server spawned the same way (address after ${round(floor.listening)} ms), a static page of 50 rows, the same browser (target ≤ ${STATIC_RATIO}×)` },
    { name: 'pay-ins list scroll, time to the next frame', value: round(frames.mean, 1), unit: 'ms mean', note: `${frames.count} jumps of two screenfuls within the first page; p90 ${round(frames.p90, 1)} ms` },
    { name: 'web main-process memory (peak RSS)', value: round(peak, 1), unit: 'MB', target: { op: '<', value: 400 }, note: `RSS ${round(rss, 1)} MB after the first page` },
  ];
  report(figures);
} finally {
  await browser.close();
  child.kill('SIGTERM');
  await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
  rmSync(dataDir, { recursive: true, force: true });
}

/**
 * Jumps the list's scroller to other rows of the first page, ~1,000 px (two screenfuls) each way;
 * ms from each jump to the frame after it (rows rendered). In the default 720 px viewport the last
 * row rendered stays below 70 of the first 100, short of row 80 where the list asks for its next
 * page, so no fetch lands in a frame.
 */
async function scrollFrames(page: import('playwright-core').Page): Promise<{ count: number; mean: number; p90: number }> {
  const times = await page.evaluate(async () => {
    const scroller = document.querySelector<HTMLElement>('[role="table"][aria-label="Pay-ins"] [role="rowgroup"][tabindex="0"]');
    if (!scroller) throw new Error('no pay-ins scroller');
    const out: number[] = [];
    for (let i = 1; i <= 40; i++) {
      const t = performance.now();
      scroller.scrollTop = (i % 2) * 1000 + 25 * i;
      await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
      out.push(performance.now() - t);
    }
    return out;
  });
  times.sort((a, b) => a - b);
  return { count: times.length, mean: times.reduce((sum, t) => sum + t, 0) / times.length, p90: percentile(times, 0.9) };
}

/** Main's trace lines and the page's own timings on one clock: ms since the spawn. */
async function printTimeline(page: import('playwright-core').Page, marks: { listening: number; loaded: number; rendered: number }): Promise<void> {
  const lines: [number, string][] = [];
  for (const match of output.matchAll(/^trace \S+ @(\d+\.\d+) cpu (\d+) ms (.*)$/gm)) lines.push([Number(match[1]) - t0Epoch, `main   ${match[3]} (CPU ${match[2]} ms so far)`]);
  const entries = await page.evaluate(() => {
    const all = [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource'), ...performance.getEntriesByType('paint')] as PerformanceResourceTiming[];
    return { origin: performance.timeOrigin, list: all.map((e) => ({ name: e.name, type: e.entryType, start: e.startTime, end: e.responseEnd ?? e.startTime, size: e.encodedBodySize ?? 0 })) };
  });
  for (const e of entries.list) {
    const name = e.name.replace(/^https?:\/\/[^/]+/, '').replace(/\?token=.*/, '');
    const at = entries.origin + e.start - t0Epoch;
    lines.push([at, e.type === 'paint' ? `chrome ${name}` : `chrome ${e.type} ${name} ${Math.round(e.end - e.start)} ms${e.size ? `, ${Math.round(e.size / 1024)} kB` : ''}`]);
  }
  lines.push([marks.listening, 'bench  address printed'], [marks.loaded, 'bench  page.goto resolved (load event)'], [marks.rendered, 'bench  first pay-ins row visible']);
  for (const [at, text] of lines.sort((a, b) => a[0] - b[0])) log(`${at.toFixed(0).padStart(6)} ms  ${text}`);
}
