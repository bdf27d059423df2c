// `npm run server -- backup` and `restore` (docs/team.md, "Backups and restore").
//
// A backup is two files: the dump, a pg_dump archive in the custom format (pg_restore alone can
// read it back), and beside it <dump>.manifest.json: the Paydesk and schema versions, the ids of
// the envelope keys the sealed credentials need (never a key), the snapshot's time, the rows of
// every table and the audit chain's head, all read in the snapshot pg_dump dumps, and the dump's
// size and SHA-256. The server may go on working meanwhile.
//
// A restore checks everything it can before it writes anything — the dump is whole (size and
// hash), its schema is one this build knows, the key given is the one the credentials were sealed
// under, the target database is empty — then pg_restore runs in one transaction (a failure leaves
// nothing), and the result is verified: every table's rows as the manifest says, the audit chain
// whole and ending at the manifest's head, every sealed value opened by the key. Only then is the
// restored ledger told it was restored (services/ledger-restore.ts).
import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { open, readFile, rename, rm, writeFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { openLedger } from '../ledger/connection';
import { holdingsOf, inSnapshot, postgresVersion, readLedgerFacts, type LedgerFacts } from '../ledger/backup/snapshot';
import { pgConnection, pgDumpArgs, pgRestoreArgs, type PgTool, PgToolError, pgToolVersion, runPgTool } from '../ledger/backup/pg-tools';
import { checkHistory, LedgerVersionError } from '../ledger/engine/history';
import { connectPostgres } from '../ledger/engine/open-postgres';
import { postgresMigrations } from '../ledger/migrations/index';
import type { ChainVerdict } from '../ledger/repositories/audit-log';
import { createRepositories } from '../ledger/repositories/index';
import { recordRestore, type RestoreReport } from '../services/ledger-restore';
import { ENVELOPE_KEY_ENV, loadEnvelopeKey, type EnvelopeKey } from '../services/team/envelope-key';
import { keyIdsOf, notOpenedBy, sealedValues, type SealedValue } from '../services/team/sealed-values';
import type { ServerOptions } from './options';

/** A backup or restore that cannot go on, said in one line; nothing was written (or, after a restore, what to do). */
export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupError';
  }
}

const FORMAT = 'paydesk-backup/1';

const manifestSchema = z.object({
  format: z.literal(FORMAT),
  paydeskVersion: z.string(),
  /** When the snapshot was taken, by the database's clock. */
  takenAt: z.string(),
  /** The database backed up, without its password. */
  source: z.string(),
  postgres: z.object({ server: z.string(), pgDump: z.string() }),
  dump: z.object({ file: z.string(), bytes: z.number().int().nonnegative(), sha256: z.string().regex(/^[0-9a-f]{64}$/) }),
  schema: z.array(z.object({ version: z.number().int().positive(), name: z.string() })),
  /** The ids of the envelope keys the sealed values need (EnvelopeKey.id): never a key. */
  envelopeKeys: z.array(z.string()),
  sealedValues: z.number().int().nonnegative(),
  auditHead: z.object({ seq: z.number().int().positive(), hash: z.string() }).nullable(),
  rows: z.record(z.string(), z.number().int().nonnegative()),
});

export type BackupManifest = z.infer<typeof manifestSchema>;

/** Where a dump's manifest is: beside it. */
export const manifestFileOf = (dumpFile: string): string => `${dumpFile}.manifest.json`;

async function digestOf(file: string): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { bytes, sha256: hash.digest('hex') };
}

/** The tool's version, or why it cannot be run. */
async function toolVersion(tool: PgTool, done: 'written' | 'restored'): Promise<string> {
  try {
    return await pgToolVersion(tool);
  } catch (error) {
    if (error instanceof PgToolError) throw new BackupError(`${error.message} Nothing was ${done}.`);
    throw error;
  }
}

const tableCount = (rows: Record<string, number>) => Object.keys(rows).length;
const rowCount = (rows: Record<string, number>) => Object.values(rows).reduce((a, b) => a + b, 0);

