// The team server's entry (plain Node, no Electron): `node out/main/server.js [command] [options]`,
// normally through `npm run server`. See options.ts for the commands and docs/team.md.
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { passwordSchema, usernameSchema } from '../../shared/contract';
import { createCore, type Core } from '../core';
import { LedgerOpenError, LedgerVersionError, openLedger } from '../ledger/connection';
import { redactedUrl } from '../ledger/engine/open';
import { createRepositories } from '../ledger/repositories/index';
import { jsonLogger } from '../logger';
import { EventBus } from '../services/event-bus';
import { externalLocalGateway } from '../services/local-gateway';
import { EnvelopeKey, EnvelopeKeyError, loadEnvelopeKey } from '../services/team/envelope-key';
import { rotateEnvelopeKey } from '../services/team/rotate-key';
import { TeamService } from '../services/team/team-service';
import { stopRequested } from '../stop-signals';
import { APP_VERSION } from '../version';
import { BackupError, backupCommand, restoreCommand } from './backup';
import { Metrics } from '../services/metrics';
import { startTeamHttp, type TeamHttpServer } from './http';
import { startMetricsServer, type MetricsServer } from './metrics-http';
import { parseServerOptions, scaleOutTimings, serverUsage, ServerOptionsError, type ServerOptions } from './options';

const here = path.dirname(fileURLToPath(import.meta.url));

/** A problem the operator can fix: said in one line, exit status 1 (2 for a wrong command line). */
class Refusal extends Error {}

/**
 * The exit status of an instance older than its ledger: refused at start, or drained because a
 * newer instance migrated the ledger past it. Upgrade it; restarting it as it is would not help
 * (docs/team.md's systemd unit does not restart on it).
 */
const OUTDATED = 3;

class Outdated extends Error {}

async function readStdinLine(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    if (Buffer.concat(chunks).includes(10)) break;
  }
  return Buffer.concat(chunks).toString('utf8').split('\n')[0]!.replace(/\r$/, '');
}

function keyOf(options: ServerOptions): EnvelopeKey {
  return loadEnvelopeKey(options.keyFile);
}

async function openRepositories(options: ServerOptions) {
  const ledger = await openLedger({ url: options.database as string });
  return { ledger, repos: createRepositories(ledger) };
}

async function createAdmin(options: ServerOptions): Promise<void> {
  const username = usernameSchema.safeParse(options.username);
  if (!username.success) throw new Refusal(`--username: ${username.error.issues[0]?.message ?? 'not a user name'}`);
  process.stderr.write(`Password for ${username.data} (12 characters or more), then Enter: `);
  const password = passwordSchema.safeParse(await readStdinLine());
  if (!password.success) throw new Refusal(`The password: ${password.error.issues[0]?.message ?? 'not accepted'}`);
  const { ledger, repos } = await openRepositories(options);
  try {
    const team = new TeamService({ repos, key: keyOf(options), events: new EventBus(), now: () => new Date(), serverUrl: '' });
    const admin = await team.createAdminFromCommandLine({ username: username.data, displayName: options.name?.trim() || username.data, password: password.data });
    console.log(`Created admin ${admin.username} in ${ledger.location}.`);
  } finally {
    await ledger.close();
  }
}

