// A listener whose address can change while the app runs (Settings → listener address). Everyone
// holds this one object, from before its first address is bound (open(), a start-up step); it
// forwards to the server bound now. A move binds the new address before
// closing the old one, so no notification meets a closed port; only when the new address needs the
// old one's port (same port, other host) is the old server closed first, and if the new bind then
// fails the old address is bound again, so a failed change never leaves Paydesk deaf.
import type { Listener } from './server';

export interface ListenerAddress {
  host: string;
  /** 0: any free port. */
  port: number;
}

export interface MovableListener extends Listener {
  /** Binds the first address (`first`, usually through the `bind` it was made with); asked before, the listener throws. */
  open(first: () => Promise<Listener>): Promise<void>;
  /** Rebinds to `address`; resolves with the address bound, rejects with the bind error (old address kept). */
  move(address: ListenerAddress): Promise<ListenerAddress>;
}

export function movableListener(bind: (address: ListenerAddress) => Promise<Listener>): MovableListener {
  let bound: Listener | undefined;
  const current = (): Listener => {
    if (!bound) throw new Error('the notification listener is not bound yet');
    return bound;
  };
  // Moves run one after another: two at once would each close the server the other replaced.
  let queue: Promise<unknown> = Promise.resolve();

  const moveNow = async (address: ListenerAddress): Promise<ListenerAddress> => {
    const previous = current();
    if (address.host === previous.host && address.port === previous.port) return address;
    let next: Listener;
    try {
      next = await bind(address);
    } catch (error) {
      if (!(address.port === previous.port && (error as NodeJS.ErrnoException).code === 'EADDRINUSE')) throw error;
      await previous.close();
      try {
        next = await bind(address);
      } catch (retryError) {
        bound = await bind({ host: previous.host, port: previous.port });
        throw retryError;
      }
      bound = next;
      return { host: next.host, port: next.port };
    }
    bound = next;
    await previous.close();
    return { host: next.host, port: next.port };
  };

  return {
    get host() {
      return current().host;
    },
    get port() {
      return current().port;
    },
    url: (pathSecret) => current().url(pathSecret),
    stats: () => current().stats(),
    refreshProfiles: () => current().refreshProfiles(),
    close: () => queue.then(() => bound?.close()),
    async open(first) {
      bound = await first();
    },
    move(address) {
      const result = queue.then(() => moveNow(address));
      queue = result.catch(() => undefined);
      return result;
    },
  };
}

/**
 * Binds the address kept from the last run; if it cannot be bound any more (the port was taken, the
 * network address is gone) the listener starts on loopback, any free port, rather than not at all.
 */
export async function bindRemembered(bind: (address: ListenerAddress) => Promise<Listener>, remembered: ListenerAddress, warn: (message: string) => void): Promise<Listener> {
  const fallback = { host: '127.0.0.1', port: 0 };
  try {
    return await bind(remembered);
  } catch (error) {
    if (remembered.host === fallback.host && remembered.port === fallback.port) throw error;
    warn(`the notification listener cannot use ${remembered.host}:${remembered.port} (${(error as Error).message}); it listens on a free loopback port instead: notification links given out before point to the old address`);
    return bind(fallback);
  }
}
