// A desk's link to a team server (docs/team.md). Signed in (Settings → Team server), every contract
// call but the link's own goes to the server as the person signed in, and the server's pushes come
// back over its event stream, so the same screens show the team's ledger and change live. The
// session token is kept in the OS keychain (never the password); the server's address and the
// user name in the desk's settings. Signed out (or never signed in), the desk works on its own
// ledger exactly as before. A session the server ends (revoked, expired) takes the desk back to
// its own ledger, saying why.
import type { Envelope, PushChannel, TeamConnectInput, TeamSession } from '../../../shared/contract';
import { isPushChannel } from '../../../shared/contract';
import { errorMessage } from '../../../shared/error-message';
import { STREAM_GAP_EVENT } from '../../../shared/web-stream';
import type { Dispatch } from '../../ipc/dispatcher';
import type { SettingsRepository } from '../../ledger/repositories/settings';
import type { Logger } from '../../logger';
import { ServiceError } from '../errors';
import type { EventBus } from '../event-bus';
import type { SecretStore } from '../secret-store';
import { DESK_SESSION, type DeskTeamLink } from './team-channels';

const TOKEN_ACCOUNT = 'team-session';
const LINK_KEY = 'team.link';
/** What a desk answers itself even while linked. */
const OWN_CHANNELS = new Set(['team:get-session', 'team:connect', 'team:disconnect']);
const RECONNECT_MS = [1_000, 2_000, 5_000, 10_000, 30_000];

interface Linked {
  server: string;
  token: string;
  session: TeamSession;
  stream: AbortController;
}

export interface TeamLinkDeps {
  secrets: SecretStore;
  settings: SettingsRepository;
  /** The bus the screens listen to: the server's pushes while linked, the desk's own otherwise. */
  events: EventBus;
  log: Logger;
  fetch?: typeof fetch;
}

/** A team server's address: https, or http on this machine only (a session token never crosses a network in the clear). */
export function teamServerUrl(text: string): string {
  const url = new URL(text.trim());
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new ServiceError('invalid_input', 'A team server is reached over https (http only on this machine).', { server: 'Must start with https://' });
  }
  return url.origin;
}

export class TeamLink implements DeskTeamLink {
  private linked: Linked | null = null;
  private lostBecause: string | null = null;
  private readonly fetch: typeof fetch;

  constructor(private readonly deps: TeamLinkDeps) {
    this.fetch = deps.fetch ?? fetch;
  }

  get active(): boolean {
    return this.linked !== null;
  }

  /** At start-up: a session kept from before is used again if the server still knows it. */
  async restore(): Promise<void> {
    const stored = await this.deps.settings.get(LINK_KEY);
    if (!stored) return;
    const { server } = JSON.parse(stored) as { server: string };
    let token: string | null;
    try {
      token = await this.deps.secrets.get(TOKEN_ACCOUNT);
    } catch (error) {
      this.lostBecause = `The session could not be read from the keychain (${errorMessage(error)}): sign in again.`;
      return;
    }
    if (!token) return;
    const answer = await this.call(server, token, 'team:get-session', undefined, 5_000).catch((error: unknown) => ({ ok: false as const, error: { code: 'unavailable' as const, message: errorMessage(error) } }));
    if (answer.ok) this.link(server, token, answer.value as TeamSession);
    else if (answer.error.code === 'unauthorized') await this.lose('The team server no longer knows this desk\'s session (it ended, or was revoked): sign in again.');
    else this.lostBecause = `The team server ${server} did not answer (${answer.error.message}): this desk works on its own ledger; sign in again when it is back.`;
  }

  async session(): Promise<TeamSession> {
    if (this.linked) return { ...this.linked.session, mode: 'connected', server: this.linked.server, lostBecause: null };
    const stored = await this.deps.settings.get(LINK_KEY);
    const server = stored ? (JSON.parse(stored) as { server: string }).server : null;
    return { ...DESK_SESSION, server, lostBecause: this.lostBecause };
  }

