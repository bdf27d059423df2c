// A batch another instance took over says so. A running batch whose instance died
// (silent past the instance timeout, no session) is taken over by a live instance, a real core on
// the same PostgreSQL ledger; the batch's history then names both instances (id and host) and when
// the takeover happened, and never says "when Paydesk started again" nor "at the next start".
// PostgreSQL only: a SQLite ledger is one desk's, and it has no other instances.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../../src/main/core';
import { openLedger } from '../../../src/main/ledger/connection';
import { createRepositories } from '../../../src/main/ledger/repositories/index';
import { describeBatchEvent } from '../../../src/renderer/features/payouts/batch-events';
import { formatTime } from '../../../src/renderer/features/transactions/format';
import type { BatchView } from '../../../src/shared/contract';
import { contractCall, testCoreOptions } from '../../helpers/app-core';
import { testEngine } from '../../helpers/ledger';
import { waitFor } from '../../helpers/poll';
import { tempDir } from '../../helpers/temp-dir';
import { cleanupsAfterEach } from '../../helpers/cleanups';

const cleanups = cleanupsAfterEach();

describe.skipIf(testEngine !== 'postgres')('a batch taken over from a dead instance (PostgreSQL)', () => {
  it("names in its history the instance that took it over, when, and the one that had stopped", async () => {
    const temp = tempDir('paydesk-batch-takeover-');
    cleanups.push(temp.cleanup);
    const options = await testCoreOptions(path.join(temp.dir, 'live'), { scaleOut: { heartbeatMs: 200, deadAfterMs: 1_000 } });
    const core: Core = await createCore(options);
    cleanups.push(() => core.close());
    const liveId = readFileSync(path.join(temp.dir, 'live', 'instance-id'), 'utf8').trim();

    // Another instance ran a batch, then fell silent a minute ago (killed: its session is gone).
    const deadId = randomUUID();
    const ledger = await openLedger({ url: options.database as string });
    cleanups.push(() => ledger.close());
    const aMinuteAgo = () => new Date(Date.now() - 60_000);
    await createRepositories(ledger, aMinuteAgo).instances.register(deadId, 'paydesk-dead', 4242);
    const profile = (await contractCall(core, 'profiles:list')).find((p) => p.environment === 'local')!;
    const at = aMinuteAgo().toISOString();
    const batch = (await ledger.get<{ id: number }>(
      "INSERT INTO batches (profile_id, environment, file_name, state, declared_rows, created_at, updated_at, started_at, run_by) VALUES (?, 'local', 'taken.csv', 'running', 1, ?, ?, ?, ?) RETURNING id",
      [profile.id, at, at, at, deadId],
    ))!;

    // The live instance leads the recovery: within a heartbeat or two it finds the dead one and takes the batch.
    const view: BatchView = await waitFor(() => contractCall(core, 'batches:get', { id: Number(batch.id) }), (b) => b.history.some((e) => e.kind === 'resumed'), 'the takeover', 10_000);
    const resumed = view.history.find((e) => e.kind === 'resumed')!;
    const stop = view.history.find((e) => e.kind === 'interrupted')!;
    const live = { id: liveId, host: os.hostname() };
    const dead = { id: deadId, host: 'paydesk-dead' };
    expect(resumed).toMatchObject({ actor: 'system', instance: live, runnerBefore: dead });
    expect(stop).toMatchObject({ cause: 'unexpected', instance: live, runnerBefore: dead });
    expect(Date.now() - Date.parse(resumed.at)).toBeLessThan(15_000);

    // In words, as the batch page shows it.
    expect(describeBatchEvent(resumed).title).toBe(`Taken over by instance ${liveId.slice(0, 8)} (${os.hostname()}) at ${formatTime(resumed.at)}: instance ${deadId.slice(0, 8)} (paydesk-dead) had stopped`);
    const stopText = describeBatchEvent(stop);
    expect(stopText.title).toBe(`Interrupted: instance ${deadId.slice(0, 8)} (paydesk-dead) stopped without closing (killed, crashed or cut off from the ledger)`);
    expect(stopText.detail).toContain(`instance ${liveId.slice(0, 8)} (${os.hostname()}) found it at ${formatTime(stop.at)} and took the batch over`);
    const words = view.history.map((e) => JSON.stringify(describeBatchEvent(e))).join(' ');
    expect(words).not.toMatch(/Paydesk started again|next start/);
    // The audit log says the same: a takeover, not a start-up.
    const audit = await createRepositories(ledger).audit.list({ limit: 50 });
    const resume = audit.find((e) => e.action === 'batch.resume' && e.subject === `batch:${batch.id}`);
    expect(JSON.parse(String(resume?.details))).toMatchObject({ reason: 'takeover', from: deadId });
  });
});
