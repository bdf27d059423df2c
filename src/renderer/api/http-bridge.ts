// Web mode's implementation of the contract bridge: POST /rpc/<channel> for calls, one
// EventSource on /events for pushes. Same shape as the Electron preload's bridge.
import {
  type Envelope,
  invokeChannels,
  type PaydeskBridge,
  pushChannels,
  type PushChannel,
} from '../../shared/contract';

export function createHttpBridge(token: string, origin: string = window.location.origin): PaydeskBridge {
  const call = async (channel: string, input: unknown): Promise<Envelope<unknown>> => {
    let response: Response;
    try {
      response = await fetch(`${origin}/rpc/${channel}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-paydesk-token': token },
        body: JSON.stringify({ input }),
      });
    } catch {
      return { ok: false, error: { code: 'unavailable', message: 'Paydesk is not reachable: is `npm start` still running?' } };
    }
    try {
      return (await response.json()) as Envelope<unknown>;
    } catch {
      return { ok: false, error: { code: 'internal', message: `Paydesk answered HTTP ${response.status} without a readable body.` } };
    }
  };

  let source: EventSource | null = null;
  const listeners = new Map<PushChannel, Set<(payload: unknown) => void>>();
  const ensureSource = (): EventSource => {
    if (source) return source;
    source = new EventSource(`${origin}/events?token=${encodeURIComponent(token)}`);
    for (const channel of pushChannels) {
      source.addEventListener(channel, (event) => {
        const payload: unknown = JSON.parse((event as MessageEvent<string>).data);
        for (const listener of listeners.get(channel) ?? []) listener(payload);
      });
    }
    return source;
  };

  const invoke = Object.fromEntries(invokeChannels.map((channel) => [channel, (input: unknown) => call(channel, input)]));
  const on = Object.fromEntries(
    pushChannels.map((channel) => [
      channel,
      (listener: (payload: unknown) => void) => {
        ensureSource();
        const set = listeners.get(channel) ?? new Set();
        set.add(listener);
        listeners.set(channel, set);
        return () => set.delete(listener);
      },
    ]),
  );
  return { invoke, on } as unknown as PaydeskBridge;
}
