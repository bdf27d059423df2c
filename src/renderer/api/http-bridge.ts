// Web mode's implementation of the contract bridge: POST /rpc/<channel> for calls, one
// EventSource on /events for pushes. Same shape as the Electron preload's bridge.
//
// Unlike the preload, this bridge is no boundary: the page can fetch /rpc/<anything> itself, and
// main refuses unknown channels and validates every input. So its methods are made on first use
// instead of from the contract's channel list, which would build every zod schema of the
// contract in the first bundle (a cold start parses and runs that code before the first rows).
import type { Envelope, PaydeskBridge, PushChannel } from '../../shared/contract';
import { CSRF_HEADER, STREAM_GAP_EVENT } from '../../shared/web-stream';

/**
 * How the page proves who it is: web mode's session token (in a header, and on the event stream's
 * address), or a team server's sign-in cookie (sent by the browser itself, with the CSRF header on
 * every call). `onSignedOut`: a team page's session ended (a call answered unauthorized, or its
 * event stream was refused).
 */
export type BridgeAuth = { token: string } | { team: true; onSignedOut: () => void };

/** `<domain>:<verb-noun>` (STYLE.md); anything else, `then` included, is no method. */
const CHANNEL_NAME = /^[a-z]+:[a-z]+(-[a-z]+)*$/;

/**
 * `since`: the position of the last push when the page was served; the stream replays every later
 * one, so a push between serving the page and opening the stream is not lost.
 */
export function createHttpBridge(auth: BridgeAuth, origin: string = window.location.origin, since = ''): PaydeskBridge {
  const team = 'team' in auth ? auth : null;
  const authHeaders: Record<string, string> = team ? { [CSRF_HEADER]: '1' } : { 'x-paydesk-token': (auth as { token: string }).token };
  const call = async (channel: string, input: unknown): Promise<Envelope<unknown>> => {
    let response: Response;
    try {
      response = await fetch(`${origin}/rpc/${channel}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...authHeaders },
        body: JSON.stringify({ input }),
      });
    } catch {
      return { ok: false, error: { code: 'unavailable', message: team ? 'The team server is not reachable.' : 'Paydesk is not reachable: is `npm start` still running?' } };
    }
    let envelope: Envelope<unknown>;
    try {
      envelope = (await response.json()) as Envelope<unknown>;
    } catch {
      return { ok: false, error: { code: 'internal', message: `Paydesk answered HTTP ${response.status} without a readable body.` } };
    }
    if (team && response.status === 401) team.onSignedOut();
    return envelope;
  };

  let source: EventSource | null = null;
  const openStream = () => {
    const position = `since=${encodeURIComponent(since)}`;
    const stream = new EventSource(team ? `${origin}/events?${position}` : `${origin}/events?token=${encodeURIComponent((auth as { token: string }).token)}&${position}`);
    // Away longer than main keeps pushes, or back on another server process: some may have been missed, so read every screen afresh.
    stream.addEventListener(STREAM_GAP_EVENT, () => window.location.reload());
    // A team server ends the streams of a session it revoked; refused, the stream closes for good.
    if (team) stream.addEventListener('error', () => stream.readyState === EventSource.CLOSED && team.onSignedOut());
    return stream;
  };
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  const subscribe = (channel: string, listener: (payload: unknown) => void) => {
    source ??= openStream();
    let set = listeners.get(channel);
    if (!set) {
      const channelListeners = new Set<(payload: unknown) => void>();
      set = channelListeners;
      listeners.set(channel, channelListeners);
      source.addEventListener(channel, (event) => {
        const payload: unknown = JSON.parse((event as MessageEvent<string>).data);
        for (const each of channelListeners) each(payload);
      });
    }
    set.add(listener);
    return () => void set.delete(listener);
  };

  const methods = <T>(make: (channel: string) => T) => {
    const made = new Map<string, T>();
    return new Proxy({} as Record<string, T>, {
      get: (_target, channel) => {
        if (typeof channel !== 'string' || !CHANNEL_NAME.test(channel)) return undefined;
        let method = made.get(channel);
        if (!method) made.set(channel, (method = make(channel)));
        return method;
      },
    });
  };
  const invoke = methods((channel) => (input: unknown) => call(channel, input));
  const on = methods((channel) => (listener: (payload: unknown) => void) => subscribe(channel as PushChannel, listener));
  return { invoke, on } as unknown as PaydeskBridge;
}
