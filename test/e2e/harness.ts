// Starts the built app in web mode as a user would (a child process printing its address) and
// drives it in Debian's Chromium through playwright-core.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { type Browser, chromium, type Download, type Page } from 'playwright-core';

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
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill('SIGTERM');
      }),
    kill: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.signalCode);
        child.once('exit', (_code, signal) => resolve(signal));
        child.kill('SIGKILL');
      }),
  };
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
export async function openApp(browser: Browser, app: WebApp, options: { live?: boolean } = {}): Promise<Page> {
  const page = await browser.newPage();
  page.setDefaultTimeout(10_000);
  // A push sent before the page's event stream is open never reaches it: a test about pushes waits for the stream.
  const live = options.live ? page.waitForResponse((response) => new URL(response.url()).pathname === '/events') : undefined;
  await page.goto(app.url);
  await page.getByRole('heading', { name: 'Paydesk' }).waitFor();
  await live;
  return page;
}

/** The file a click makes the page download, and its text. */
export async function downloaded(page: Page, click: () => Promise<void>): Promise<{ download: Download; text: string }> {
  const [download] = await Promise.all([page.waitForEvent('download'), click()]);
  const file = await download.path();
  return { download, text: await readFile(file, 'utf8') };
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
