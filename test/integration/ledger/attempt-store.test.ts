// The SQLite AttemptStore must behave exactly like the gateway's reference MemoryAttemptStore:
// the same script runs against both and must produce the same observations.
import { afterEach, describe, expect, it } from 'vitest';
import type { AttemptStore } from '../../../src/main/gateway/attempt-store';
import { AttemptStateError } from '../../../src/main/gateway/attempt-store';
import { MemoryAttemptStore } from '../../../src/main/gateway/memory-attempt-store';
import { openLedger } from '../../../src/main/ledger/connection';
import { LedgerAttemptStore } from '../../../src/main/ledger/ledger-attempt-store';
import { AttemptsRepository } from '../../../src/main/ledger/repositories/attempts';
import { testLedger, type TestLedger } from '../../helpers/ledger';

const opened: TestLedger[] = [];
afterEach(() => opened.splice(0).forEach((l) => l.close()));

function ledgerStore(): { store: LedgerAttemptStore; ledger: TestLedger } {
  const ledger = testLedger();
  opened.push(ledger);
  return { store: new LedgerAttemptStore(ledger.repos.attempts, ledger.profile.id), ledger };
}

const meta = { endpoint: 'payout_create' as const, reference: 'po-1', replayable: true };
const answer = (source: 'create' | 'status_read' = 'create') => ({ httpStatus: 200, body: '{"status_code":"P100"}', source });

/** A scripted run; every step's result or error name is recorded. */
function script(store: AttemptStore): unknown[] {
  const seen: unknown[] = [];
  const step = (run: () => unknown) => {
    try {
      seen.push(run() ?? 'ok');
    } catch (error) {
      seen.push(error instanceof AttemptStateError ? `AttemptStateError: ${error.message}` : String(error));
    }
  };
  step(() => store.prepare('k1', 'h1', '{"a":1}', meta));
  step(() => store.prepare('k1', 'h1', '{"a":1}', meta));
  step(() => store.markSucceeded('k1', answer()));
  step(() => store.markSending('k1'));
  step(() => store.markSending('k1'));
  step(() => store.listByState('sending').map((r) => r.key));
  step(() => store.markUnknown('k1', 'timeout'));
  step(() => store.get('k1'));
  step(() => store.markRejected('k1', answer()));
  step(() => store.markSending('k1'));
  step(() => store.markSucceeded('k1', answer('status_read')));
  step(() => store.get('k1'));
  step(() => store.markSending('k1'));
  step(() => store.markUnknown('k1', 'late'));
  step(() => store.prepare('k2', 'h2', '{"b":2}', { ...meta, endpoint: 'tokenization_create', reference: 'req-2', replayable: false }));
  step(() => store.markSending('k2'));
  step(() => store.markRejected('k2', { httpStatus: 400, body: '{"reason_code":"INVALID_MERCHANT_JWT"}', source: 'create' }));
  step(() => store.get('k2'));
  step(() => store.listByState('unknown'));
  step(() => store.get('missing'));
  step(() => store.markUnknown('missing', 'x'));
  // A claim: recorded already "sending"; it cannot be marked sending again, only settled.
  step(() => store.prepareSending('k3', 'h3', '{"c":3}', { ...meta, reference: 'po-3' }));
  step(() => store.prepareSending('k3', 'h3', '{"c":3}', { ...meta, reference: 'po-3' }));
  step(() => store.get('k3'));
  step(() => store.markSending('k3'));
  step(() => store.listByState('sending').map((r) => r.key));
  step(() => store.markSucceeded('k3', answer()));
  step(() => store.get('k3'));
  return seen;
}

describe('LedgerAttemptStore (the gateway AttemptStore on SQLite)', () => {
  it('behaves step for step like the reference MemoryAttemptStore', () => {
    const { store } = ledgerStore();
    const expected = script(new MemoryAttemptStore());
    expect(script(store)).toEqual(expected);
    expect(expected).toContain('AttemptStateError: attempt k1: prepared → succeeded is not allowed');
  });

  it('has the prepared key on disk when prepare() returns (before anything can be sent)', () => {
    const { store, ledger } = ledgerStore();
    store.prepare('k-durable', 'hash', '{"x":1}', meta);
    ledger.db.close();
    const reopened = openLedger({ file: ledger.file });
    expect(new LedgerAttemptStore(new AttemptsRepository(reopened), ledger.profile.id).get('k-durable')).toMatchObject({ state: 'prepared', requestHash: 'hash' });
    reopened.close();
  });

  it('records a claim as sending with its first try counted, so a crash before the answer leaves it to recovery', () => {
    const { store, ledger } = ledgerStore();
    store.prepareSending('k-claim', 'hash', '{"x":1}', meta);
    expect(ledger.repos.attempts.byKey('k-claim')).toMatchObject({ state: 'sending', tryCount: 1, lastSentAt: expect.any(String) });
    expect(store.listByState('sending').map((r) => r.key)).toEqual(['k-claim']);
  });

  it('keeps the attempts of each profile apart in listByState', () => {
    const { store, ledger } = ledgerStore();
    const other = ledger.repos.profiles.create({ name: 'b', environment: 'sandbox', baseUrl: 'x', merchantId: 'm', merchantSiteId: 's' });
    const otherStore = new LedgerAttemptStore(ledger.repos.attempts, other.id);
    store.prepare('mine', 'h', '{}', meta);
    otherStore.prepare('theirs', 'h', '{}', meta);
    expect(store.listByState('prepared').map((r) => r.key)).toEqual(['mine']);
    expect(otherStore.listByState('prepared').map((r) => r.key)).toEqual(['theirs']);
  });
});
