// A private PostgreSQL cluster for tests: initdb in a temporary directory and pg_ctl start on a free
// loopback port, as the unprivileged `postgres` user when the tests run as root (initdb refuses
// root); stop() stops it and removes the directory. test/setup/postgres.ts starts one when no
// server answers; test/integration/ledger/private-cluster.test.ts starts one to prove that path.
// Every tool call is bounded in time, so a stuck server fails the caller instead of hanging it.
// No vitest imports: the global setup loads this file too.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface PrivateCluster {
  /** The superuser's URL (postgres://postgres[:password]@127.0.0.1:<port>/postgres). */
  url: string;
  port: number;
  /** The temporary directory: the data directory, the server log and the socket. */
  dir: string;
  /** Stops the server (fast shutdown) and removes the directory; safe to call twice. */
  stop: () => void;
}

export interface PrivateClusterOptions {
  /**
   * The superuser's password: TCP connections then authenticate with scram-sha-256 (a wrong
   * password is refused with 28P01). Without it, trust, as the tests' own cluster.
   */
  password?: string;
  /** Upper bound of each of initdb, pg_ctl start and pg_ctl stop. Default 60 s. */
  toolTimeoutMs?: number;
}

const ROOT = '/usr/lib/postgresql';

/** The newest installed PostgreSQL's bin directory holding initdb (Debian's `postgresql`), or undefined. */
export function postgresBin(): string | undefined {
  const versions = existsSync(ROOT) ? readdirSync(ROOT).sort((a, b) => Number(b) - Number(a)) : [];
  for (const version of versions) {
    const bin = path.join(ROOT, version, 'bin');
    if (existsSync(path.join(bin, 'initdb')) && existsSync(path.join(bin, 'pg_ctl'))) return bin;
  }
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const asRoot = () => process.getuid?.() === 0;

/** Runs a PostgreSQL tool, as the unprivileged `postgres` user when we are root; its output is kept for the error. */
function asServerUser(command: string, args: string[], timeout: number): void {
  const [file, argv] = asRoot() ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
  try {
    execFileSync(file, argv, { stdio: 'pipe', timeout });
  } catch (error) {
    const e = error as { stderr?: Buffer; stdout?: Buffer; message: string };
    throw new Error(`${path.basename(command)} failed: ${e.message}\n${e.stderr?.toString() ?? ''}${e.stdout?.toString() ?? ''}`);
  }
}

export async function startPrivateCluster(options: PrivateClusterOptions = {}): Promise<PrivateCluster> {
  const bin = postgresBin();
  if (!bin) throw new Error(`initdb was not found under ${ROOT}: run \`npm run setup:system\` (installs Debian's postgresql).`);
  const timeout = options.toolTimeoutMs ?? 60_000;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'paydesk-pg-'));
  const data = path.join(dir, 'data');
  const pg = (tool: string, args: string[]) => asServerUser(path.join(bin, tool), args, timeout);
  let started = false;
  const stop = () => {
    try {
      if (started) pg('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
    } finally {
      started = false;
      rmSync(dir, { recursive: true, force: true });
    }
  };
  try {
    chmodSync(dir, 0o700);
    if (asRoot()) execFileSync('chown', ['postgres:', dir]);
    const port = await freePort();
    const auth = ['--auth-local=trust'];
    if (options.password === undefined) auth.push('--auth-host=trust');
    else {
      const pwfile = path.join(dir, 'pwfile');
      writeFileSync(pwfile, `${options.password}\n`, { mode: 0o600 });
      if (asRoot()) execFileSync('chown', ['postgres:', pwfile]);
      auth.push('--auth-host=scram-sha-256', `--pwfile=${pwfile}`);
    }
    // --no-sync: a throwaway cluster need not wait for its files to reach the disk.
    pg('initdb', ['-D', data, '-U', 'postgres', ...auth, '--no-sync', '--encoding=UTF8', '--locale=C.UTF-8']);
    rmSync(path.join(dir, 'pwfile'), { force: true });
    started = true;
    pg('pg_ctl', ['-D', data, '-l', path.join(dir, 'server.log'), '-w', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`, 'start']);
    const password = options.password === undefined ? '' : `:${encodeURIComponent(options.password)}`;
    return { url: `postgres://postgres${password}@127.0.0.1:${port}/postgres`, port, dir, stop };
  } catch (error) {
    try {
      stop();
    } catch {
      // The first failure is the one to report.
    }
    throw error;
  }
}
