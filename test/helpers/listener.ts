import Database from 'better-sqlite3';
import { startListener, type Listener, type ListenerLimits } from '../../src/main/listener/server';
import { testLedger, type TestLedger } from './ledger';

export interface ListenerFixture {
  ledger: TestLedger;
  listener: Listener;
  /** The profile's notification URL. */
  url: string;
  stored: number[];
  /** A separate read-only connection: what another process would see on disk. */
  reader: Database.Database;
  rowCount(): number;
  close(): Promise<void>;
}

export async function listenerFixture(limits: Partial<ListenerLimits> = {}, onStored?: (id: number, ledger: TestLedger) => void): Promise<ListenerFixture> {
  const ledger = testLedger();
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
  const reader = new Database(ledger.file, { readonly: true });
  const count = reader.prepare('SELECT count(*) AS n FROM notifications');
  return {
    ledger,
    listener,
    url: listener.url(ledger.profile.listenerPathSecret),
    stored,
    reader,
    rowCount: () => (count.get() as { n: number }).n,
    close: async () => {
      await listener.close();
      reader.close();
      ledger.close();
    },
  };
}

/** Polls `check` every 10 ms until it returns true; fails after `maxMs`. */
export async function waitFor(check: () => boolean, maxMs = 3000): Promise<void> {
  const until = Date.now() + maxMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`condition not met within ${maxMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
