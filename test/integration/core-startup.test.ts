// The core's start-up (composition/startup.ts) on a real ledger with its real services, emulator
// and listener: its steps in their order, each one's close undone in reverse by close() (once), a
// failure at any step closing the steps before it and leaving no port open, and the phases web mode
// traces with PAYDESK_TRACE=1.
import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createCore, type CoreOptions } from '../../src/main/core';
import { wireServices } from '../../src/main/composition/services';
import { startupSteps } from '../../src/main/composition/startup';
import { startSteps, type StartupStep } from '../../src/main/composition/steps';
import { openLedger } from '../../src/main/ledger/connection';
import { postgresMigrations } from '../../src/main/ledger/migrations/index';
import { ledgerFile } from '../../src/main/platform/paths';
import { EnvelopeKey } from '../../src/main/services/team/envelope-key';
import { testCoreOptions } from '../helpers/app-core';
import { testEngine } from '../helpers/ledger';
import { waitFor } from '../helpers/poll';
import { tempDir } from '../helpers/temp-dir';

const temps: { cleanup: () => void }[] = [];
afterAll(() => {
  for (const temp of temps) temp.cleanup();
});

async function optionsFor(kind: 'desk' | 'team'): Promise<CoreOptions> {
  const temp = tempDir('paydesk-startup-');
  temps.push(temp);
  const options = await testCoreOptions(temp.dir);
  if (kind === 'desk') return options;
  const { secrets: _keychain, ...server } = options;
  return { ...server, mode: 'server', team: { key: EnvelopeKey.generate(), serverUrl: 'http://127.0.0.1' } };
}

/** The real steps on the real wired services, each start and close recorded; the start of `failAt` throws instead of running. */
async function startRecorded(options: CoreOptions, failAt?: string) {
  const ledger = await openLedger(options.database ? { url: options.database } : { file: ledgerFile(options.dataDir) });
  const services = wireServices(ledger, `instance-${Math.random().toString(36).slice(2)}`, options, postgresMigrations.at(-1)?.version ?? 0);
  const steps = startupSteps(services, options);
  const record: string[] = [];
  const recorded = steps.map(
    (step): StartupStep => ({
      ...step,
      start: async () => {
        if (step.name === failAt) throw new Error(`step ${step.name} failed`);
        record.push(`start ${step.name}`);
        await step.start?.();
      },
      ...(step.close && {
        close: async () => {
          record.push(`close ${step.name}`);
          await step.close?.();
        },
      }),
    }),
  );
  const ports = () => ({ listener: services.listener.port, emulator: Number(new URL(services.local.baseUrl).port) });
  return { steps, record, services, ports, started: startSteps(recorded) };
}

const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });

/** One desk's data directory and ledger for the failures below: each start after one is a restart (a PostgreSQL database each would be many to drop). */
let failingDesk: Promise<CoreOptions> | undefined;

const closesOf = (steps: readonly StartupStep[]) => steps.filter((step) => step.close).map((step) => `close ${step.name}`);

const DESK_STEPS = [
  'ledger',
  'cluster',
  'instance presence',
  'team link',
  'emulator',
  'retention',
  'applier drained on close',
  'listener',
  'listener port remembered',
  'applier.recoverPending',
  'local profile',
  'read limiter',
  'attempts.recoverInterrupted',
  'succeededWithoutAnswer',
  'notice announcer',
  'batch progress',
  'verifier',
  'notification pushes',
  'status polling',
  'applier.retryOrphans',
  'retention.start',
  'recovery',
  'watches',
  'sweeper',
  'statements.recover',
  // A ledger other instances may share (and migrate): PostgreSQL's.
  ...(testEngine === 'postgres' ? ['schema watch'] : []),
  'batches.recover',
  'unknown-outcome settler',
  'team link restored',
];

describe('the core start-up', () => {
  it('runs its steps in order: the listener before the applier recovers, interrupted attempts before anything may be sent, batches resumed last', async () => {
    const desk = await startRecorded(await optionsFor('desk'));
    const stop = await desk.started;
    await stop();
    expect(desk.steps.map((step) => step.name)).toEqual(DESK_STEPS);

    const team = await startRecorded(await optionsFor('team'));
    await (await team.started)();
    const serverSteps = DESK_STEPS.filter((name) => !name.startsWith('team link'));
    serverSteps.splice(serverSteps.indexOf('emulator'), 0, ...(testEngine === 'postgres' ? ['push relay'] : []));
    serverSteps.splice(serverSteps.indexOf('notice announcer'), 0, 'approval expiry');
    serverSteps.splice(serverSteps.indexOf('watches'), 0, 'notice sender');
    expect(team.steps.map((step) => step.name)).toEqual(serverSteps);
  });

  it('closes every step it started once, the last first, and leaves no port open', async () => {
    const core = await startRecorded(await optionsFor('desk'));
    const stop = await core.started;
    const ports = core.ports();
    expect(await refused(ports.listener)).toBe(false);
    expect(await refused(ports.emulator)).toBe(false);
    const started = core.record.length;
    expect(core.record).toEqual(DESK_STEPS.map((name) => `start ${name}`));

    await stop();
    expect(core.record.slice(started)).toEqual(closesOf(core.steps).reverse());
    expect(await refused(ports.listener)).toBe(true);
    expect(await refused(ports.emulator)).toBe(true);
    await expect(core.services.ledger.get('SELECT 1 AS one')).rejects.toThrow();

    // A second close finds nothing left to close.
    await stop();
    expect(core.record.length).toBe(started + closesOf(core.steps).length);
  });

  it.each(DESK_STEPS.filter((name) => name !== 'ledger').map((name, i) => [name, i + 1] as const))('a failure at step "%s" closes the steps before it, last first, and throws it', async (name, k) => {
    failingDesk ??= optionsFor('desk');
    const core = await startRecorded(await failingDesk, name);
    await expect(core.started).rejects.toThrow(`step ${name} failed`);
    const before = core.steps.slice(0, k);
    expect(core.record).toEqual([...before.map((step) => `start ${step.name}`), ...closesOf(before).reverse()]);
    await expect(core.services.ledger.get('SELECT 1 AS one')).rejects.toThrow();
    if (k > DESK_STEPS.indexOf('emulator')) expect(await refused(Number(new URL(core.services.local.baseUrl).port))).toBe(true);
    if (k > DESK_STEPS.indexOf('listener')) expect(await refused(core.services.listener.port)).toBe(true);
  }, 30_000);

  it('traces the phases web mode prints with PAYDESK_TRACE=1, in order', async () => {
    const phases: string[] = [];
    const core = await createCore({ ...(await optionsFor('desk')), trace: (phase) => phases.push(phase) });
    await core.close();
    expect(phases).toEqual([
      'core: opening the ledger',
      'core: ledger open',
      'core: emulator started',
      'core: listener bound',
      'core: applier.recoverPending done',
      'core: attempts.recoverInterrupted done',
      'core: succeededWithoutAnswer done',
      'core: applier.retryOrphans done',
      'core: retention.start done',
      'core: verifier.recover done',
      'core: batches.recover done',
    ]);
  });

  it('closes once when it is closed twice at once', async () => {
    const core = await createCore(await optionsFor('desk'));
    const port = core.listener.port;
    await Promise.all([core.close(), core.close()]);
    await waitFor(() => refused(port), (closed) => closed, 'the listener closed');
  });
});