/** The sealed values of a ledger (none before the team's tables exist), read in the caller's transaction if one is open. */
function sealedIn(engine: Parameters<typeof createRepositories>[0], facts: LedgerFacts): Promise<SealedValue[]> {
  return facts.rows.server_secrets === undefined || facts.rows.team_users === undefined ? Promise.resolve([]) : sealedValues(createRepositories(engine));
}

function keyProblem(key: EnvelopeKey, values: readonly SealedValue[]): string | null {
  const unopened = notOpenedBy(key, values);
  if (unopened.length === 0) return null;
  return `the envelope key given (id ${key.id}) does not open ${unopened.length} of the ${values.length} sealed values (${unopened.slice(0, 3).join(', ')}${unopened.length > 3 ? ', …' : ''}); they were sealed under key ${keyIdsOf(values).join(', ')}`;
}

export interface BackupResult {
  file: string;
  manifestFile: string;
  manifest: BackupManifest;
  /** The key given opened every sealed value (false: no key was given). */
  keyChecked: boolean;
}

/**
 * Backs the ledger up into `out` and its manifest beside it; neither may exist yet. Each is
 * written under a temporary name (mode 0600) and renamed once whole, so a failed backup leaves
 * nothing. With `key`, it first checks that the key opens every sealed value.
 */
export async function backUpLedger(options: { database: string; out: string; key?: EnvelopeKey | undefined; version: string }): Promise<BackupResult> {
  const file = path.resolve(options.out);
  const manifestFile = manifestFileOf(file);
  for (const existing of [file, manifestFile]) {
    if (existsSync(existing)) throw new BackupError(`${existing} exists already: a backup goes into a new file. Nothing was written.`);
  }
  if (!existsSync(path.dirname(file))) throw new BackupError(`The folder ${path.dirname(file)} does not exist. Nothing was written.`);
  const pgDump = await toolVersion('pg_dump', 'written');
  const connection = pgConnection(options.database);
  const engine = await connectPostgres(options.database, 2);
  const partial = { dump: `${file}.${process.pid}.partial`, manifest: `${manifestFile}.${process.pid}.partial` };
  let handle: FileHandle | undefined;
  try {
    handle = await open(partial.dump, 'wx', 0o600);
    const server = await postgresVersion(engine);
    const { snapshot, values } = await inSnapshot(engine, async (snapshot) => {
      if (snapshot.facts.schema.length === 0) throw new BackupError(`${engine.location} holds no Paydesk ledger (no schema_migrations): nothing to back up. Nothing was written.`);
      const values = await sealedIn(engine, snapshot.facts);
      const problem = options.key ? keyProblem(options.key, values) : null;
      if (problem) throw new BackupError(`Not backed up: ${problem}. Give the key file the server runs with. Nothing was written.`);
      await runPgTool('pg_dump', pgDumpArgs(connection, snapshot.id), connection, (handle as FileHandle).fd);
      return { snapshot, values };
    });
    await handle.sync();
    await handle.close();
    handle = undefined;
    const manifest: BackupManifest = {
      format: FORMAT,
      paydeskVersion: options.version,
      takenAt: snapshot.takenAt,
      source: engine.location,
      postgres: { server, pgDump },
      dump: { file: path.basename(file), ...(await digestOf(partial.dump)) },
      schema: snapshot.facts.schema,
      envelopeKeys: values.length > 0 ? keyIdsOf(values) : [],
      sealedValues: values.length,
      auditHead: snapshot.facts.auditHead,
      rows: snapshot.facts.rows,
    };
    await writeFile(partial.manifest, `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    await rename(partial.dump, file);
    await rename(partial.manifest, manifestFile);
    return { file, manifestFile, manifest, keyChecked: options.key !== undefined };
  } catch (error) {
    await handle?.close().catch(() => undefined);
    for (const leftover of Object.values(partial)) await rm(leftover, { force: true });
    if (error instanceof PgToolError) throw new BackupError(`${error.message} Nothing was written.`);
    throw error;
  } finally {
    await engine.close();
  }
}

async function readManifest(file: string): Promise<BackupManifest> {
  const manifestFile = manifestFileOf(file);
  let text: string;
  try {
    text = await readFile(manifestFile, 'utf8');
  } catch {
    throw new BackupError(
      `No manifest beside the dump (${manifestFile}): a restore needs the one \`npm run server -- backup\` wrote with it. (A dump made by pg_dump alone restores with pg_restore: docs/team.md.) Nothing was restored.`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new BackupError(`${manifestFile} is not JSON: it is damaged. Nothing was restored.`);
  }
  const checked = manifestSchema.safeParse(parsed);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw new BackupError(`${manifestFile} is not a Paydesk backup manifest (${issue?.path.join('.') || 'format'}: ${issue?.message ?? 'not recognised'}). Nothing was restored.`);
  }
  return checked.data;
}