  async connect(input: TeamConnectInput): Promise<TeamSession> {
    const server = teamServerUrl(input.server);
    let response: Response;
    try {
      response = await this.fetch(`${server}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: input.username, password: input.password, ...(input.totp ? { totp: input.totp } : {}), client: 'desktop' }),
        signal: AbortSignal.timeout(15_000),
      });
    } catch (error) {
      throw new ServiceError('unavailable', `The team server ${server} is not reachable: ${errorMessage(error)}.`, { server: 'is not reachable' });
    }
    const answer = (await response.json().catch(() => null)) as Envelope<{ session: TeamSession; token: string }> | null;
    if (!answer) throw new ServiceError('unavailable', `${server} answered HTTP ${response.status}, not as a Paydesk team server.`, { server: 'is not a Paydesk team server' });
    if (!answer.ok) throw new ServiceError(answer.error.code === 'unauthorized' ? 'invalid_input' : answer.error.code, answer.error.message, answer.error.fields ?? { password: answer.error.message });
    await this.disconnect().catch(() => undefined);
    await this.deps.secrets.set(TOKEN_ACCOUNT, answer.value.token);
    await this.deps.settings.put(new Map([[LINK_KEY, JSON.stringify({ server, username: input.username })]]));
    this.lostBecause = null;
    this.link(server, answer.value.token, answer.value.session);
    return this.announce();
  }

  async disconnect(): Promise<TeamSession> {
    const linked = this.linked;
    if (linked) {
      this.unlink();
      await this.fetch(`${linked.server}/auth/logout`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${linked.token}` }, body: '{}', signal: AbortSignal.timeout(5_000) }).catch(() => undefined);
    }
    await this.deps.secrets.delete(TOKEN_ACCOUNT).catch(() => false);
    this.lostBecause = null;
    return this.announce();
  }

  /** The desk's dispatch while linked: everything but the link's own channels goes to the server. */
  dispatch(local: Dispatch): Dispatch {
    return async (channel, input) => {
      const linked = this.linked;
      if (!linked || OWN_CHANNELS.has(channel)) return local(channel, input);
      let answer: Envelope<unknown>;
      try {
        answer = await this.call(linked.server, linked.token, channel, input);
      } catch (error) {
        return { ok: false, error: { code: 'unavailable', message: `The team server ${linked.server} is not reachable: ${errorMessage(error)}.` } };
      }
      if (!answer.ok && answer.error.code === 'unauthorized') await this.lose('The team server ended this desk\'s session (signed out, revoked or expired): sign in again.');
      return answer;
    };
  }

  /** Stops the event stream (the app is closing). */
  close(): void {
    this.linked?.stream.abort();
  }

  private async call(server: string, token: string, channel: string, input: unknown, timeoutMs = 120_000): Promise<Envelope<unknown>> {
    const response = await this.fetch(`${server}/rpc/${encodeURIComponent(channel)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ input }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    return (await response.json()) as Envelope<unknown>;
  }

  private link(server: string, token: string, session: TeamSession): void {
    this.unlink();
    const stream = new AbortController();
    this.linked = { server, token, session, stream };
    void this.follow(this.linked);
  }

  private unlink(): void {
    this.linked?.stream.abort();
    this.linked = null;
  }

  private async lose(why: string): Promise<void> {
    if (!this.linked) return;
    this.unlink();
    this.lostBecause = why;
    await this.deps.secrets.delete(TOKEN_ACCOUNT).catch(() => false);
    await this.announce();
  }

  private async announce(): Promise<TeamSession> {
    const session = await this.session();
    this.deps.events.publish('team:session-changed', session);
    return session;
  }

  /** The server's pushes, onto the screens' bus, resumed after a drop from the last one received. */
  private async follow(linked: Linked): Promise<void> {
    let lastId: string | undefined;
    for (let attempt = 0; !linked.stream.signal.aborted; attempt++) {
      try {
        const response = await this.fetch(`${linked.server}/events`, {
          headers: { authorization: `Bearer ${linked.token}`, accept: 'text/event-stream', ...(lastId ? { 'last-event-id': lastId } : {}) },
          signal: linked.stream.signal,
        });
        if (response.status === 401) {
          await this.lose('The team server ended this desk\'s session (signed out, revoked or expired): sign in again.');
          return;
        }
        if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
        attempt = 0;
        for await (const frame of serverSentEvents(response.body)) {
          if (frame.id) lastId = frame.id;
          // Back on a server process that cannot replay what this desk missed: its screens read again.
          if (frame.event === STREAM_GAP_EVENT) this.deps.events.publish('team:pushes-missed', {});
          else if (frame.event && isPushChannel(frame.event)) this.deps.events.publish(frame.event as PushChannel, JSON.parse(frame.data) as never);
        }
      } catch (error) {
        if (linked.stream.signal.aborted) return;
        this.deps.log.warn(`team server event stream: ${errorMessage(error)}; reconnecting`);
      }
      await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS[Math.min(attempt, RECONNECT_MS.length - 1)]));
    }
  }
}

/** Frames of a server-sent event stream: its event name, id and data (comments and heartbeats dropped; an id alone is a frame, with no event and no data). */
export async function* serverSentEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<{ event: string | null; id: string | null; data: string }> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event: string | null = null;
      let id: string | null = null;
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event = value;
        else if (field === 'id') id = value;
        else if (field === 'data') data.push(value);
      }
      // A frame of an id alone moves where a reconnect resumes from (the stream's opening position).
      if (data.length > 0 || id !== null) yield { event, id, data: data.join('\n') };
    }
  }
}
