// Stopping the long-running commands the ways an operator or a service manager does.
// `npm run server` and `npm start -- --web` (each on a PostgreSQL database of the test's own) and
// `npm run gateway`, each started through npm in a process group of its own, as a terminal or
// systemd starts it, then sent SIGTERM in each of the four ways it comes: to npm, to the script
// npm's line runs, to the process that serves, and to the whole group (Ctrl+C, systemd's default
// KillMode: npm passes the signal on, so the server gets it twice). Each way is one clean stop:
// npm exits 0, "stopped" is logged once, the address no longer answers, no process of the group
// is left and neither is a connection to the database. And a payment on its way to the gateway
// when the stop begins is answered and recorded, however many signals follow it. The first run
// (new-key) builds the app; the others start that build (PAYDESK_NO_BUILD=1).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Envelope, SubmitResult } from '../../src/shared/contract';
import { serverCommand, teamCall, teamToken } from '../e2e/team-harness';
import { payinForm } from '../helpers/fixtures';
import { waitFor } from '../helpers/poll';
import { startSpecGateway, type SpecGateway } from '../helpers/spec-gateway';
import { adminUrl, createTestDatabase, type TestDatabase } from '../helpers/test-database';
import { tempDir } from '../helpers/temp-dir';

const root = path.resolve(import.meta.dirname, '../..');
const temp = tempDir('paydesk-stopping-');
let serverDatabase: TestDatabase;
let webDatabase: TestDatabase;
let gateway: SpecGateway;
const keyFile = path.join(temp.dir, 'envelope.key');

interface Launched {
  child: ChildProcess;
  /** Standard output and standard error so far (npm's banner, the build's warnings, the log). */
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const launched: Launched[] = [];
let built = false;

function launch(command: string, args: string[]): Launched {
  // A process group of its own, led by npm, as a terminal or a service manager starts it.
  const env = { ...process.env, NO_COLOR: '1', ...(built ? { PAYDESK_NO_BUILD: '1' } : {}) };
  const child = spawn('npm', ['run', command, '--', ...args], { cwd: root, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  // 'close', not 'exit': by then every line the group printed has been read.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  const run = { child, output: () => output, exited };
  launched.push(run);
  return run;
}

function groupAlive(run: Launched): boolean {
  try {
    process.kill(-(run.child.pid as number), 0);
    return true;
  } catch {
    return false;
  }
}

/** npm's descendants, nearest first, each with its arguments. */
function descendants(pid: number): { pid: number; argv: string[] }[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // ended meanwhile
    }
  }
  const found: { pid: number; argv: string[] }[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift() as number) ?? []) {
      let argv: string[] = [];
      try {
        argv = readFileSync(`/proc/${child}/cmdline`, 'utf8').split('\0');
      } catch {
        // ended meanwhile
      }
      found.push({ pid: child, argv });
      queue.push(child);
    }
  }
  return found;
}

const answers = (address: URL): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = net.connect(Number(address.port), address.hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

async function connectionsTo(database: TestDatabase): Promise<number> {
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1', [database.name]);
    return Number(rows[0]?.n);
  } finally {
    await client.end();
  }
}

interface Command {
  name: string;
  /** The script npm's line runs (the "wrapper" of the issue). */
  script: string;
  args(): string[];
  /** The address it serves, once it says it is ready. */
  ready(output: string): URL | undefined;
  database?: () => TestDatabase;
}

const server: Command = {
  name: 'server',
  script: 'scripts/server.mjs',
  args: () => ['--database', serverDatabase.url, '--key-file', keyFile, '--data-dir', path.join(temp.dir, 'server'), '--listen', '127.0.0.1:0', '--notify-listen', '127.0.0.1:0'],
  ready: (output) => {
    const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
    return match ? new URL(match[1] as string) : undefined;
  },
  database: () => serverDatabase,
};

