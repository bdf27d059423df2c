// The team server killed with SIGKILL in the middle of a batch of payouts, then started
// again as its operator would: the batch ends, every payout reached the gateway exactly once, the
// audit chain verifies. And what it keeps of its credentials: a sentinel merchant-token and private
// key given to it are found neither in the database (every table, through PostgreSQL) nor in the
// server's log, in either run.
import path from 'node:path';
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/main/ledger/connection';
import { createRepositories } from '../../src/main/ledger/repositories/index';
import type { BatchView } from '../../src/shared/contract';
import { batchRows, exactlyOnceProblems, gatewayPayoutsByReference, getBatch, uploadBatch } from '../integration/batches/helpers';
import { waitFor } from '../helpers/poll';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database';
import { tempDir } from '../helpers/temp-dir';
import { leaksIn, leaksInLedger, makeSentinels } from '../security/helpers/sentinels';
import { prepareTeamServer, startTeamServer, TEAM_PASSWORD, teamCall, teamDispatch, teamToken, type TeamServerProcess, type TeamServerSetup } from './team-harness';

let database: TestDatabase;
let temp: ReturnType<typeof tempDir>;
let setup: TeamServerSetup;
const runs: TeamServerProcess[] = [];
const sentinels = makeSentinels();

beforeAll(async () => {
  temp = tempDir('paydesk-e2e-team-crash-');
  database = await createTestDatabase();
  mkdirSync(path.join(temp.dir, 'server'), { recursive: true });
  setup = await prepareTeamServer(database.url, path.join(temp.dir, 'server'), path.join(temp.dir, 'envelope.key'));
}, 120_000);

afterAll(async () => {
  for (const run of runs) await run.stop();
  await database?.drop();
  temp?.cleanup();
});

describe('the team server under SIGKILL', () => {
  it('resumes a batch cut off mid-send: every payout at the gateway exactly once, the audit chain whole, no credential in the database or the log', async () => {
    let server = await startTeamServer(setup);
    runs.push(server);
    const admin = await teamToken(server.origin, 'alice');
    // Credentials the server keeps: sealed, never in plaintext anywhere.
    const sandbox = await teamCall<{ id: string }>(server.origin, admin, 'profiles:create', { name: 'Shop sandbox', environment: 'sandbox', baseUrl: 'https://sandbox.example.com/api/', merchantId: 'm-1', merchantSiteId: 's-1' });
    await teamCall(server.origin, admin, 'credentials:set-merchant-token', { profileId: sandbox.id, token: sentinels.merchantToken });
    await teamCall(server.origin, admin, 'credentials:import-key', { profileId: sandbox.id, privateKey: sentinels.privateKeyPem, kid: 'crash-kid' });
    await teamCall(server.origin, admin, 'team:create-user', { username: 'bob', displayName: 'Bob Finance', role: 'finance', password: TEAM_PASSWORD });

    const bob = teamDispatch(server.origin, await teamToken(server.origin, 'bob'));
    const rows = batchRows(40, { prefix: `team-crash-${Date.now()}` });
    const started = await uploadBatch(bob, rows, { fileName: 'team.csv' });
    await waitFor(() => getBatch(bob, started.id), (b) => b.counts.sent >= 8, 'some payouts to be sent', 30_000);
    expect(await server.kill()).toBe('SIGKILL');

    server = await startTeamServer(setup);
    runs.push(server);
    const bobAgain = teamDispatch(server.origin, await teamToken(server.origin, 'bob'));
    const done = await waitFor(() => getBatch(bobAgain, started.id), (b: BatchView) => b.state === 'done', 'the batch to finish after the restart', 60_000);
    expect(done.counts).toMatchObject({ sent: 40, sending: 0, unknown: 0, pending: 0 });
    expect(done.history.some((event) => event.kind === 'interrupted')).toBe(true);
    const references = rows.map((r) => String(r.form.merchantReference));
    expect(exactlyOnceProblems(gatewayPayoutsByReference(path.join(setup.dataDir, 'emulator.sqlite')), references)).toEqual([]);
    expect(await server.stop()).toBe(0);

    const ledger = await openLedger({ url: database.url });
    try {
      expect(await createRepositories(ledger).audit.verify()).toMatchObject({ ok: true });
      expect(await leaksInLedger(ledger, sentinels)).toEqual([]);
    } finally {
      await ledger.close();
    }
    expect(runs.flatMap((run, i) => leaksIn(`server log, run ${i + 1}`, run.output(), sentinels))).toEqual([]);
  });
});
