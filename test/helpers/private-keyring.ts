// A real gnome-keyring on a private D-Bus session bus of its own, which a test can lock and
// unlock: a child process given `env` sees only this keyring. Locking goes over D-Bus
// (org.freedesktop.Secret.Service.Lock), unlocking the way a user without a desktop would do it
// (`gnome-keyring-daemon --replace --unlock`, the password on standard input). Both daemons run
// in the foreground as this process's children and are stopped by their ids.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { until as waitUntil } from './poll';
import { tempDir } from './temp-dir';

const run = promisify(execFile);
const PASSWORD = 'paydesk-test-keyring';
const LOGIN = '/org/freedesktop/secrets/collection/login';

export interface PrivateKeyring {
  /** Environment for a child that should use this keyring (D-Bus address, XDG directories). */
  env: Record<string, string>;
  lock(): Promise<void>;
  unlock(): Promise<void>;
  /** The login collection's Locked property, read over D-Bus. */
  locked(): Promise<boolean>;
  stop(): Promise<void>;
}

function firstLine(child: ChildProcess, what: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`${what} printed nothing within ${timeoutMs} ms`)), timeoutMs);
    child.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const line = text.split('\n')[0];
      if (text.includes('\n') && line) {
        clearTimeout(timer);
        resolve(line.trim());
      }
    });
    child.once('exit', (code) => reject(new Error(`${what} exited with ${code}`)));
  });
}

function stopChild(child: ChildProcess | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
    const force = setTimeout(() => child.kill('SIGKILL'), 2_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

export async function startPrivateKeyring(): Promise<PrivateKeyring> {
  const temp = tempDir('paydesk-keyring-');
  const dirs = { XDG_DATA_HOME: path.join(temp.dir, 'data'), XDG_RUNTIME_DIR: path.join(temp.dir, 'run'), HOME: path.join(temp.dir, 'home') };
  for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  const bus = spawn('dbus-daemon', ['--session', '--nofork', '--print-address=1'], { stdio: ['ignore', 'pipe', 'ignore'] });
  let keyring: ChildProcess | undefined;
  try {
    const address = await firstLine(bus, 'dbus-daemon', 10_000);
    const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', ...dirs, DBUS_SESSION_BUS_ADDRESS: address };
    const call = (dest: string, objectPath: string, method: string, ...args: string[]) =>
      run('gdbus', ['call', '--session', '--dest', dest, '--object-path', objectPath, '--method', method, ...args], { env, timeout: 5_000 });
    // Asked first, because a call to an unowned org.freedesktop.secrets makes the bus start a
    // keyring daemon of its own (D-Bus activation), locked and not this process's child.
    const serviceOwned = async () => (await call('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus.NameHasOwner', 'org.freedesktop.secrets')).stdout.includes('true');
    const loginOffered = async () =>
      (await serviceOwned()) &&
      (await call('org.freedesktop.secrets', '/org/freedesktop/secrets', 'org.freedesktop.DBus.Properties.Get', 'org.freedesktop.Secret.Service', 'Collections')).stdout.includes(LOGIN);
    const locked = async () => (await call('org.freedesktop.secrets', LOGIN, 'org.freedesktop.DBus.Properties.Get', 'org.freedesktop.Secret.Collection', 'Locked')).stdout.includes('true');
    /** Bounded: 5 s, 100 ms apart; a check that fails counts as not yet. */
    const until = (check: () => Promise<boolean>, what: string) => waitUntil(() => check().catch(() => false), what, 5_000, 100);
    const startDaemon = async (replace: boolean) => {
      const daemon = spawn('gnome-keyring-daemon', [...(replace ? ['--replace'] : []), '--foreground', '--unlock', '--components=secrets'], { env, stdio: ['pipe', 'ignore', 'ignore'] });
      daemon.stdin?.end(PASSWORD);
      return daemon;
    };
    keyring = await startDaemon(false);
    await until(loginOffered, 'gnome-keyring-daemon did not offer its login collection');
    return {
      env,
      async lock() {
        await call('org.freedesktop.secrets', '/org/freedesktop/secrets', 'org.freedesktop.Secret.Service.Lock', `['${LOGIN}']`);
      },
      async unlock() {
        const previous = keyring;
        keyring = await startDaemon(true);
        // The new daemon takes over the bus name; the old one quits by itself.
        await until(async () => previous?.exitCode !== null || previous?.signalCode !== null, 'the replaced keyring daemon did not quit');
        await until(async () => (await loginOffered()) && !(await locked()), 'the keyring was not unlocked');
      },
      locked,
      async stop() {
        await stopChild(keyring);
        await stopChild(bus);
        temp.cleanup();
      },
    };
  } catch (error) {
    await stopChild(keyring);
    await stopChild(bus);
    temp.cleanup();
    throw error;
  }
}