const web: Command = {
  name: 'start',
  script: 'scripts/start.mjs',
  args: () => ['--web', '--data-dir', path.join(temp.dir, 'web'), '--database', webDatabase.url],
  ready: (output) => {
    const match = /http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+/.exec(output);
    return match && output.includes('Paydesk is ready') ? new URL(match[0]) : undefined;
  },
  database: () => webDatabase,
};

const emulator: Command = {
  name: 'gateway',
  script: 'src/emulator/cli.ts',
  args: () => ['--port', '0', '--quiet'],
  ready: (output) => {
    const line = output.split('\n').find((l) => l.startsWith('{'));
    return line ? new URL((JSON.parse(line) as { base_url: string }).base_url) : undefined;
  },
};

async function started(command: Command): Promise<{ run: Launched; address: URL }> {
  const run = launch(command.name, command.args());
  const address = await waitFor(() => command.ready(run.output()), (found) => found !== undefined || run.child.exitCode !== null, `npm run ${command.name} to be ready`, 60_000);
  if (!address) throw new Error(`npm run ${command.name} ended before it was ready:\n${run.output()}`);
  expect(await answers(address)).toBe(true);
  return { run, address };
}

type Way = 'npm' | 'script' | 'server' | 'group';

/** The pid to signal (negative: the process group). */
function target(way: Way, run: Launched, command: Command): number {
  const npm = run.child.pid as number;
  if (way === 'npm') return npm;
  if (way === 'group') return -npm;
  const tree = descendants(npm);
  // The script's process is the first that runs it (a shell of npm's would only name it in its
  // `-c` line); the process that serves is the last of the chain, whatever stands before it.
  const runsScript = (argv: string[]) => path.basename(argv[0] ?? '') === 'node' && argv.includes(command.script);
  const found = way === 'script' ? tree.find((p) => runsScript(p.argv)) : tree.at(-1);
  if (!found) throw new Error(`no ${way} process under npm: ${JSON.stringify(tree)}`);
  return found.pid;
}

async function expectOneCleanStop(command: Command, run: Launched, address: URL): Promise<void> {
  const ended = await Promise.race([run.exited, new Promise<'running'>((resolve) => setTimeout(() => resolve('running'), 30_000))]);
  expect(ended, `npm run ${command.name} after the signal:\n${run.output()}`).toEqual({ code: 0, signal: null });
  // The servers' JSON log line ("msg":"stopped"), or the emulator's plain one.
  expect(run.output().match(/(^|[\s\]])stopped$|"msg":"stopped"/gm), run.output()).toHaveLength(1);
  await waitFor(() => groupAlive(run), (alive) => !alive, 'every process of the group to end', 5_000);
  expect(await answers(address)).toBe(false);
  const database = command.database?.();
  if (database) await waitFor(() => connectionsTo(database), (n) => n === 0, `the connections to ${database.name} to be released`, 5_000);
}

beforeAll(async () => {
  serverDatabase = await createTestDatabase();
  webDatabase = await createTestDatabase();
  mkdirSync(path.join(temp.dir, 'server'), { recursive: true });
  gateway = await startSpecGateway();
  // Through npm once (it builds out/), then the first admin as team-harness makes it.
  const key = launch('server', ['new-key', '--key-file', keyFile]);
  expect((await key.exited).code, key.output()).toBe(0);
  built = true;
  const admin = serverCommand(['create-admin', '--database', serverDatabase.url, '--key-file', keyFile, '--username', 'alice', '--name', 'Alice Admin'], 'correct horse battery staple\n');
  expect(admin.status, admin.stderr).toBe(0);
}, 120_000);

afterEach(() => {
  for (const run of launched.splice(0)) {
    if (groupAlive(run)) process.kill(-(run.child.pid as number), 'SIGKILL');
  }
});

afterAll(async () => {
  await gateway?.close();
  await serverDatabase?.drop();
  await webDatabase?.drop();
  temp.cleanup();
});

describe.each([server, web, emulator])('npm run $name', (command) => {
  it.each(['npm', 'script', 'server', 'group'] as const)('SIGTERM to %s: one clean stop, exit 0', async (way) => {
    const { run, address } = await started(command);
    process.kill(target(way, run, command), 'SIGTERM');
    await expectOneCleanStop(command, run, address);
  }, 90_000);
});

