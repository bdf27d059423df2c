// PostgreSQL's own client tools, run for a backup (pg_dump) and a restore (pg_restore): a custom-
// format archive, which pg_restore alone can read back, made and restored without owners or
// privileges, so it goes into a database owned by another role. The connection is given as the
// URL without its password, the password in PGPASSWORD of the child's environment only: never in
// argv (which `ps` shows to every user of the machine), the log, or what is said of a failure.
import { spawn } from 'node:child_process';
import { parsePostgresUrl } from '../engine/open-postgres';

export type PgTool = 'pg_dump' | 'pg_restore';

export class PgToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PgToolError';
  }
}

export interface PgConnection {
  /** libpq's --dbname: the URL with no password in it. */
  dbname: string;
  /** What the child's environment adds: PGPASSWORD when the URL has a password. */
  env: Record<string, string>;
  /** Texts never to show (the password, as typed and as decoded). */
  secrets: string[];
}

export function pgConnection(text: string): PgConnection {
  const url = parsePostgresUrl(text);
  const typed = url.password || url.searchParams.get('password') || '';
  const password = url.password ? decodeURIComponent(url.password) : typed;
  url.password = '';
  url.searchParams.delete('password');
  return { dbname: url.href, env: password ? { PGPASSWORD: password } : {}, secrets: [...new Set([typed, password, encodeURIComponent(password)])].filter((s) => s.length > 0) };
}

/** pg_dump's arguments: the custom format, from the snapshot the manifest's counts were read in, no owners or privileges. */
export function pgDumpArgs(connection: PgConnection, snapshot: string): string[] {
  return ['--format=custom', '--no-owner', '--no-privileges', `--snapshot=${snapshot}`, `--dbname=${connection.dbname}`];
}

/** pg_restore's arguments: one transaction (a failure leaves nothing written), stopping at the first error, no owners or privileges. */
export function pgRestoreArgs(connection: PgConnection, file: string): string[] {
  return ['--no-owner', '--no-privileges', '--single-transaction', '--exit-on-error', `--dbname=${connection.dbname}`, file];
}

const scrub = (text: string, secrets: readonly string[]) => secrets.reduce((shown, secret) => shown.split(secret).join('***'), text);

const MISSING = (tool: PgTool) =>
  `${tool} was not found: install PostgreSQL's client tools (Debian: postgresql-client, as \`npm run setup:system\` does), of the server's major version or newer, or put them on PATH.`;

/** The tool's version line ("pg_dump (PostgreSQL) 15.20"). */
export function pgToolVersion(tool: PgTool): Promise<string> {
  return run(tool, ['--version'], { env: {}, secrets: [] }, 'pipe').then((out) => out.trim());
}

/**
 * Runs the tool to its end; `stdout` is a file descriptor it writes to (pg_dump's archive), else
 * its output is dropped. Rejects with what it said on standard error, the password scrubbed.
 */
export async function runPgTool(tool: PgTool, args: string[], connection: Pick<PgConnection, 'env' | 'secrets'>, stdout?: number): Promise<void> {
  await run(tool, args, connection, stdout ?? 'ignore');
}

function run(tool: PgTool, args: string[], connection: Pick<PgConnection, 'env' | 'secrets'>, stdout: number | 'pipe' | 'ignore'): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(tool, args, { env: { ...process.env, PGAPPNAME: `paydesk ${tool}`, ...connection.env }, stdio: ['ignore', stdout, 'pipe'] });
    let out = '';
    let err = '';
    child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    // The end of what it said is what names the problem; a runaway message is cut from the front.
    child.stderr?.on('data', (chunk: Buffer) => (err = (err + chunk.toString()).slice(-8_000)));
    child.on('error', (error: NodeJS.ErrnoException) => reject(new PgToolError(error.code === 'ENOENT' ? MISSING(tool) : `${tool} could not be started: ${scrub(error.message, connection.secrets)}`)));
    child.on('close', (code, signal) => {
      if (code === 0) return resolve(out);
      const said = scrub(err.trim(), connection.secrets) || `no message`;
      reject(new PgToolError(`${tool} failed (${signal ? `signal ${signal}` : `exit status ${code}`}): ${said}`));
    });
  });
}
