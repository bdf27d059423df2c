// Command line of the team server (`npm run server -- [command] [options]`).
import path from 'node:path';
import { parseArgs } from 'node:util';
import { isPostgresAddress } from '../ledger/engine/open';
import { ENVELOPE_KEY_ENV } from '../services/team/envelope-key';
import { defaultDataDir } from '../platform/paths';

export const serverUsage = `Usage: npm run server -- [command] [options]

Runs Paydesk headless for a team (docs/team.md): one ledger in PostgreSQL, the gateway credentials
sealed on the server, the notification listener, the verifier, the sweep and the batch runner,
and the app for browsers and desktops, where people sign in with their role.

Commands:
  run (default)     Start the server. It prints one line saying where it listens and stops
                    cleanly on SIGTERM or SIGINT.
  create-admin      Create an admin (the first one, or another): --username NAME [--name "Full
                    Name"]; the password is read from standard input (one line, 12 characters
                    or more).
  new-key           Write a new envelope key to --key-file (mode 0600). Keep it off the database
                    server and back it up: without it the sealed credentials cannot be opened.
  rotate-key        Re-seal every credential and second-factor secret under --new-key-file,
                    opened with --key-file; then run the server with the new key.

Options:
  --database <url>      The PostgreSQL ledger, e.g. postgres://paydesk@db:5432/paydesk.
                        Default: $PAYDESK_DATABASE_URL. Required.
  --listen <host:port>  Where people's browsers and desktops connect (default 127.0.0.1:8600;
                        0.0.0.0:8600 for every interface).
  --notify-listen <host:port>
                        The notification listener the gateway posts to (default 127.0.0.1:8601).
                        Give each profile its public URL in Settings.
  --tls-cert <file>     The server's certificate (PEM) and its key: both addresses answer over
  --tls-key <file>      https. Without them, put a TLS reverse proxy in front (docs/team.md).
  --public-url <url>    The address people use (https://paydesk.example.com): cookies are marked
                        Secure when it (or --tls-cert) is https.
  --trust-proxy         Take the client's address from X-Forwarded-For (for the sign-in limit);
                        only behind a proxy that sets it.
  --key-file <file>     The envelope key (mode 0600). Default: $${ENVELOPE_KEY_ENV} (base64).
  --new-key-file <file> rotate-key: the new key.
  --data-dir <dir>      Where the embedded emulator keeps its state, and this instance its id
                        (one directory per instance). Default: $PAYDESK_DATA_DIR, else the
                        platform's app-data folder.
  --emulator-url <url>  The gateway emulator already running there (its admin_url, e.g.
                        http://127.0.0.1:8700/_emulator from \`npm run gateway\`) instead of an
                        embedded one: several instances on one ledger share one emulator.
  --instance-timeout <s>
                        Several instances on one ledger: one not heard from this long (default
                        20) is taken for dead, and what it was sending is settled by another;
                        one whose process ended (its ledger connection closed) is taken within
                        about half of it.
  --session-hours <n>   A session ends this long after sign-in (default 12).
  --idle-minutes <n>    ...or after this long without a request (default 60).
  --username <name>     create-admin: the admin's user name.
  --name <text>         create-admin: the admin's full name (default: the user name).
  -h, --help            Show this help.`;

export type ServerCommand = 'run' | 'create-admin' | 'new-key' | 'rotate-key';

export interface ServerOptions {
  command: ServerCommand;
  database: string | undefined;
  listen: { host: string; port: number };
  notifyListen: { host: string; port: number };
  tls: { certFile: string; keyFile: string } | undefined;
  publicUrl: string | undefined;
  trustProxy: boolean;
  keyFile: string | undefined;
  newKeyFile: string | undefined;
  dataDir: string;
  emulatorUrl: string | undefined;
  instanceTimeoutSeconds: number;
  sessionHours: number;
  idleMinutes: number;
  username: string | undefined;
  name: string | undefined;
  help: boolean;
}

export class ServerOptionsError extends Error {}

function address(text: string, flag: string): { host: string; port: number } {
  const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(text.trim());
  const port = Number(match?.[2]);
  if (!match || !Number.isInteger(port) || port < 0 || port > 65535) throw new ServerOptionsError(`${flag} takes HOST:PORT (for example 127.0.0.1:8600), got "${text}".`);
  return { host: match[1]!.replace(/^\[|\]$/g, ''), port };
}

function positive(text: string | undefined, fallback: number, flag: string): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new ServerOptionsError(`${flag} takes a number above 0, got "${text}".`);
  return value;
}

