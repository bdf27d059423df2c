// Contract calls a test makes through a core's dispatch (or anything that dispatches: a child
// process's bridge, a web app's /rpc), in one place. Plain: no vitest, no core, so a child process
// of the crash tests uses them too. app-core.ts's contractCall also holds the answer to its schema.
import type { Envelope } from '../../src/shared/contract';

type Dispatch = (channel: string, input: unknown) => Promise<Envelope<unknown>>;
/** A core (anything with `dispatch`) or a dispatch function itself. */
export type Dispatcher = Dispatch | { dispatch: Dispatch };

/** The envelope a call answers: a refusal is data here, not an exception. */
export async function call<T = unknown>(to: Dispatcher, channel: string, input?: unknown): Promise<Envelope<T>> {
  const dispatch = typeof to === 'function' ? to : to.dispatch;
  return (await dispatch(channel, input)) as Envelope<T>;
}

/** The call's value; a refusal thrown as an Error naming the channel and carrying the error body (code, message, fields). */
export async function must<T = unknown>(to: Dispatcher, channel: string, input?: unknown): Promise<T> {
  return valueOf(channel, await call<T>(to, channel, input));
}

/** An envelope's value; a refusal thrown as must() throws it. */
export function valueOf<T>(channel: string, envelope: Envelope<T>): T {
  if (!envelope.ok) {
    const message = `${channel}: ${envelope.error.code} ${envelope.error.message}`;
    throw Object.assign(new Error(message), { ...envelope.error, message });
  }
  return envelope.value;
}
