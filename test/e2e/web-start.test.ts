// Web mode's start-up order, on the built entry (out/main/web.js): the server listens and prints
// its address (as "starting") before the core's code is even loaded, so the browser fetches the
// page meanwhile; the core then starts as before (every recovery step runs), calls made early wait
// for it, "ready" is printed once it is up, and a ledger the build cannot open still ends the
// process with its message, followed by a line saying the address no longer answers. With
// --database it runs on PostgreSQL: Settings names the engine and the address (never its
// password), and a server that refuses the connection ends the process with a message naming it.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteFile } from '../../src/main/ledger/connection';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database';
import { tempDir } from '../helpers/temp-dir';
import { launchBrowser } from './harness';

const root = path.resolve(__dirname, '../..');
const temp = tempDir('paydesk-web-start-');
afterAll(() => temp.cleanup());

interface Started {
  child: ChildProcess;
  /** stdout and stderr as they arrived (their relative order is not guaranteed). */
  output: () => string;
  stdout: () => string;
  exited: Promise<number | null>;
}

function start(dataDir: string, env: Record<string, string> = {}, extraArgs: string[] = []): Started {
  const child = spawn(process.execPath, [path.join(root, 'out/main/web.js'), '--data-dir', dataDir, ...extraArgs], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let output = '';
  let stdout = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  // 'close', not 'exit': by then every byte the process printed has been read.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { child, output: () => output, stdout: () => stdout, exited };
}

async function addressOf(started: Started): Promise<URL> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const match = /http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+/.exec(started.output());
    if (match) return new URL(match[0]);
    if (started.child.exitCode !== null || Date.now() > deadline) throw new Error(`no address printed:\n${started.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const call = (address: URL, channel: string) =>
  fetch(`${address.origin}/rpc/${channel}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-paydesk-token': address.searchParams.get('token') ?? '' },
    body: '{}',
  }).then((res) => res.json() as Promise<{ ok: boolean; value?: unknown; error?: { code: string } }>);

