// Runs the built team server as an operator would (`node out/main/server.js`, the file `npm run
// server` runs): a new envelope key file, the first admin from the command line (password on
// standard input), then the server on a PostgreSQL database of the test's own, its one line on
// standard output read for the address. Its standard error (the log) is kept for scanning.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { Dispatch } from '../../src/main/ipc/dispatcher';
import type { Envelope } from '../../src/shared/contract';
import { freePort, stopAndKill } from './harness';

const root = path.resolve(import.meta.dirname, '../..');
const serverJs = path.join(root, 'out/main/server.js');

export const TEAM_PASSWORD = 'correct horse battery staple';

export interface TeamServerProcess {
  origin: string;
  notifyOrigin: string;
  pid: number;
  /** Standard output and standard error so far. */
  output(): string;
  stop(): Promise<number | null>;
  kill(): Promise<NodeJS.Signals | null>;
}

export interface TeamServerSetup {
  database: string;
  dataDir: string;
  keyFile: string;
  port: number;
  notifyPort: number;
}

/** Runs one server command to its end (new-key, create-admin, rotate-key): its status and what it printed. */
export function serverCommand(args: string[], stdin = ''): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [serverJs, ...args], { cwd: root, input: stdin, encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A fresh key file and the first admin (alice), on this database. */
export async function prepareTeamServer(database: string, dataDir: string, keyFile: string): Promise<TeamServerSetup> {
  const key = serverCommand(['new-key', '--key-file', keyFile]);
  if (key.status !== 0) throw new Error(`new-key failed: ${key.stderr}`);
  const admin = serverCommand(['create-admin', '--database', database, '--key-file', keyFile, '--username', 'alice', '--name', 'Alice Admin'], `${TEAM_PASSWORD}\n`);
  if (admin.status !== 0) throw new Error(`create-admin failed: ${admin.stdout}${admin.stderr}`);
  return { database, dataDir, keyFile, port: await freePort(), notifyPort: await freePort() };
}

/** `env`: added to the test's own environment (NODE_EXTRA_CA_CERTS for a test certificate). */
export async function startTeamServer(setup: TeamServerSetup, extraArgs: string[] = [], env: Record<string, string> = {}): Promise<TeamServerProcess> {
  const child: ChildProcess = spawn(
    process.execPath,
    [serverJs, '--database', setup.database, '--key-file', setup.keyFile, '--data-dir', setup.dataDir, '--listen', `127.0.0.1:${setup.port}`, '--notify-listen', `127.0.0.1:${setup.notifyPort}`, ...extraArgs],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const origin = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the team server did not say where it listens within 30 s:\n${output}`)), 30_000);
    child.stdout?.on('data', () => {
      const match = /listening on (https?:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.on('exit', (code) => reject(new Error(`the team server exited with ${code}:\n${output}`)));
  });
  return {
    origin,
    notifyOrigin: `http://127.0.0.1:${setup.notifyPort}`,
    pid: child.pid ?? 0,
    output: () => output,
    ...stopAndKill(child),
  };
}

/** A person's calls from the test itself (setup, checks), as a desktop makes them: a bearer token. */
export async function teamCall<T = unknown>(origin: string, token: string, channel: string, input?: unknown): Promise<T> {
  const response = await fetch(`${origin}/rpc/${channel}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ input }) });
  const envelope = (await response.json()) as { ok: boolean; value?: T; error?: { message: string } };
  if (!envelope.ok) throw new Error(`${channel}: ${envelope.error?.message ?? response.status}`);
  return envelope.value as T;
}

/** A person's dispatch over the server's HTTP (a bearer token), for the batch helpers. */
export const teamDispatch = (origin: string, token: string): Dispatch => async (channel, input) => {
  const response = await fetch(`${origin}/rpc/${channel}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ input }) });
  return (await response.json()) as Envelope<unknown>;
};

export async function teamToken(origin: string, username: string, password = TEAM_PASSWORD): Promise<string> {
  const response = await fetch(`${origin}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password, client: 'desktop' }) });
  const body = (await response.json()) as { ok: boolean; value?: { token: string }; error?: { message: string } };
  if (!body.ok || !body.value) throw new Error(`sign-in of ${username}: ${body.error?.message ?? response.status}`);
  return body.value.token;
}

/** A person signs in on the server's page as they would: the form, then the app. */
export async function signInPage(browser: Browser, origin: string, username: string, password = TEAM_PASSWORD): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  await page.goto(origin);
  await page.getByLabel('User name').fill(username);
  await page.getByRole('textbox', { name: 'Password' }).fill(password);
  const stream = page.waitForResponse((response) => new URL(response.url()).pathname === '/events');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('signed-in-person').waitFor();
  await stream;
  return page;
}
