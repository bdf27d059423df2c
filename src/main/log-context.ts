// The request a log line is written in (logger.ts mixes it into every line): its id, taken from
// the balancer's X-Request-Id when it sends a usable one, else made here, and the person once the
// server knows who is signed in. Set by the HTTP servers around each request (AsyncLocalStorage),
// so a line logged deep in a service still names the request it served.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

export interface LogContext {
  readonly reqId: string;
  /** The id of the person signed in, once known. */
  person(): string | undefined;
  setPerson(id: string): void;
}

const storage = new AsyncLocalStorage<LogContext>();

export const REQUEST_ID_HEADER = 'x-request-id';

/** The request id: the one sent, when it is a short token of safe characters, else a new one. */
export function requestIdOf(sent: string | string[] | undefined): string {
  return typeof sent === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(sent) ? sent : randomUUID();
}

export function withLogContext<T>(reqId: string, fn: (context: LogContext) => T): T {
  let person: string | undefined;
  const context: LogContext = { reqId, person: () => person, setPerson: (id) => (person = id) };
  return storage.run(context, () => fn(context));
}

export function currentLogContext(): LogContext | undefined {
  return storage.getStore();
}
