// Command line of the team server (`npm run server -- [command] [options]`).
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { SmtpOptions } from '../services/notices/channels';
import { isPostgresAddress } from '../ledger/engine/open';
import { DEFAULT_POOL_SIZE } from '../ledger/engine/postgres';
import { LOG_LEVELS, type LogLevel } from '../logger';
import { ENVELOPE_KEY_ENV } from '../services/team/envelope-key';
import { defaultDataDir } from '../platform/paths';

/** --pool-size: a transaction and a read beside it each need a connection; PostgreSQL refuses far sooner than the top. */
const MIN_POOL_SIZE = 4;
const MAX_POOL_SIZE = 500;

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
  backup            Back the ledger up to --out FILE (pg_dump's custom format, from one
                    snapshot, while the server runs) and FILE.manifest.json beside it: the
                    versions, the rows of every table, the audit chain's head and the id of
                    the envelope key the sealed credentials need (never the key). With
                    --key-file, checks that key opens them. Keep the key file apart from it.
  restore           Restore --from FILE (and its manifest) into --database, which must be a new,
                    empty database, with the envelope key it needs (--key-file); then verify
                    rows, audit chain and credentials. Sessions end (people sign in again);
                    unfinished batches look up their unsent payouts at the gateway before
                    sending any. Needs pg_dump/pg_restore (PostgreSQL's client tools) on PATH.

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
  --drain-seconds <s>   On SIGTERM or SIGINT, GET /readyz answers 503 at once and requests are still
                        served for this long (default 0, at most 20) before the server stops
                        taking them: behind a balancer give it more than the balancer needs to
                        take this instance out (docs/team.md, "Health, metrics and logs").
  --metrics-listen <host:port>
                        Serve GET /metrics (Prometheus) on an address of its own, with no token:
                        keep it on a private interface (e.g. 127.0.0.1:9600).
  --metrics-token-file <file>
                        Serve GET /metrics on the --listen address too, to a bearer of the token
                        this file holds (16 characters or more): Authorization: Bearer <token>.
                        Without either option /metrics is not served.
  --log-level <level>   debug, info (default), warn or error. The log is JSON lines on standard
                        error: time, level, message, the instance, and in a request its id
                        (X-Request-Id when the proxy sends one) and the person signed in.
  --smtp-url <url>      Where e-mail notices go (docs/notifications.md): smtp://user:password@host:587
                        (STARTTLS when offered; smtps://… for TLS from the start, port 465).
                        Default: $PAYDESK_SMTP_URL (keeps the password out of the process list).
                        Without it, no e-mail is sent; chat notices are sent anyway.
  --smtp-from <addr>    The sender of the e-mails (default: Paydesk <paydesk@HOST>).
  --smtp-require-tls    Send no e-mail unless the SMTP server's STARTTLS succeeds.
  --trust-proxy         Take the client's address from X-Forwarded-For (for the sign-in limit);
                        only behind a proxy that sets it.
  --key-file <file>     The envelope key (mode 0600). Default: $${ENVELOPE_KEY_ENV} (base64).
  --new-key-file <file> rotate-key: the new key.
  --out <file>          backup: the dump to write (FILE.manifest.json goes beside it).
  --from <file>         restore: the dump to restore (its manifest beside it).
  --pool-size <n>       Connections this instance keeps to PostgreSQL at most (default ${DEFAULT_POOL_SIZE},
                        ${MIN_POOL_SIZE} to ${MAX_POOL_SIZE}). Those of every instance, and a backup's 2, must fit in
                        PostgreSQL's max_connections (100 by default).
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

export type ServerCommand = 'run' | 'create-admin' | 'new-key' | 'rotate-key' | 'backup' | 'restore';

const COMMANDS: readonly ServerCommand[] = ['run', 'create-admin', 'new-key', 'rotate-key', 'backup', 'restore'];

export interface ServerOptions {
  command: ServerCommand;
  database: string | undefined;
  listen: { host: string; port: number };
  notifyListen: { host: string; port: number };
  tls: { certFile: string; keyFile: string } | undefined;
  publicUrl: string | undefined;
  trustProxy: boolean;
  /** The SMTP server of e-mail notices, or undefined: none is sent. */
  smtp: SmtpOptions | undefined;
  keyFile: string | undefined;
  newKeyFile: string | undefined;
  /** backup: the dump to write. */
  out: string | undefined;
  /** restore: the dump to restore. */
  from: string | undefined;
  dataDir: string;
  emulatorUrl: string | undefined;
  instanceTimeoutSeconds: number;
  /** Connections kept to PostgreSQL at most. */
  poolSize: number;
  logLevel: LogLevel;
  /** Where GET /metrics answers on its own, no token. */
  metricsListen: { host: string; port: number } | undefined;
  /** The file holding the token GET /metrics asks for on the app address. */
  metricsTokenFile: string | undefined;
  /** How long /readyz answers 503 before a stopping server stops taking requests. */
  drainSeconds: number;
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

function poolSize(text: string | undefined): number {
  if (text === undefined) return DEFAULT_POOL_SIZE;
  const value = Number(text);
  if (!Number.isInteger(value) || value < MIN_POOL_SIZE || value > MAX_POOL_SIZE) throw new ServerOptionsError(`--pool-size takes a whole number from ${MIN_POOL_SIZE} to ${MAX_POOL_SIZE}, got "${text}".`);
  return value;
}

function logLevel(text: string | undefined): LogLevel {
  if (text === undefined) return 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(text)) throw new ServerOptionsError(`--log-level takes ${LOG_LEVELS.join(', ')}, got "${text}".`);
  return text as LogLevel;
}

/** Within the stop's deadline (stop-signals.ts, 30 s), leaving time for the calls in flight and the core's close. */
const MAX_DRAIN_SECONDS = 20;

function drainSeconds(text: string | undefined): number {
  if (text === undefined) return 0;
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0 || value > MAX_DRAIN_SECONDS) throw new ServerOptionsError(`--drain-seconds takes a number from 0 to ${MAX_DRAIN_SECONDS}, got "${text}".`);
  return value;
}

/** An SMTP URL as nodemailer's options: smtp:// (STARTTLS when offered) or smtps:// (TLS from the start), with its user and password. */
export function smtpOptions(url: string | undefined, from: string | undefined, requireTLS: boolean): SmtpOptions | undefined {
  if (url === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ServerOptionsError('--smtp-url takes an address such as smtp://user:password@mail.example.com:587.');
  }
  if (parsed.protocol !== 'smtp:' && parsed.protocol !== 'smtps:') throw new ServerOptionsError('--smtp-url takes an smtp:// or smtps:// address.');
  const secure = parsed.protocol === 'smtps:';
  const user = decodeURIComponent(parsed.username);
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, ''),
    port: parsed.port ? Number(parsed.port) : secure ? 465 : 587,
    secure,
    requireTLS,
    ...(user ? { auth: { user, pass: decodeURIComponent(parsed.password) } } : {}),
    from: from ?? `Paydesk <paydesk@${parsed.hostname}>`,
  };
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
        'smtp-url': { type: 'string' },
        'smtp-from': { type: 'string' },
        'smtp-require-tls': { type: 'boolean', default: false },
        'key-file': { type: 'string' },
        'new-key-file': { type: 'string' },
        out: { type: 'string' },
        from: { type: 'string' },
        'data-dir': { type: 'string' },
        'emulator-url': { type: 'string' },
        'instance-timeout': { type: 'string' },
        'pool-size': { type: 'string' },
        'drain-seconds': { type: 'string' },
        'metrics-listen': { type: 'string' },
        'log-level': { type: 'string' },
        'metrics-token-file': { type: 'string' },
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
  if (!COMMANDS.includes(command) || positionals.length > 1) {
    throw new ServerOptionsError(`Unknown command "${positionals.join(' ')}": ${COMMANDS.slice(0, -1).join(', ')} or ${COMMANDS.at(-1)}.\n\n${serverUsage}`);
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
  if (!help && command === 'backup' && !values.out) throw new ServerOptionsError('backup writes the dump to --out <file> (its manifest goes beside it).');
  if (!help && command === 'restore' && !values.from) throw new ServerOptionsError('restore needs --from <file> (a dump written by backup, its manifest beside it) and --database naming a new, empty database.');
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
    smtp: smtpOptions(values['smtp-url'] ?? (env.PAYDESK_SMTP_URL || undefined), values['smtp-from'], values['smtp-require-tls']),
    keyFile: values['key-file'],
    newKeyFile: values['new-key-file'],
    out: values.out,
    from: values.from,
    dataDir: path.resolve(values['data-dir'] ?? (env.PAYDESK_DATA_DIR || defaultDataDir(env))),
    emulatorUrl,
    instanceTimeoutSeconds: positive(values['instance-timeout'], 20, '--instance-timeout'),
    poolSize: poolSize(values['pool-size']),
    drainSeconds: drainSeconds(values['drain-seconds']),
    logLevel: logLevel(values['log-level']),
    metricsListen: values['metrics-listen'] === undefined ? undefined : address(values['metrics-listen'], '--metrics-listen'),
    metricsTokenFile: values['metrics-token-file'],
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