function newKey(options: ServerOptions): void {
  const file = options.keyFile as string;
  if (existsSync(file)) throw new Refusal(`${file} exists already: a new key goes into a new file (the old one still opens what it sealed).`);
  writeFileSync(file, `${EnvelopeKey.generate().toBase64()}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  console.log(`Wrote a new envelope key to ${file} (mode 0600). Back it up away from the database.`);
}

async function rotateKey(options: ServerOptions): Promise<void> {
  const current = keyOf(options);
  const next = EnvelopeKey.fromFile(options.newKeyFile as string);
  if (next.id === current.id) throw new Refusal('The new key is the current key: make one with `npm run server -- new-key --key-file <new file>`.');
  const { ledger, repos } = await openRepositories(options);
  try {
    const counts = await rotateEnvelopeKey(repos, current, next);
    console.log(`Re-sealed ${counts.credentials} credentials and ${counts.secondFactors} second-factor secrets under key ${next.id}. Run the server with --key-file ${options.newKeyFile}.`);
  } finally {
    await ledger.close();
  }
}

/** The token GET /metrics asks for on the app address, read from its file (the command line would show it to `ps`). */
function metricsToken(options: ServerOptions): string | undefined {
  if (!options.metricsTokenFile) return undefined;
  let token: string;
  try {
    token = readFileSync(options.metricsTokenFile, 'utf8').trim();
  } catch (error) {
    throw new Refusal(`--metrics-token-file: ${(error as Error).message}`);
  }
  if (token.length < 16 || /\s/.test(token)) throw new Refusal(`--metrics-token-file: ${options.metricsTokenFile} must hold one token of 16 characters or more, with no spaces.`);
  return token;
}

async function run(options: ServerOptions): Promise<void> {
  const log = jsonLogger({ name: 'paydesk-server', level: options.logLevel });
  const key = keyOf(options);
  const token = metricsToken(options);
  const metrics = new Metrics({ processMetrics: true });
  const tls = options.tls ? { cert: readFileSync(options.tls.certFile, 'utf8'), key: readFileSync(options.tls.keyFile, 'utf8') } : undefined;
  const secureCookies = Boolean(tls) || (options.publicUrl ?? '').startsWith('https://');
  let http: TeamHttpServer | undefined;
  let metricsServer: MetricsServer | undefined;
  const events = new EventBus();
  const serverUrl = options.publicUrl ?? `${tls ? 'https' : 'http'}://${options.listen.host}:${options.listen.port}`;
  // Listened for from the start: a stop while the core starts (a service manager's restart) closes it once started.
  const stop = stopRequested(log);
  const core: Core = await createCore({
    mode: 'server',
    version: APP_VERSION,
    dataDir: options.dataDir,
    database: options.database,
    databasePoolSize: options.poolSize,
    log,
    events,
    listener: { host: options.notifyListen.host, port: options.notifyListen.port, ...(tls ? { tls } : {}) },
    ...(options.emulatorUrl ? { localGateway: await externalLocalGateway(options.emulatorUrl).catch((error: unknown) => Promise.reject(new Refusal(`--emulator-url: ${(error as Error).message}`))) } : {}),
    scaleOut: scaleOutTimings(options.instanceTimeoutSeconds),
    metrics,
    ...(options.smtp ? { notices: { smtp: options.smtp } } : {}),
    team: { key, serverUrl, sessions: { maxAgeMinutes: options.sessionHours * 60, idleMinutes: options.idleMinutes }, onSessionsEnded: (ids) => http?.endSessions(ids) },
  });
  if (!core.team) throw new Error('the core did not start as a team server');
  try {
    http = await startTeamHttp({
      dispatch: core.dispatch,
      events,
      team: core.team.service,
      authorizer: core.team.authorizer,
      rendererDir: path.join(here, '../renderer'),
      host: options.listen.host,
      port: options.listen.port,
      ...(tls ? { tls } : {}),
      trustProxy: options.trustProxy,
      secureCookies,
      refusal: () => core.drain.refusal(),
      health: core.health,
      metrics: { metrics, token },
      log,
    });
    if (options.metricsListen) metricsServer = await startMetricsServer({ ...options.metricsListen, metrics, log });
  } catch (error) {
    await http?.close();
    await core.close();
    throw error;
  }
  // The one line on standard output; the log goes to standard error.
  console.log(`Paydesk team server listening on ${http.origin} (notifications on ${core.listener.url('…').replace(/…$/, '')}…, ledger ${redactedUrl(new URL(options.database as string))}${metricsServer ? `, metrics on ${metricsServer.origin}/metrics` : ''})`);
  const outdated = await Promise.race([stop.then(() => null), core.drain.drained]);
  // Not ready from now on (/readyz answers 503 on both addresses), still serving for --drain-seconds:
  // a balancer that asks every few seconds sends this instance nothing more before it stops taking requests.
  core.health.stopping();
  if (outdated === null && options.drainSeconds > 0) {
    log.info(`not ready: serving ${options.drainSeconds} s more while the balancer takes this instance out`);
    await new Promise((resolve) => setTimeout(resolve, options.drainSeconds * 1000));
  }
  // Stop taking requests and answer the calls in flight (their sends recorded), then let the core
  // finish what it runs (batches left resumable).
  await http.close();
  await metricsServer?.close();
  await core.close();
  log.info('stopped');
  if (outdated !== null) throw new Outdated(`stopped: ${outdated}. Upgrade this instance.`);
}

async function main(): Promise<number> {
  let options: ServerOptions;
  try {
    options = parseServerOptions(process.argv.slice(2));
  } catch (error) {
    if (error instanceof ServerOptionsError) {
      console.error(error.message);
      return 2;
    }
    throw error;
  }
  if (options.help) {
    console.log(serverUsage);
    return 0;
  }
  try {
    if (options.command === 'create-admin') await createAdmin(options);
    else if (options.command === 'new-key') newKey(options);
    else if (options.command === 'rotate-key') await rotateKey(options);
    else if (options.command === 'backup') await backupCommand(options, APP_VERSION);
    else if (options.command === 'restore') await restoreCommand(options);
    else await run(options);
    return 0;
  } catch (error) {
    if (error instanceof Outdated || error instanceof LedgerVersionError) {
      console.error(`Paydesk team server: ${error.message}`);
      return OUTDATED;
    }
    if (error instanceof Refusal || error instanceof EnvelopeKeyError || error instanceof LedgerOpenError || error instanceof BackupError) {
      console.error(`Paydesk team server: ${error.message}`);
      return 1;
    }
    if (error instanceof Error && 'code' in error && error.code === 'EADDRINUSE') {
      console.error(`Paydesk team server: the address is taken (${error.message}).`);
      return 1;
    }
    throw error;
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('Paydesk team server failed:', error);
    process.exit(1);
  },
);
