/// <reference lib="dom" />
// Web mode against a hostile page, in a real browser: a hostile web page on another local origin (another port of
// 127.0.0.1, as any program on this machine could serve) attacks web mode from Chromium. It tries
// CORS fetches, no-cors "simple" requests, a cross-site form post, an event stream, framing the app
// to read its token, and all of that again knowing the session token. Nothing reaches the
// dispatcher, nothing changes, and the page learns nothing. Runs with the end-to-end suite.
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../src/main/core';
import type { Dispatch } from '../../src/main/ipc/dispatcher';
import { startWebServer, type WebServer } from '../../src/main/web/server';
import { silentLogger, testCore } from '../helpers/app-core';
import { tempDir } from '../helpers/temp-dir';

const temp = tempDir('paydesk-hostile-page-');
let core: Core;
let server: WebServer;
let hostile: http.Server;
let hostileOrigin = '';
let browser: Browser;
const dispatched: string[] = [];

function hostilePage(target: string, token: string): string {
  // Everything a page can try without the user's help; results are collected in window.results.
  return `<!doctype html><html><body><script>
  window.results = {};
  const target = ${JSON.stringify(target)};
  const token = ${JSON.stringify(token)};
  const attempt = async (name, work) => { try { window.results[name] = await work(); } catch (e) { window.results[name] = 'blocked: ' + e.name; } };
  window.done = (async () => {
    await attempt('cors fetch', async () => (await fetch(target + '/rpc/settings:update', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input: { theme: 'dark' } }) })).status);
    await attempt('cors fetch with the token', async () => (await fetch(target + '/rpc/settings:update', { method: 'POST', headers: { 'content-type': 'application/json', 'x-paydesk-token': token }, body: JSON.stringify({ input: { theme: 'dark' } }) })).text());
    await attempt('no-cors simple post', async () => (await fetch(target + '/rpc/settings:update', { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ input: { theme: 'dark' } }) })).type);
    await attempt('read the app page', async () => (await fetch(target + '/?token=' + token)).text());
    await attempt('event stream', () => new Promise((resolve) => { const s = new EventSource(target + '/events?token=' + token); s.onmessage = (e) => resolve('message: ' + e.data); s.onerror = () => { s.close(); resolve('blocked: error'); }; setTimeout(() => { s.close(); resolve('blocked: nothing'); }, 3000); }));
    await attempt('frame the app', () => new Promise((resolve) => { const f = document.createElement('iframe'); f.src = target + '/?token=' + token; f.onload = () => { try { resolve('read: ' + f.contentDocument.documentElement.outerHTML); } catch (e) { resolve('blocked: ' + e.name); } }; document.body.appendChild(f); setTimeout(() => resolve('blocked: no load'), 3000); }));
    await attempt('form post', () => new Promise((resolve) => { const frame = document.createElement('iframe'); frame.name = 'sink'; document.body.appendChild(frame); const form = document.createElement('form'); form.method = 'POST'; form.enctype = 'text/plain'; form.target = 'sink'; form.action = target + '/rpc/settings:update'; const input = document.createElement('input'); input.name = '{"input":{"theme":"dark"},"x":"'; input.value = '"}'; form.appendChild(input); document.body.appendChild(form); form.submit(); setTimeout(() => resolve('sent'), 1500); }));
    return window.results;
  })();
</script></body></html>`;
}

beforeAll(async () => {
  const rendererDir = path.join(temp.dir, 'renderer');
  mkdirSync(path.join(rendererDir, 'assets'), { recursive: true });
  writeFileSync(path.join(rendererDir, 'index.html'), '<html><head></head><body>app</body></html>');
  core = await testCore(path.join(temp.dir, 'data'));
  const recording: Dispatch = (channel, input) => {
    dispatched.push(channel);
    return core.dispatch(channel, input);
  };
  server = await startWebServer({ dispatch: recording, events: core.events, rendererDir, log: silentLogger });
  hostile = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(hostilePage(server.origin, server.token));
  });
  await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve));
  hostileOrigin = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: process.env.PAYDESK_CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => hostile?.close(resolve));
  await server?.close();
  await core?.close();
  temp.cleanup();
});

describe('a hostile local web page against web mode', () => {
  it('reaches nothing, changes nothing and reads nothing, even knowing the session token', async () => {
    const page = await browser.newPage();
    await page.goto(hostileOrigin);
    const results = (await page.evaluate(() => (window as unknown as { done: Promise<Record<string, string>> }).done)) as Record<string, string>;
    await page.close();

    expect(results['cors fetch']).toMatch(/^blocked/);
    expect(results['cors fetch with the token']).toMatch(/^blocked/);
    // Sent (a "simple" request needs no preflight), refused by the server (nothing dispatched, below), and unreadable:
    // opaque, or blocked outright by the answer's Cross-Origin-Resource-Policy.
    expect(results['no-cors simple post']).toMatch(/^(opaque|blocked)/);
    expect(results['read the app page']).toMatch(/^blocked/);
    expect(results['event stream']).toMatch(/^blocked/);
    expect(results['frame the app']).toMatch(/^blocked/);
    expect(JSON.stringify(results)).not.toContain('paydesk-session');
    expect(dispatched).toEqual([]);
    expect(await core.dispatch('settings:get', undefined)).toEqual({ ok: true, value: { theme: 'auto', reconciliationPendingMinutes: 60 } });
  });
});
