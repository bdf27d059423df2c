import { startListener, type Listener, type ListenerLimits } from '../../src/main/listener/server';
import type { LedgerEngine } from '../../src/main/ledger/engine/types';
import { openReader, testLedger, type TestLedger } from './ledger';

export interface ListenerFixture {
  ledger: TestLedger;
  listener: Listener;
  /** The profile's notification URL. */
  url: string;
  stored: number[];
  /** A separate connection: what another process would see committed (on disk, for SQLite). */
  reader: LedgerEngine;
  rowCount(): Promise<number>;
  close(): Promise<void>;
}

export async function listenerFixture(limits: Partial<ListenerLimits> = {}, onStored?: (id: number, ledger: TestLedger) => void): Promise<ListenerFixture> {
  const ledger = await testLedger();
  const stored: number[] = [];
  const listener = await startListener({
    db: ledger.db,
    limits,
    onStored: (id) => {
      stored.push(id);
      onStored?.(id, ledger);
    },
    now: ledger.clock.now,
  });
  const reader = await openReader(ledger.address);
  return {
    ledger,
    listener,
    url: listener.url(ledger.profile.listenerPathSecret),
    stored,
    reader,
    rowCount: async () => (await reader.get<{ n: number }>('SELECT count(*) AS n FROM notifications'))!.n,
    close: async () => {
      await listener.close();
      await reader.close();
      await ledger.close();
    },
  };
}