async function printed(started: Started, text: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!started.output().includes(text)) {
    if (started.child.exitCode !== null || Date.now() > deadline) throw new Error(`"${text}" not printed:\n${started.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const STARTING = 'Paydesk is starting in web mode. Its address, for your browser:';
const READY = 'Paydesk is ready: open the address above in your browser.';
const NOT_STARTED = 'Paydesk did not start: the address above no longer answers.';

async function stop(started: Started): Promise<number | null> {
  if (started.child.exitCode === null) started.child.kill('SIGTERM');
  return started.exited;
}

describe('web mode start-up', () => {
  it('prints its address as starting before loading the core, answers an early call once the core is up, runs every start-up step, then prints ready', async () => {
    const started = start(path.join(temp.dir, 'traced'), { PAYDESK_TRACE: '1' });
    try {
      const address = await addressOf(started);
      // Called at once: waits for the core rather than failing.
      const early = await call(address, 'settings:get');
      expect(early.ok).toBe(true);
      const phases = [...started.output().matchAll(/^trace \S+ @\S+ cpu \d+ ms (.*)$/gm)].map((m) => m[1]);
      const at = (phase: string) => phases.indexOf(phase);
      expect(at('main: listening, printing the address')).toBeGreaterThan(-1);
      expect(at('main: listening, printing the address')).toBeLessThan(at('main: core modules loaded'));
      expect(at('main: core modules loaded')).toBeLessThan(at('main: core created'));
      // The start-up work over the ledger still runs, in its order, before the core answers.
      const steps = ['core: ledger open', 'core: listener bound', 'core: applier.recoverPending done', 'core: attempts.recoverInterrupted done', 'core: applier.retryOrphans done', 'core: verifier.recover done', 'core: batches.recover done', 'main: core created'];
      expect(steps.map(at).every((index, i, all) => index > -1 && (i === 0 || index > (all[i - 1] ?? -1)))).toBe(true);
      // The address comes with "starting" (its URL alone on the next line, as scripts read it);
      // "ready" only once the core is up.
      await printed(started, READY);
      const stdout = started.stdout();
      expect(stdout).toContain(`${STARTING}\n  ${address.href}\n`);
      expect(stdout.indexOf(STARTING)).toBeLessThan(stdout.indexOf(READY));
      expect(started.output().indexOf(STARTING)).toBeLessThan(started.output().indexOf('notification listener on'));
      expect(stdout).not.toMatch(/Open this address|is running/);
    } finally {
      expect(await stop(started)).toBe(0);
    }
  });

  it('asked to stop while the core is still starting, starts it, closes it and exits 0', async () => {
    const started = start(path.join(temp.dir, 'stopped-early'));
    await addressOf(started);
    // The address comes before the core's code is loaded: this stop arrives while it starts.
    expect(started.output()).not.toContain(READY);
    expect(await stop(started)).toBe(0);
  });

  it('prints no trace unless asked', async () => {
    const started = start(path.join(temp.dir, 'quiet'), { PAYDESK_TRACE: '' });
    try {
      expect((await call(await addressOf(started), 'settings:get')).ok).toBe(true);
      expect(started.output()).not.toMatch(/^trace /m);
    } finally {
      expect(await stop(started)).toBe(0);
    }
  });

  it('ends with the ledger message, a line saying the address no longer answers, and status 1 when the ledger was written by a newer Paydesk', async () => {
    const dataDir = path.join(temp.dir, 'newer');
    mkdirSync(dataDir, { recursive: true });
    const file = path.join(dataDir, 'ledger.sqlite');
    openSqliteFile({ file }).close();
    const raw = new Database(file);
    raw.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'from-the-future', 'x')").run();
    raw.close();
    const started = start(dataDir);
    expect(await started.exited).toBe(1);
    const output = started.output();
    expect(output).toContain(STARTING); // printed before the ledger was opened…
    expect(output).toContain(`Paydesk cannot open its ledger: This ledger (SQLite ${file}) was written by a newer Paydesk (schema version 999, `);
    // …so the failure says plainly that the address is gone, after the reason; never "ready".
    expect(output.indexOf('Paydesk cannot open its ledger')).toBeLessThan(output.indexOf(NOT_STARTED));
    expect(output).not.toContain(READY);
  });
});

describe('web mode on a PostgreSQL ledger (--database)', () => {
  // A password in the address: the test server trusts loopback connections, so it is ignored
  // there, and it must show nowhere (output, app info, Settings).
  const PASSWORD = 'e2e-never-shown';
  let database: TestDatabase;
  let browser: Browser | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await browser?.close();
    await database?.drop();
  });

  it('keeps its ledger in that database, shows PostgreSQL and the address without its password in Settings, and exits 0 on SIGTERM', async () => {
    const dataDir = path.join(temp.dir, 'postgres');
    const url = new URL(database.url);
    url.password = PASSWORD;
    const shown = url.href.replace(`:${PASSWORD}@`, ':***@');
    const started = start(dataDir, {}, ['--database', url.href]);
    try {
      const address = await addressOf(started);
      await printed(started, READY);
      const info = (await call(address, 'app:get-info')) as { ok: boolean; value?: { ledger: { engine: string; location: string; schemaVersion: number } } };
      expect(info.value?.ledger).toMatchObject({ engine: 'postgres', location: shown });
      expect(info.value?.ledger.schemaVersion).toBeGreaterThan(0);

      browser = await launchBrowser();
      const page = await browser.newPage();
      page.setDefaultTimeout(10_000);
      await page.goto(address.href);
      await page.getByRole('heading', { name: 'Paydesk' }).waitFor();
      await page.getByRole('navigation').getByRole('link', { name: 'Settings' }).click();
      await expect.poll(() => page.getByTestId('ledger-location').textContent()).toBe(shown);
      const ledgerLine = page.getByTestId('ledger-location').locator('..');
      expect(await ledgerLine.textContent()).toMatch(/^PostgreSQL /);
      expect(await page.content()).not.toContain(PASSWORD);
      await page.close();
    } finally {
      expect(await stop(started)).toBe(0);
    }
    expect(started.output()).toContain(`Ledger: PostgreSQL ${shown}`);
    expect(started.output()).not.toContain(PASSWORD);
    // The ledger is the database's, not a file beside the data directory.
    expect(existsSync(path.join(dataDir, 'ledger.sqlite'))).toBe(false);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const profiles = await client.query<{ n: string }>("SELECT count(*) AS n FROM profiles WHERE environment = 'local'");
      expect(Number(profiles.rows[0]?.n)).toBe(1);
    } finally {
      await client.end();
    }
  });

  it('ends with a message naming the server that refused the connection, and status 1', async () => {
    const started = start(path.join(temp.dir, 'refused'), {}, ['--database', 'postgres://paydesk@127.0.0.1:1/paydesk']);
    expect(await started.exited).toBe(1);
    const output = started.output();
    expect(output).toContain('Paydesk cannot open its ledger: PostgreSQL refused the connection at 127.0.0.1:1');
    expect(output.indexOf('Paydesk cannot open its ledger')).toBeLessThan(output.indexOf(NOT_STARTED));
    expect(output).not.toContain(READY);
  });
});