/** What differs between the restored database and the manifest: [] when it is the backup to the row. */
function differences(manifest: BackupManifest, facts: LedgerFacts, verdict: ChainVerdict): string[] {
  const problems: string[] = [];
  for (const table of new Set([...Object.keys(manifest.rows), ...Object.keys(facts.rows)])) {
    const [expected, found] = [manifest.rows[table], facts.rows[table]];
    if (expected !== found) problems.push(`table ${table}: ${found ?? 'missing'} rows, the backup had ${expected ?? 'no such table'}`);
  }
  if (JSON.stringify(facts.schema) !== JSON.stringify(manifest.schema)) problems.push('the schema history differs from the manifest');
  if (!verdict.ok) problems.push(`the audit chain breaks at entry ${verdict.brokenAt} (${verdict.reason})`);
  return problems;
}

export interface RestoreResult {
  manifest: BackupManifest;
  /** The restored database, without its password. */
  target: string;
  auditEntries: number;
  keyId: string;
  after: RestoreReport;
}

/**
 * Restores a backup into an empty database and verifies it (see the file's head); the key must be
 * the one the backup's sealed values need.
 */
export async function restoreLedger(options: { database: string; from: string; key: EnvelopeKey; now?: () => Date }): Promise<RestoreResult> {
  const { key, now = () => new Date() } = options;
  const file = path.resolve(options.from);
  if (!existsSync(file)) throw new BackupError(`${file} does not exist. Nothing was restored.`);
  const manifest = await readManifest(file);
  const dump = await digestOf(file);
  if (dump.bytes !== manifest.dump.bytes || dump.sha256 !== manifest.dump.sha256) {
    throw new BackupError(
      `${file} is not the dump its manifest describes (${dump.bytes} bytes, SHA-256 ${dump.sha256.slice(0, 12)}…; the manifest says ${manifest.dump.bytes} bytes, ${manifest.dump.sha256.slice(0, 12)}…): it is truncated or damaged. Nothing was restored.`,
    );
  }
  try {
    checkHistory(manifest.schema, postgresMigrations, `backed up in ${path.basename(file)}`);
  } catch (error) {
    if (error instanceof LedgerVersionError) throw new BackupError(`${error.message.replace(/;?\s*nothing was changed\.?$/i, '.')} Nothing was restored.`);
    throw error;
  }
  if (manifest.envelopeKeys.length > 0 && !manifest.envelopeKeys.includes(key.id)) {
    throw new BackupError(
      `The envelope key given (id ${key.id}) is not the one this backup's credentials were sealed under (${manifest.envelopeKeys.join(', ')}): give the key file kept for this backup. Nothing was restored.`,
    );
  }
  await toolVersion('pg_restore', 'restored');
  const connection = pgConnection(options.database);
  const target = await connectPostgres(options.database, 2);
  let auditEntries = 0;
  try {
    const held = await holdingsOf(target);
    if (held.length > 0) {
      throw new BackupError(`The database ${target.location} is not empty (it holds ${held.join(', ')}, …): restore into a new, empty database (createdb). Nothing was restored.`);
    }
    try {
      await runPgTool('pg_restore', pgRestoreArgs(connection, file), connection);
    } catch (error) {
      if (error instanceof PgToolError) throw new BackupError(`${error.message} Nothing was restored (pg_restore ran as one transaction).`);
      throw error;
    }
    const facts = await readLedgerFacts(target);
    const repos = createRepositories(target);
    const verdict = await repos.audit.verify(manifest.auditHead ?? undefined);
    const problems = differences(manifest, facts, verdict);
    const problem = keyProblem(key, await sealedIn(target, facts));
    if (problem) problems.push(problem);
    if (problems.length > 0) {
      throw new BackupError(`The restored database ${target.location} is not the backup: ${problems.join('; ')}. Do not start a server on it: drop it, and restore again into a new database.`);
    }
    auditEntries = verdict.ok ? verdict.count : 0;
  } finally {
    await target.close();
  }
  // Verified: the ledger learns it was restored (migrated first, if the backup is of an older Paydesk).
  const ledger = await openLedger({ url: options.database }, { now });
  try {
    const after = await recordRestore(createRepositories(ledger, now), { takenAt: manifest.takenAt, paydeskVersion: manifest.paydeskVersion }, now);
    return { manifest, target: ledger.location, auditEntries, keyId: key.id, after };
  } finally {
    await ledger.close();
  }
}

