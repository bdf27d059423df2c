// Starts the built app in web mode as a user would (a child process printing its address) and
// drives it in Debian's Chromium through playwright-core.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { type Browser, chromium, type Download, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { tempDir } from '../helpers/temp-dir';

const root = path.resolve(import.meta.dirname, '../..');
export const screenshotDir = path.join(root, 'test-results', 'screens');

export interface WebApp {
  url: string;
  origin: string;
  token: string;
  /** The web-mode process (main), e.g. to read its memory from /proc. */
  pid: number;
  output: () => string;
  stop(): Promise<number | null>;
  /** SIGKILL: the app gets no chance to close anything (a crash, a power cut). */
  kill(): Promise<NodeJS.Signals | null>;
}

/** `env`: added to the app's environment (NODE_EXTRA_CA_CERTS to trust a live test gateway's certificate). */
export async function startWebApp(dataDir: string, extraArgs: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<WebApp> {
  const child: ChildProcess = spawn(process.execPath, [path.join(root, 'out/main/web.js'), '--data-dir', dataDir, ...extraArgs], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`web mode did not print its address within 20 s:\n${output}`)), 20_000);
    const check = () => {
      const match = /http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[0]);
      }
    };
    child.stdout?.on('data', check);
    child.on('exit', (code) => reject(new Error(`web mode exited with ${code}:\n${output}`)));
  });
  const parsed = new URL(url);
  return {
    url,
    origin: parsed.origin,
    token: parsed.searchParams.get('token') ?? '',
    pid: child.pid ?? 0,
    output: () => output,
    ...stopAndKill(child),
  };
}

/**
 * How a test ends a child it started: stop (SIGTERM, resolves with its exit code) and kill
 * (SIGKILL: no chance to close anything, resolves with the signal); each resolves at once when the
 * child has already ended.
 */
export function stopAndKill(child: ChildProcess): Pick<WebApp, 'stop' | 'kill'> {
  const ended = () => child.exitCode !== null || child.signalCode !== null;
  return {
    stop: () =>
      new Promise((resolve) => {
        if (ended()) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill('SIGTERM');
      }),
    kill: () =>
      new Promise((resolve) => {
        if (ended()) return resolve(child.signalCode);
        child.once('exit', (_code, signal) => resolve(signal));
        child.kill('SIGKILL');
      }),
  };
}

/** What useWebApp started for a test file. */
export interface WebAppFixture {
  app: WebApp;
  browser: Browser;
  /** The file's temporary directory (removed after its tests), for files of its own. */
  dir: string;
  /** The app's data directory, inside `dir`. */
  dataDir: string;
}

/**
 * A test file's web app: a fresh temporary directory, the built app in web mode on a data directory
 * in it, and one Chromium, started before the file's tests (its own beforeAll hooks run after this
 * one) and stopped after them, the app by SIGTERM: it must exit with 0 (its output is printed when
 * not). `started` gets them, e.g. `useWebApp('shell', (web) => ({ app, browser } = web))`.
 * `env` (read when the app starts): added to the app's environment.
 */
export function useWebApp(name: string, started: (fixture: WebAppFixture) => void, options: { args?: string[]; env?: () => NodeJS.ProcessEnv } = {}): void {
  let fixture: Partial<WebAppFixture> = {};
  let cleanup = () => {};
  beforeAll(async () => {
    const temp = tempDir(`paydesk-e2e-${name}-`);
    cleanup = temp.cleanup;
    const dataDir = path.join(temp.dir, 'data');
    fixture = { dir: temp.dir, dataDir, app: await startWebApp(dataDir, options.args, options.env?.()) };
    fixture.browser = await launchBrowser();
    started(fixture as WebAppFixture);
  });
  afterAll(async () => {
    await fixture.browser?.close();
    const code = await fixture.app?.stop();
    if (code !== 0) console.log(fixture.app?.output());
    cleanup();
    expect(code).toBe(0);
  });
}

/** A port free on 127.0.0.1 now, for an app started with --port (to restart it at the same address). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.PAYDESK_CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(screenshotDir, { recursive: true });
  await page.screenshot({ path: path.join(screenshotDir, `${name}.png`), fullPage: true });
}

/** Opens the app as a user would, from the printed address, and waits for the shell. */
export async function openApp(browser: Browser, app: WebApp, options: { live?: boolean; timezoneId?: string } = {}): Promise<Page> {
  const page = await browser.newPage(options.timezoneId ? { timezoneId: options.timezoneId } : {});
  page.setDefaultTimeout(10_000);
  // A push sent before the page's event stream is open never reaches it: a test about pushes waits for the stream.
  const live = options.live ? page.waitForResponse((response) => new URL(response.url()).pathname === '/events') : undefined;
  await page.goto(app.url);
  await page.getByRole('heading', { name: 'Paydesk' }).waitFor();
  await live;
  return page;
}

/**
 * A time zone in which it is now between 10 and 11 PM: times written then take two digits for their hour
 * ("10:54:04 PM"), the widest a 12-hour clock writes, whatever the hour of the run.
 */
export function lateEveningZone(now = new Date()): string {
  let offset = (22 - now.getUTCHours() + 24) % 24;
  if (offset > 14) offset -= 24;
  // The Etc zones count the other way: Etc/GMT-2 is two hours ahead of UTC.
  return offset === 0 ? 'Etc/GMT' : `Etc/GMT${offset > 0 ? '-' : '+'}${Math.abs(offset)}`;
}

/** The file a click makes the page download, and its text (a CSV file's after the byte order mark it must start with). */
export async function downloaded(page: Page, click: () => Promise<void>): Promise<{ download: Download; text: string }> {
  const [download] = await Promise.all([page.waitForEvent('download'), click()]);
  const text = await readFile(await download.path(), 'utf8');
  if (!download.suggestedFilename().endsWith('.csv')) return { download, text };
  expect(text.startsWith('\ufeff'), `${download.suggestedFilename()} starts with a byte order mark, for Excel`).toBe(true);
  return { download, text: text.slice(1) };
}

/** Picks options of a labelled Mantine MultiSelect by clicking, as a user does. */
export async function pick(page: Page, label: string, ...options: RegExp[]) {
  const input = page.getByRole('combobox', { name: label, exact: true });
  for (const option of options) {
    await input.click();
    await page.getByRole('option', { name: option }).click();
  }
  await page.keyboard.press('Escape');
}

/**
 * Calls a contract channel over the web bridge, for test setup and for checking what main holds
 * after a journey. Journeys themselves are driven through the UI.
 */
export async function rpc<T = unknown>(app: WebApp, channel: string, input?: unknown): Promise<T> {
  const response = await fetch(`${app.origin}/rpc/${channel}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-paydesk-token': app.token },
    body: JSON.stringify({ input }),
  });
  const envelope = (await response.json()) as { ok: boolean; value?: T; error?: { message: string } };
  if (!envelope.ok) throw new Error(`${channel}: ${envelope.error?.message ?? response.status}`);
  return envelope.value as T;
}
