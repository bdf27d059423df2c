// The ledger's AttemptStore (on either engine) must behave exactly like the gateway's reference MemoryAttemptStore:
// the same script runs against both and must produce the same observations.
import { afterEach, describe, expect, it } from 'vitest';
import type { AttemptStore } from '../../../src/main/gateway/attempt-store';
import { AttemptStateError } from '../../../src/main/gateway/attempt-store';
import { MemoryAttemptStore } from '../../../src/main/gateway/memory-attempt-store';
import { LedgerAttemptStore } from '../../../src/main/ledger/ledger-attempt-store';
import { AttemptsRepository } from '../../../src/main/ledger/repositories/attempts';
import { openReader, testLedger, type TestLedger } from '../../helpers/ledger';

const opened: TestLedger[] = [];
afterEach(async () => {
  for (const ledger of opened.splice(0)) await ledger.close();
});

async function ledgerStore(): Promise<{ store: LedgerAttemptStore; ledger: TestLedger }> {
  const ledger = await testLedger();
  opened.push(ledger);
  return { store: new LedgerAttemptStore(ledger.repos.attempts, ledger.profile.id), ledger };
}

const meta = { endpoint: 'payout_create' as const, reference: 'po-1', replayable: true };
const answer = (source: 'create' | 'status_read' = 'create') => ({ httpStatus: 200, body: '{"status_code":"P100"}', source });

/** A scripted run; every step's result or error name is recorded. */
async function script(store: AttemptStore): Promise<unknown[]> {
  const seen: unknown[] = [];
  const step = async (run: () => Promise<unknown>) => {
    try {
      seen.push((await run()) ?? 'ok');
    } catch (error) {
      seen.push(error instanceof AttemptStateError ? `AttemptStateError: ${error.message}` : String(error));
    }
  };
  await step(() => store.prepare('k1', 'h1', '{"a":1}', meta));
  await step(() => store.prepare('k1', 'h1', '{"a":1}', meta));
  await step(() => store.markSucceeded('k1', answer()));
  await step(() => store.markSending('k1'));
  await step(() => store.markSending('k1'));
  await step(async () => (await store.listByState('sending')).map((r) => r.key));
  await step(() => store.markUnknown('k1', 'timeout'));
  await step(() => store.get('k1'));
  await step(() => store.markRejected('k1', answer()));
  await step(() => store.markSending('k1'));
  await step(() => store.markSucceeded('k1', answer('status_read')));
  await step(() => store.get('k1'));
  await step(() => store.markSending('k1'));
  await step(() => store.markUnknown('k1', 'late'));
  await step(() => store.prepare('k2', 'h2', '{"b":2}', { ...meta, endpoint: 'tokenization_create', reference: 'req-2', replayable: false }));
  await step(() => store.markSending('k2'));
  await step(() => store.markRejected('k2', { httpStatus: 400, body: '{"reason_code":"INVALID_MERCHANT_JWT"}', source: 'create' }));
  await step(() => store.get('k2'));
  await step(() => store.listByState('unknown'));
  await step(() => store.get('missing'));
  await step(() => store.markUnknown('missing', 'x'));
  // A claim: recorded already "sending"; it cannot be marked sending again, only settled.
  await step(() => store.prepareSending('k3', 'h3', '{"c":3}', { ...meta, reference: 'po-3' }));
  await step(() => store.prepareSending('k3', 'h3', '{"c":3}', { ...meta, reference: 'po-3' }));
  await step(() => store.get('k3'));
  await step(() => store.markSending('k3'));
  await step(async () => (await store.listByState('sending')).map((r) => r.key));
  await step(() => store.markSucceeded('k3', answer()));
  await step(() => store.get('k3'));
  return seen;
}

describe('LedgerAttemptStore (the gateway AttemptStore on the ledger)', () => {
  it('behaves step for step like the reference MemoryAttemptStore', async () => {
    const { store } = await ledgerStore();
    const expected = await script(new MemoryAttemptStore());
    expect(await script(store)).toEqual(expected);
    expect(expected).toContain('AttemptStateError: attempt k1: prepared → succeeded is not allowed');
  });

  it('has the prepared key committed when prepare() resolves (before anything can be sent)', async () => {
    const { store, ledger } = await ledgerStore();
    await store.prepare('k-durable', 'hash', '{"x":1}', meta);
    // Another connection, as another process: it sees only what is committed (on disk for SQLite).
    const reader = await openReader(ledger.address);
    try {
      expect(await new LedgerAttemptStore(new AttemptsRepository(reader), ledger.profile.id).get('k-durable')).toMatchObject({ state: 'prepared', requestHash: 'hash' });
    } finally {
      await reader.close();
    }
  });

  it('records a claim as sending with its first try counted, so a crash before the answer leaves it to recovery', async () => {
    const { store, ledger } = await ledgerStore();
    await store.prepareSending('k-claim', 'hash', '{"x":1}', meta);
    expect(await ledger.repos.attempts.byKey('k-claim')).toMatchObject({ state: 'sending', tryCount: 1, lastSentAt: expect.any(String) });
    expect((await store.listByState('sending')).map((r) => r.key)).toEqual(['k-claim']);
  });

  it('keeps the attempts of each profile apart in listByState', async () => {
    const { store, ledger } = await ledgerStore();
    const other = await ledger.repos.profiles.create({ name: 'b', environment: 'sandbox', baseUrl: 'x', merchantId: 'm', merchantSiteId: 's' });
    const otherStore = new LedgerAttemptStore(ledger.repos.attempts, other.id);
    await store.prepare('mine', 'h', '{}', meta);
    await otherStore.prepare('theirs', 'h', '{}', meta);
    expect((await store.listByState('prepared')).map((r) => r.key)).toEqual(['mine']);
    expect((await otherStore.listByState('prepared')).map((r) => r.key)).toEqual(['theirs']);
  });
});