const thousands = (n: number) => n.toLocaleString('en-US');
const count = (n: number, one: string, many = `${one}s`) => `${thousands(n)} ${n === 1 ? one : many}`;

/** What `backup` prints. */
export function backupSummary(result: BackupResult): string[] {
  const { manifest } = result;
  const keys = manifest.envelopeKeys;
  return [
    `Backed up ${manifest.source} (snapshot of ${manifest.takenAt}) to ${result.file} (${count(manifest.dump.bytes, 'byte')}, SHA-256 ${manifest.dump.sha256}).`,
    `  manifest: ${result.manifestFile}: ${count(rowCount(manifest.rows), 'row')} in ${count(tableCount(manifest.rows), 'table')}, audit log of ${count(manifest.auditHead?.seq ?? 0, 'entry', 'entries')}, schema version ${manifest.schema.at(-1)?.version ?? 0}.`,
    keys.length === 0
      ? '  No sealed credentials in it.'
      : `  ${count(manifest.sealedValues, 'sealed value')}, under envelope key ${keys.join(', ')}${result.keyChecked ? ' (the key given opens them all)' : ''}: keep that key file, apart from the backup.`,
  ];
}

/** What `restore` prints. */
export function restoreSummary(result: RestoreResult): string[] {
  const { manifest, after } = result;
  const sealed = manifest.sealedValues === 0 ? 'no sealed values' : `${count(manifest.sealedValues, 'sealed value')} opened by key ${result.keyId}`;
  return [
    `Restored ${manifest.dump.file} (snapshot of ${manifest.takenAt}, Paydesk ${manifest.paydeskVersion}) into ${result.target}.`,
    `  verified: ${count(rowCount(manifest.rows), 'row')} in ${count(tableCount(manifest.rows), 'table')} as the manifest says, the audit chain of ${count(result.auditEntries, 'entry', 'entries')} to its head, ${sealed}.`,
    `  then: ${count(after.sessionsEnded, 'session')} ended (people sign in again), ${count(after.approvalsVoided, 'payout approval')} awaiting a decision voided, ${count(after.instancesForgotten, 'instance')} forgotten; ${count(after.batchesToCheck, 'unfinished batch', 'unfinished batches')} will look their unsent payouts up at the gateway before sending any.`,
    'Start the server on it with the same key file (npm run server -- --database … --key-file …).',
  ];
}

/** `npm run server -- backup --out FILE`: the key (--key-file or $PAYDESK_SERVER_KEY) is checked when given. */
export async function backupCommand(options: Pick<ServerOptions, 'database' | 'out' | 'keyFile'>, version: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const key = options.keyFile || env[ENVELOPE_KEY_ENV] ? loadEnvelopeKey(options.keyFile, env) : undefined;
  const result = await backUpLedger({ database: options.database as string, out: options.out as string, key, version });
  for (const line of backupSummary(result)) console.log(line);
}

/** `npm run server -- restore --from FILE`: the key (--key-file or $PAYDESK_SERVER_KEY) is required. */
export async function restoreCommand(options: Pick<ServerOptions, 'database' | 'from' | 'keyFile'>, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const result = await restoreLedger({ database: options.database as string, from: options.from as string, key: loadEnvelopeKey(options.keyFile, env) });
  for (const line of restoreSummary(result)) console.log(line);
}