export function parseServerOptions(argv: string[], env: NodeJS.ProcessEnv = process.env): ServerOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        database: { type: 'string' },
        listen: { type: 'string' },
        'notify-listen': { type: 'string' },
        'tls-cert': { type: 'string' },
        'tls-key': { type: 'string' },
        'public-url': { type: 'string' },
        'trust-proxy': { type: 'boolean', default: false },
        'key-file': { type: 'string' },
        'new-key-file': { type: 'string' },
        'data-dir': { type: 'string' },
        'emulator-url': { type: 'string' },
        'instance-timeout': { type: 'string' },
        'session-hours': { type: 'string' },
        'idle-minutes': { type: 'string' },
        username: { type: 'string' },
        name: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    throw new ServerOptionsError(`${(error as Error).message}\n\n${serverUsage}`);
  }
  const { values, positionals } = parsed;
  const command = (positionals[0] ?? 'run') as ServerCommand;
  if (!['run', 'create-admin', 'new-key', 'rotate-key'].includes(command) || positionals.length > 1) {
    throw new ServerOptionsError(`Unknown command "${positionals.join(' ')}": run, create-admin, new-key or rotate-key.\n\n${serverUsage}`);
  }
  const database = values.database ?? (env.PAYDESK_DATABASE_URL || undefined);
  const help = values.help;
  if (!help && command !== 'new-key') {
    if (!database) throw new ServerOptionsError('The team server keeps its ledger in PostgreSQL: give --database postgres://user@host:5432/database (or set $PAYDESK_DATABASE_URL).');
    if (!isPostgresAddress(database)) throw new ServerOptionsError('--database takes a PostgreSQL URL (postgres://user@host:5432/database).');
  }
  if (Boolean(values['tls-cert']) !== Boolean(values['tls-key'])) throw new ServerOptionsError('Give both --tls-cert and --tls-key, or neither.');
  if (!help && command === 'new-key' && !values['key-file']) throw new ServerOptionsError('new-key writes the key to --key-file <file>.');
  if (!help && command === 'rotate-key' && !values['new-key-file']) throw new ServerOptionsError('rotate-key needs --new-key-file <file> (make it with new-key) and the current key (--key-file or $PAYDESK_SERVER_KEY).');
  if (!help && command === 'create-admin' && !values.username) throw new ServerOptionsError('create-admin needs --username <name>.');
  const emulatorUrl = values['emulator-url'];
  if (emulatorUrl !== undefined && !/^https?:\/\/[^/]+/.test(emulatorUrl)) throw new ServerOptionsError(`--emulator-url takes the emulator's admin_url, such as http://127.0.0.1:8700/_emulator, got "${emulatorUrl}".`);
  const publicUrl = values['public-url'];
  if (publicUrl !== undefined && !/^https?:\/\/[^/]+/.test(publicUrl)) throw new ServerOptionsError(`--public-url takes an address such as https://paydesk.example.com, got "${publicUrl}".`);
  return {
    command,
    database,
    listen: address(values.listen ?? '127.0.0.1:8600', '--listen'),
    notifyListen: address(values['notify-listen'] ?? '127.0.0.1:8601', '--notify-listen'),
    tls: values['tls-cert'] && values['tls-key'] ? { certFile: values['tls-cert'], keyFile: values['tls-key'] } : undefined,
    publicUrl,
    trustProxy: values['trust-proxy'],
    keyFile: values['key-file'],
    newKeyFile: values['new-key-file'],
    dataDir: path.resolve(values['data-dir'] ?? (env.PAYDESK_DATA_DIR || defaultDataDir(env))),
    emulatorUrl,
    instanceTimeoutSeconds: positive(values['instance-timeout'], 20, '--instance-timeout'),
    sessionHours: positive(values['session-hours'], 12, '--session-hours'),
    idleMinutes: positive(values['idle-minutes'], 60, '--idle-minutes'),
    username: values.username,
    name: values.name,
    help,
  };
}

/**
 * The scale-out timings of `--instance-timeout`: an instance says it is alive six times per
 * timeout (a late heartbeat or two is not a death), and one that does not lead tries to every
 * heartbeat, so a dead leader is replaced within one (2 s at most).
 */
export function scaleOutTimings(instanceTimeoutSeconds: number): { deadAfterMs: number; heartbeatMs: number; leaderRetryMs: number } {
  const deadAfterMs = instanceTimeoutSeconds * 1000;
  const heartbeatMs = Math.max(200, deadAfterMs / 6);
  return { deadAfterMs, heartbeatMs, leaderRetryMs: Math.min(2_000, heartbeatMs) };
}
