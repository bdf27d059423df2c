// A rolling upgrade of a team server (docs/team.md, "Upgrade"): instances A and B run this build
// (version N) on one PostgreSQL ledger, with one gateway emulator; a batch of payouts runs on A,
// some sent, some in flight (held at the gateway's door), the rest pending, and people are signed in
// on both. B is stopped and started again as N+1: this build's steps and one more (a column added to
// attempts, payouts and batch_items), which it applies at its start.
//   - The step declared compatible with N: A notices, says so in its log, and keeps serving: its
//     people's calls go on, and it finishes its batch itself.
//   - The step declared incompatible: A notices within a heartbeat and drains: every call gets a
//     503 naming the migration, its sends in flight are finished and recorded, and it can close
//     (the server's process exits); N+1 takes its batch over and finishes it, and a person signed
//     in through A goes on through N+1 with the same session.
// Either way every payout reaches the gateway exactly once and every item is sent.
// PostgreSQL only: a SQLite ledger is one desk's.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startEmulator } from '../../../src/emulator/index';
import type { Logger } from '../../../src/main/logger';
import { createRepositories } from '../../../src/main/ledger/repositories/index';
import { localGatewayFrom } from '../../../src/main/services/local-gateway';
import { instanceIdIn } from '../../../src/main/services/scale-out/instance';
import { BATCH_CHUNK_ROWS, type BatchView } from '../../../src/shared/contract';
import { stepsWithNext, testEngine } from '../../helpers/ledger';
import { waitFor } from '../../helpers/poll';
import { clientWithToken, desktopClient, startTeamTestServer, type TeamClient, type TeamTestServer, type TeamTestServerOptions } from '../../helpers/team';
import { tempDir } from '../../helpers/temp-dir';
import { batchRows, exactlyOnceProblems, gatewayPayoutsByReference } from '../batches/helpers';
import { cleanupsAfterEach } from '../../helpers/cleanups';

const cleanups = cleanupsAfterEach();

const ROWS = 40;
const SENT_BEFORE = 10;
const SCALE_OUT = { heartbeatMs: 250, deadAfterMs: 5_000, leaderRetryMs: 200 };

/** Payout creates held at the gateway's door once `sent` have gone through, until opened. */
class GatewayDoor {
  passed = 0;
  private holdAfter = Number.POSITIVE_INFINITY;
  private readonly waiting: (() => void)[] = [];

  readonly fetch: typeof globalThis.fetch = async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (url.includes('payouts/create') && this.passed >= this.holdAfter) await new Promise<void>((resolve) => this.waiting.push(resolve));
    if (url.includes('payouts/create')) this.passed++;
    return globalThis.fetch(input, init);
  };

  get held(): number {
    return this.waiting.length;
  }

  holdAfterSent(n: number): void {
    this.holdAfter = n;
  }

  open(): void {
    this.holdAfter = Number.POSITIVE_INFINITY;
    for (const release of this.waiting.splice(0)) release();
  }
}

function recordingLogger(lines: string[]): Logger {
  return { info: (m) => void lines.push(m), warn: (m) => void lines.push(m), error: (m) => void lines.push(m) };
}

/** A, B on this build with a batch running on A (part sent, part in flight, the rest pending), then B started again as N+1. */
async function upgradeAcrossALiveBatch(compatible: boolean) {
  const temp = tempDir('paydesk-rolling-upgrade-');
  cleanups.push(() => temp.cleanup());
  const emulatorFile = path.join(temp.dir, 'gateway.sqlite');
  const emulator = await startEmulator({ dataFile: emulatorFile, quiet: true, scenarioTiming: { payinCompleteMs: 50, payoutProcessingMs: 50, payoutFinalMs: 100 } });
  cleanups.push(() => emulator.close());
  const door = new GatewayDoor();
  const logOfA: string[] = [];
  const instance = async (name: string, options: TeamTestServerOptions): Promise<TeamTestServer> => {
    const server = await startTeamTestServer(path.join(temp.dir, name), { gateway: { fetch: door.fetch }, ...options, core: { scaleOut: SCALE_OUT, ...options.core } });
    cleanups.push(() => server.close());
    return server;
  };
  const a = await instance('a', { log: recordingLogger(logOfA), localGateway: localGatewayFrom(emulator), core: { batches: { concurrency: 4 } } });
  const b = await instance('b', { instanceOf: a });
  await a.addPerson('ada', 'admin');
  await a.addPerson('fin', 'finance');
  const finOnA = await desktopClient(a.origin, 'fin');
  const adaOnB = await desktopClient(b.origin, 'ada');
  const localId = (await finOnA.value<{ id: string; environment: string }[]>('profiles:list')).find((p) => p.environment === 'local')!.id;

  const rows = batchRows(ROWS, { prefix: `rolling-${compatible}-${Date.now()}` });
  const batch = await finOnA.value<BatchView>('batches:create', { profileId: localId, fileName: 'rolling.csv', rows: rows.length });
  for (let i = 0; i < rows.length; i += BATCH_CHUNK_ROWS) await finOnA.value('batches:add-items', { id: batch.id, items: rows.slice(i, i + BATCH_CHUNK_ROWS) });
  door.holdAfterSent(SENT_BEFORE);
  await finOnA.value('batches:start', { id: batch.id });
  await waitFor(async () => door.held, (held) => held === 4, 'four sends in flight, held at the door', 10_000);

  await b.close();
  const next = await instance('b', { instanceOf: a, core: { migrations: stepsWithNext(compatible) } });
  const references = rows.map((r) => String(r.form.merchantReference));
  return { a, idOfA: instanceIdIn(path.join(temp.dir, 'a')), next, adaOnB, finOnA, door, logOfA, batch, references, heldAtGateway: () => gatewayPayoutsByReference(emulatorFile) };
}