/** A sandbox profile on the test's gateway, whose next create is answered after `ms`. */
async function slowGatewayProfile(call: (channel: string, input: unknown) => Promise<unknown>, ms: number): Promise<string> {
  const profile = (await call('profiles:create', { name: `Slow sandbox ${Date.now()}`, environment: 'sandbox', baseUrl: gateway.baseUrl, merchantId: gateway.merchant.merchant_id, merchantSiteId: gateway.merchant.merchant_site_id })) as { id: string };
  await call('credentials:set-merchant-token', { profileId: profile.id, token: gateway.merchant.merchant_token });
  gateway.createFaults.push({ type: 'slow_answer', ms });
  return profile.id;
}

/** The call's answer, or what cut it (shown by the assertion rather than left unhandled). */
const settled = <T>(call: Promise<T>): Promise<{ value: T } | { error: string }> => call.then((value) => ({ value }), (error: unknown) => ({ error: String((error as Error).cause ?? error) }));

/** Once the create is at the gateway: Ctrl+C (the whole group), then SIGINT to the server, then SIGTERM to npm. */
async function stopImpatiently(command: Command, run: Launched, requestId: string): Promise<void> {
  await waitFor(() => gateway.calls.some((c) => c.reference === requestId), (sent) => sent, 'the create to reach the gateway', 10_000);
  const serving = target('server', run, command);
  // A stop that did not wait for the create has ended the process already: the create's answer says so.
  const send = (pid: number, signal: NodeJS.Signals) => {
    try {
      process.kill(pid, signal);
    } catch {
      // gone
    }
  };
  send(target('group', run, command), 'SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 300));
  send(serving, 'SIGINT');
  await new Promise((resolve) => setTimeout(resolve, 300));
  send(target('npm', run, command), 'SIGTERM');
}

describe('a stop while a payment is on its way to the gateway', () => {
  it('npm run server: the create is answered and recorded, the signals that follow only logged', async () => {
    const { run, address } = await started(server);
    const token = await teamToken(address.origin, 'alice');
    const profileId = await slowGatewayProfile((channel, input) => teamCall(address.origin, token, channel, input), 2_500);
    const form = payinForm('open_banking', { profileId, requestId: `stop-server-${Date.now()}` });
    const created = settled(teamCall<SubmitResult>(address.origin, token, 'payins:create', form));
    await stopImpatiently(server, run, form.request_id as string);
    expect(await created).toMatchObject({ value: { payin: { requestId: form.request_id, payinId: expect.stringMatching(/^PI\./) }, attempt: { state: 'succeeded' } } });
    expect(run.output()).toMatch(/SIGINT: already stopping/);
    await expectOneCleanStop(server, run, address);
  }, 90_000);

  it('npm start (web mode): the create is answered and recorded, the signals that follow only logged', async () => {
    const { run, address } = await started(web);
    const call = async (channel: string, input: unknown) => {
      const response = await fetch(`${address.origin}/rpc/${channel}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-paydesk-token': address.searchParams.get('token') ?? '' }, body: JSON.stringify({ input }) });
      const envelope = (await response.json()) as Envelope<unknown>;
      if (!envelope.ok) throw new Error(`${channel}: ${envelope.error.message}`);
      return envelope.value;
    };
    const profileId = await slowGatewayProfile(call, 2_500);
    const form = payinForm('open_banking', { profileId, requestId: `stop-web-${Date.now()}` });
    const created = settled(call('payins:create', form));
    await stopImpatiently(web, run, form.request_id as string);
    expect(await created).toMatchObject({ value: { payin: { requestId: form.request_id, payinId: expect.stringMatching(/^PI\./) }, attempt: { state: 'succeeded' } } });
    expect(run.output()).toMatch(/SIGINT: already stopping/);
    await expectOneCleanStop(web, run, address);
  }, 90_000);
});
