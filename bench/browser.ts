// Shared by the cold-start benchmarks (web-cold-start.ts, team-cold-start.ts): the floor every cold
// start is judged against, and a process's memory from /proc. Chromium is launched as the e2e tests
// launch it (test/e2e/harness.ts).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { root } from './lib';

/** A process's resident memory in MB: VmHWM its peak, VmRSS now. */
export function processMemory(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
}

/**
 * The floor of a cold start: a bare node:http server in a process of its own, spawned as the app's
 * server is, serving one static page (a table named Pay-ins of 50 rows, inline); ms from the spawn
 * to its address printed and to its first row visible in a new page of the same browser.
 */
export async function staticPageFloor(browser: Browser): Promise<{ listening: number; rendered: number }> {
  const rows = Array.from({ length: 50 }, (_, i) => `<div role="row" data-row-key="${i}"><span role="cell">pid-${i}</span><span role="cell">10.00 EUR</span></div>`).join('');
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>Static</title></head><body><div role="table" aria-label="Pay-ins">${rows}</div></body></html>`;
  const script = `const h=${JSON.stringify(html)};const s=require('node:http').createServer((q,r)=>{r.writeHead(200,{'content-type':'text/html; charset=utf-8','content-length':Buffer.byteLength(h)});r.end(h)});s.listen(0,'127.0.0.1',()=>console.log('http://127.0.0.1:'+s.address().port+'/'))`;
  const start = performance.now();
  const server = spawn(process.execPath, ['-e', script], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error('the static server printed no address within 10 s')), 10_000);
      server.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /http:\/\/127\.0\.0\.1:\d+\//.exec(out);
        if (match) {
          clearTimeout(timer);
          resolve(match[0]);
        }
      });
    });
    const listening = performance.now() - start;
    const page = await browser.newPage();
    await page.goto(url);
    await page.getByRole('table', { name: 'Pay-ins' }).locator('[data-row-key]').first().waitFor();
    const rendered = performance.now() - start;
    await page.close();
    return { listening, rendered };
  } finally {
    server.kill('SIGTERM');
  }
}
