// The fixed interface: `npm run gateway -- --port N` prints exactly one JSON ready line on stdout
// once it accepts connections and exits 0 on SIGINT and on SIGTERM. Started as a real child
// process through npm (which runs it on node with tsx's loader), the way tests outside the project
// start it. Every way of stopping it is test/reliability/stopping.test.ts's.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { describe, expect, test } from 'vitest';

const ROOT = process.env.GATEWAY_TEST_CWD ?? new URL('../../', import.meta.url).pathname;

interface Running {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function npmGateway(args: string[]): Running {
  // Own process group, so cleanup can reach npm's children even if a signal was not passed on.
  const child = spawn('npm', ['run', 'gateway', '--', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' }, detached: true });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return { child, stdout: () => out, stderr: () => err, exited };
}

function killGroup(r: Running): void {
  try {
    process.kill(-(r.child.pid as number), 'SIGKILL');
  } catch {
    /* already gone */
  }
}

/** The JSON lines on stdout (npm itself prints a "> paydesk@… gateway" banner before them). */
const jsonLines = (out: string): string[] => out.split('\n').filter((l) => l.startsWith('{'));

async function ready(r: Running, timeoutMs = 20_000): Promise<Record<string, string>> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const [line] = jsonLines(r.stdout());
    if (line) return JSON.parse(line) as Record<string, string>;
    if (r.child.exitCode !== null) break;
    await new Promise((res) => setTimeout(res, 50));
  }
  killGroup(r);
  throw new Error(`no ready line; stdout=${r.stdout()} stderr=${r.stderr()}`);
}

async function exitWithin(r: Running, ms: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const timeout = new Promise<'timeout'>((res) => setTimeout(() => res('timeout'), ms));
  const result = await Promise.race([r.exited, timeout]);
  if (result === 'timeout') {
    killGroup(r);
    throw new Error(`did not exit within ${ms} ms; stderr=${r.stderr()}`);
  }
  return result;
}

const portFree = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.on('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.on('error', () => resolve(true));
  });

describe('npm run gateway', () => {
  test.each(['SIGINT', 'SIGTERM'] as const)('prints one JSON ready line, serves, and exits 0 on %s', async (signal) => {
    const r = npmGateway(['--port', '0']);
    const info = await ready(r);
    expect(Object.keys(info).sort()).toEqual(['admin_url', 'base_url', 'merchant_id', 'merchant_site_id', 'merchant_token']);
    expect(info.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v2$/);
    expect(info.admin_url).toBe(info.base_url?.replace('/api/v2', '/_emulator'));
    const res = await fetch(`${info.base_url}/payment/get-status`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'merchant-token': info.merchant_token as string },
      body: JSON.stringify({ merchant_id: info.merchant_id, request_id: 'x' }),
    });
    expect(res.status).toBe(400);
    r.child.kill(signal); // to npm only, as a harness holding the npm process would
    const { code, signal: bySignal } = await exitWithin(r, 10_000).finally(() => setTimeout(() => killGroup(r), 2_000));
    expect({ code, signal: bySignal }).toEqual({ code: 0, signal: null });
    expect(jsonLines(r.stdout())).toHaveLength(1);
    expect(await portFree(Number(new URL(info.base_url as string).port))).toBe(true);
  }, 40_000);

  test('--port N, --host and fixed merchant credentials are honoured', async () => {
    const probe = net.createServer();
    const port = await new Promise<number>((res) => probe.listen(0, '127.0.0.1', () => res((probe.address() as net.AddressInfo).port)));
    await new Promise((res) => probe.close(res));
    const r = npmGateway(['--port', String(port), '--host', '127.0.0.1', '--merchant-id', 'm-cli', '--merchant-site-id', 's-cli', '--merchant-token', 't-cli', '--quiet']);
    try {
      const info = await ready(r);
      expect(info).toEqual({ base_url: `http://127.0.0.1:${port}/api/v2`, admin_url: `http://127.0.0.1:${port}/_emulator`, merchant_id: 'm-cli', merchant_site_id: 's-cli', merchant_token: 't-cli' });
    } finally {
      r.child.kill('SIGTERM');
      await exitWithin(r, 10_000);
    }
  }, 40_000);

  test('--help documents every option', async () => {
    const r = npmGateway(['--help']);
    const { code } = await exitWithin(r, 20_000);
    expect(code).toBe(0);
    for (const opt of ['--port', '--host', '--data', '--merchant-id', '--merchant-site-id', '--merchant-token', '--notify-first-delay-ms', '--notify-first-retry-ms', '--notify-backoff-factor', '--notify-max-delay-ms', '--notify-max-attempts', '--notify-timeout-ms', '--rate-limit-burst', '--rate-limit-refill', '--settle-every', '--fee', '--enforce-wallet-balance', '--quiet', '--help']) {
      expect(r.stdout()).toContain(opt);
    }
  }, 30_000);

  test.each([
    [['--port', 'eighty'], /--port must be an integer/],
    [['--settle-every', '2w'], /--settle-every must be a period from 1s to 1d/],
    [['--fee', 'credit_card=3'], /--fee credit_card= needs PERCENT%\+FIXED/],
  ])('a bad option (%j) exits 2 with a message on stderr and nothing on stdout but npm’s banner', async (args, message) => {
    const r = npmGateway(args);
    const { code } = await exitWithin(r, 20_000);
    expect(code).not.toBe(0);
    expect(r.stderr()).toMatch(message);
    expect(jsonLines(r.stdout())).toHaveLength(0);
  }, 30_000);

  test('--settle-every, --fee and --enforce-wallet-balance reach the settlement', async () => {
    const r = npmGateway(['--port', '0', '--quiet', '--settle-every', '2s', '--fee', 'blik=2%+0.10', '--fee', 'crypto=0.5%', '--enforce-wallet-balance']);
    try {
      const info = await ready(r);
      const get = async (path: string) => (await fetch(`${info.admin_url}${path}`)).json() as Promise<Record<string, unknown>>;
      expect((await get('/settlements')).period).toBe('2s');
      expect((await get('/settlement-fees')).fees).toMatchObject({ blik: { percent: '2', fixed: '0.1' }, crypto: { percent: '0.5', fixed: '0' }, credit_card: { percent: '2.9', fixed: '0.25' } });
      expect((await get('/wallet')).enforce_balance).toBe(true);
    } finally {
      r.child.kill('SIGTERM');
      await exitWithin(r, 10_000);
    }
  }, 40_000);
});
