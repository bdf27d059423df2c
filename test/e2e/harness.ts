// Starts the built app in web mode as a user would (a child process printing its address) and
// drives it in Debian's Chromium through playwright-core.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';

const root = path.resolve(__dirname, '../..');
export const screenshotDir = path.join(root, 'test-results', 'screens');

export interface WebApp {
  url: string;
  origin: string;
  token: string;
  output: () => string;
  stop(): Promise<number | null>;
}

export async function startWebApp(dataDir: string, extraArgs: string[] = []): Promise<WebApp> {
  const child: ChildProcess = spawn(process.execPath, [path.join(root, 'out/main/web.js'), '--data-dir', dataDir, ...extraArgs], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
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
    output: () => output,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill('SIGTERM');
      }),
  };
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