/** Waits for the batch to end and checks that nothing was lost and nothing was sent twice. */
async function everyPayoutSentOnce(client: TeamClient, id: number, references: readonly string[], heldAtGateway: () => Map<string, number>): Promise<void> {
  const done = await waitFor(() => client.value<BatchView>('batches:get', { id }), (view) => view.state === 'done', 'the batch to end', 30_000);
  expect(done.counts).toMatchObject({ sent: ROWS, sending: 0, unknown: 0, pending: 0 });
  expect(exactlyOnceProblems(heldAtGateway(), references)).toEqual([]);
}

describe.skipIf(testEngine !== 'postgres')('a rolling upgrade of two team-server instances with a batch running', () => {
  it('keeps the old instance serving, and its batch running, across a step declared compatible', async () => {
    const { a, idOfA, next, adaOnB, finOnA, door, logOfA, batch, references, heldAtGateway } = await upgradeAcrossALiveBatch(true);
    await waitFor(async () => logOfA.find((line) => line.includes('keeps serving')), (line) => line !== undefined, 'A to notice the compatible step', 5_000);
    expect(logOfA.find((line) => line.includes('keeps serving'))).toMatch(/upgraded by a newer Paydesk to schema version \d+; every step past this Paydesk's \d+ is declared compatible/);
    expect(a.core.drain.refusal()).toBeNull();
    // A's people go on, on the ledger with the new columns (its statements read them with `*` too).
    expect((await finOnA.value<BatchView>('batches:get', { id: batch.id })).id).toBe(batch.id);
    door.open();
    await everyPayoutSentOnce(finOnA, batch.id, references, heldAtGateway);
    // A ran its batch to the end itself; the person signed in through B before its upgrade goes on through it.
    expect(await a.core.ledger.get('SELECT run_by FROM batches WHERE id = ?', [batch.id])).toEqual({ run_by: idOfA });
    expect((await clientWithToken(next.origin, adaOnB.token).value<BatchView>('batches:get', { id: batch.id })).state).toBe('done');
    expect(await createRepositories(next.core.ledger).audit.verify()).toMatchObject({ ok: true });
  }, 60_000);

  it('drains the old instance with a clear message across a step not declared compatible, and the new one finishes its batch', async () => {
    const { a, next, finOnA, door, logOfA, batch, references, heldAtGateway } = await upgradeAcrossALiveBatch(false);
    await waitFor(async () => a.core.drain.refusal(), (refusal) => refusal !== null, 'A to notice the incompatible step', 5_000);
    let drained: string | undefined;
    void a.core.drain.drained.then((reason) => (drained = reason));

    // Every call to A is refused, saying why; nothing is done.
    const answer = await fetch(`${a.origin}/rpc/batches:get`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${finOnA.token}` }, body: JSON.stringify({ input: { id: batch.id } }) });
    expect(answer.status).toBe(503);
    const refusal = (await answer.json()) as { ok: false; error: { code: string; message: string } };
    expect(refusal.error.code).toBe('unavailable');
    expect(refusal.error.message).toMatch(/^This Paydesk instance is stopping: the ledger was upgraded by a newer Paydesk to schema version \d+, and its migration \d+ \("next_step"\) cannot run with this Paydesk \(schema version \d+\)\. Nothing was done/);
    expect((await fetch(`${a.origin}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'fin', password: 'x', client: 'desktop' }) })).status).toBe(503);
    expect(logOfA.some((line) => line.startsWith('stopping: the ledger was upgraded by a newer Paydesk'))).toBe(true);

    // Its sends in flight are finished before it is drained.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(drained).toBeUndefined();
    door.open();
    expect(await a.core.drain.drained).toMatch(/cannot run with this Paydesk/);
    expect(logOfA.at(-1)).toMatch(/^drained: every send in flight is recorded/);
    await a.close();

    // The upgraded instance takes the batch over; the person signed in through A goes on through it.
    await everyPayoutSentOnce(clientWithToken(next.origin, finOnA.token), batch.id, references, heldAtGateway);
    expect(await createRepositories(next.core.ledger).audit.verify()).toMatchObject({ ok: true });
  }, 60_000);
});
