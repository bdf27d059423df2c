// A service test's world, between the whole core (app-core.ts: the embedded emulator, the
// listener, every start-up step) and a bare ledger (ledger.ts): a real ledger on this run's engine
// with one local profile, every service wired as the core wires them (composition/services.ts),
// and fakes around them: a gateway that answers from a script (no emulator, no socket), a clock
// the test moves by hand, and the event bus, whose pushes are recorded. No start-up step runs:
// nothing listens, polls or runs in the background, so what a test sees is what its calls did.
//
//   const h = await serviceHarness();
//   await h.call('saved-views:save', {...});            // through the contract, as the renderer calls
//   expect(h.pushesOf('saved-views:views-changed')).toHaveLength(1);
//   await h.close();
import { wireServices, type CoreServices } from '../../src/main/composition/services';
import type { CoreOptions } from '../../src/main/core';
import { postgresMigrations } from '../../src/main/ledger/migrations/index';
import { createRepositories, type Repositories } from '../../src/main/ledger/repositories/index';
import type { Profile } from '../../src/main/ledger/repositories/profiles';
import type { LocalGateway } from '../../src/main/services/local-gateway';
import type { ContractErrorBody, InvokeChannel, InvokeInput, InvokeOutput, PushChannel, PushPayload } from '../../src/shared/contract';
import { LISTENER_PATH_PREFIX, type Listener } from '../../src/main/listener/server';
import type { Logger } from '../../src/main/logger';
import { contractCall, contractRefusal, MemorySecretStore } from './app-core';
import { testLedger, type ManualClock } from './ledger';
import { tempDir } from './temp-dir';

/** A request the scripted gateway received: its path under /api/v2 and its JSON body. */
export interface GatewayRequest {
  path: string;
  body: unknown;
}

/** What the gateway answers a request: a JSON body (status 200), or an answer of its own. */
export type GatewayAnswer = unknown | ((request: GatewayRequest) => { status: number; body: unknown });

/**
 * The gateway a service talks to, answering from a script instead of over the network: `answer`
 * sets what a path answers (every time, until set again); a request to a path with no answer fails
 * as a connection would, naming the path.
 */
export class ScriptedGateway {
  readonly requests: GatewayRequest[] = [];
  private readonly answers = new Map<string, GatewayAnswer>();
  /** The local profile's gateway, as the services know it (the merchant the ledger's local profile names). */
  readonly local: LocalGateway = {
    baseUrl: 'http://127.0.0.1:9/api/v2',
    adminUrl: 'http://127.0.0.1:9/admin',
    hostedUrl: 'http://127.0.0.1:9/hosted',
    merchant: { merchant_id: 'm-1', merchant_site_id: 's-1', merchant_token: 'scripted-merchant-token' },
    registerKey: async () => {},
    close: async () => {},
  };

  answer(path: string, answer: GatewayAnswer): void {
    this.answers.set(path, answer);
  }

  readonly fetch: typeof fetch = async (input, init) => {
    const request = input instanceof Request ? input : new Request(input, init);
    const path = new URL(request.url).pathname.replace(/^\/api\/v2/, '');
    const text = await request.text();
    const received = { path, body: text ? (JSON.parse(text) as unknown) : undefined };
    this.requests.push(received);
    if (!this.answers.has(path)) throw new TypeError(`fetch failed: the scripted gateway has no answer for ${path}`);
    const answer = this.answers.get(path);
    const { status, body } = typeof answer === 'function' ? (answer as (r: GatewayRequest) => { status: number; body: unknown })(received) : { status: 200, body: answer };
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  };
}

/** The listener the services' notification links name: an address on loopback no one listens on (the discard port). */
const UNBOUND_LISTENER: Listener = {
  host: '127.0.0.1',
  port: 9,
  url: (pathSecret) => `http://127.0.0.1:9${LISTENER_PATH_PREFIX}${pathSecret}`,
  stats: () => ({ stored: 0, batches: 0, queued: 0 }),
  refreshProfiles: () => {},
  close: async () => {},
};

export interface ServiceHarness {
  /** Every service, wired as the core wires them (nothing started). */
  services: CoreServices;
  repos: Repositories;
  clock: ManualClock;
  /** The ledger's local profile. */
  profile: Profile;
  gateway: ScriptedGateway;
  /** What the services logged (warnings and errors, with the error's message): a test that fails unexpectedly says why here. */
  logged: string[];
  /** A contract call through the dispatcher (input validated, answer held to its output schema); a refusal thrown. */
  call<C extends InvokeChannel>(channel: C, input?: InvokeInput<C>): Promise<InvokeOutput<C>>;
  /** The error body of a call that must be refused. */
  failure(channel: InvokeChannel, input?: unknown): Promise<ContractErrorBody>;
  /** Every push on `channel` so far, oldest first. */
  pushesOf<P extends PushChannel>(channel: P): PushPayload<P>[];
  /** Repositories whose clock says `now`: rows written as if at another instant. */
  reposAt(now: () => Date): Repositories;
  /** The services wired again on the same ledger, as a restarted app has them (the pushes recorded go on). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** `more`: core options on top (verification timings, batch concurrency…). */
export async function serviceHarness(more: Partial<CoreOptions> = {}): Promise<ServiceHarness> {
  const ledger = await testLedger();
  const temp = tempDir('paydesk-service-');
  const gateway = new ScriptedGateway();
  const pushes: { channel: PushChannel; payload: unknown }[] = [];
  const logged: string[] = [];
  const log: Logger = {
    info: () => {},
    warn: (message) => logged.push(`warn ${message}`),
    error: (message, error) => logged.push(`error ${message}${error instanceof Error ? `: ${error.message}` : ''}`),
  };
  const options: CoreOptions = {
    mode: 'web',
    version: 'test',
    dataDir: temp.dir,
    secrets: new MemorySecretStore(),
    log,
    now: ledger.clock.now,
    localGateway: gateway.local,
    gateway: { timeoutMs: 2_000, runner: { policy: { maxTries: 1, maxTotalMs: 2_000, baseDelayMs: 10, factor: 2, maxDelayMs: 10 } }, fetch: gateway.fetch },
    ...more,
  };
  const wire = async () => {
    const services = wireServices(ledger.db, 'service-test', options, postgresMigrations.at(-1)?.version ?? 0);
    services.events.subscribe((channel, payload) => pushes.push({ channel, payload }));
    // Notification links name an address no one listens on: a service test hands notifications to the services itself.
    await services.listener.open(async () => UNBOUND_LISTENER);
    return services;
  };
  const harness: ServiceHarness = {
    services: await wire(),
    get repos() {
      return harness.services.repos;
    },
    clock: ledger.clock,
    profile: ledger.profile,
    gateway,
    logged,
    call: (channel, input) => contractCall(harness.services, channel, input),
    failure: (channel, input) => contractRefusal(harness.services, channel, input),
    pushesOf: <P extends PushChannel>(channel: P) => pushes.filter((p) => p.channel === channel).map((p) => p.payload as PushPayload<P>),
    reposAt: (now) => createRepositories(ledger.db, now),
    async restart() {
      harness.services = await wire();
    },
    async close() {
      await ledger.close();
      temp.cleanup();
    },
  };
  return harness;
}
