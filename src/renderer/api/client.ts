// The renderer's one api client. It runs on the Electron preload's bridge or on the web-mode
// HTTP bridge and cannot tell which: both implement PaydeskBridge from the shared contract.
import type {
  ContractErrorBody,
  InvokeChannel,
  InvokeInput,
  InvokeOutput,
  PaydeskBridge,
  PushChannel,
  PushPayload,
} from '../../shared/contract';
import { createHttpBridge } from './http-bridge';
import { PUSH_SEQ_META, SESSION_META, TEAM_META } from '../../shared/web-stream';

export class ContractError extends Error {
  readonly code: ContractErrorBody['code'];
  readonly fields: Record<string, string>;

  constructor(body: ContractErrorBody) {
    super(body.message);
    this.name = 'ContractError';
    this.code = body.code;
    this.fields = body.fields ?? {};
  }
}

export interface ApiClient {
  invoke<C extends InvokeChannel>(channel: C, ...input: InvokeInput<C> extends undefined ? [] : [InvokeInput<C>]): Promise<InvokeOutput<C>>;
  on<P extends PushChannel>(channel: P, listener: (payload: PushPayload<P>) => void): () => void;
}

export function createApiClient(bridge: PaydeskBridge): ApiClient {
  return {
    async invoke(channel, ...args) {
      const call = bridge.invoke[channel] as (input: unknown) => Promise<{ ok: boolean; value?: unknown; error?: ContractErrorBody }>;
      const envelope = await call(args[0]);
      if (!envelope.ok) throw new ContractError(envelope.error ?? { code: 'internal', message: 'Malformed answer from main.' });
      return envelope.value as never;
    },
    on(channel, listener) {
      const subscribe = bridge.on[channel] as (listener: (payload: unknown) => void) => () => void;
      return subscribe(listener as (payload: unknown) => void);
    },
  };
}

/** A meta tag web mode's server wrote into the page. */
const pageMeta = (name: string): string | undefined => document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content;

function sessionTokenFromPage(): string {
  const token = pageMeta(SESSION_META);
  if (!token) throw new Error('Paydesk: no bridge found (neither the Electron preload nor a web-mode session).');
  return token;
}

/** This page is a team server's: people sign in (no session token in the page). */
export function isTeamPage(): boolean {
  return !window.paydesk && pageMeta(TEAM_META) === '1';
}

/** `onSignedOut`: on a team server's page, what to do when the session ends (show the sign-in form again). */
export function pickBridge(onSignedOut: () => void = () => window.location.reload()): PaydeskBridge {
  if (window.paydesk) return window.paydesk;
  const since = pageMeta(PUSH_SEQ_META) ?? '';
  if (isTeamPage()) return createHttpBridge({ team: true, onSignedOut }, window.location.origin, since);
  // Web mode: drop the token from the address bar once the page has it.
  if (window.location.search.includes('token=')) window.history.replaceState(null, '', window.location.pathname + window.location.hash);
  return createHttpBridge({ token: sessionTokenFromPage() }, window.location.origin, since);
}
