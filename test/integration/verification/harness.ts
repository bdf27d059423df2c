// A real Paydesk core for the verification and reconciliation tests: real ledger (this run's engine), real
// embedded emulator (fast scenario timings), real notification listener, real OS keychain, and
// short verification timings. Pushes are recorded; every contract answer is checked against its
// output schema.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import keytar from 'keytar';
import { afterAll, beforeAll } from 'vitest';
import type { ContractErrorBody, InvokeChannel, InvokeInput, InvokeOutput, PushChannel, PushPayload } from '../../../src/shared/contract';
import { createCore, type Core, type CoreOptions } from '../../../src/main/core';
import { createRepositories, type Repositories } from '../../../src/main/ledger/repositories/index';
import { KeytarSecretStore } from '../../../src/main/platform/keychain';
import { contractCall, contractRefusal, emulatorAdmin, SHORT_RETRIES, testCoreOptions } from '../../helpers/app-core';
import { payinForm as fixturePayinForm, payoutForm as fixturePayoutForm } from '../../helpers/fixtures';
import { post, type Reply } from '../../helpers/http';
import { tempDir } from '../../helpers/temp-dir';
export { waitFor } from '../../helpers/poll';

export interface Push {
  channel: PushChannel;
  payload: unknown;
  at: number;
}

export interface Harness {
  core: Core;
  service: string;
  pushes: Push[];
  call<C extends InvokeChannel>(channel: C, input?: InvokeInput<C>): Promise<InvokeOutput<C>>;
  failure(channel: InvokeChannel, input?: unknown): Promise<ContractErrorBody>;
  /** Ledger repositories on the core's connection (to set up states no API call produces). */
  repos(now?: () => Date): Repositories;
  profileId(): Promise<string>;
  notificationUrl(): Promise<string>;
  /** POSTs a body to the profile's notification listener, as the gateway (or a forger) would. */
  notify(body: unknown, headers?: Record<string, string>): Promise<Reply>;
  admin<T = Record<string, unknown>>(pathname: string, body?: unknown, method?: string): Promise<{ status: number; body: T }>;
  pushesOf<P extends PushChannel>(channel: P): PushPayload<P>[];
  restart(overrides?: Partial<CoreOptions>): Promise<void>;
  close(): Promise<void>;
}

export const FAST_VERIFICATION: NonNullable<CoreOptions['verification']> = {
  timings: { recheckDelaysMs: [100, 150, 200], retryDelaysMs: [100, 200], concurrency: 4 },
};

/** One harness for the whole test file, closed after it: `started` receives it and its profile's id. */
export function useHarness(started: (h: Harness, profileId: string) => void, overrides: Partial<CoreOptions> = {}): void {
  let h: Harness | undefined;
  beforeAll(async () => {
    h = await startHarness(overrides);
    started(h, await h.profileId());
  });
  afterAll(async () => {
    await h?.close();
  });
}

export async function startHarness(overrides: Partial<CoreOptions> = {}): Promise<Harness> {
  const temp = tempDir('paydesk-verification-');
  const dataDir = path.join(temp.dir, 'data');
  const service = `PaydeskTest-${randomUUID()}`;
  const coreOptions = await testCoreOptions(dataDir, {
    secrets: new KeytarSecretStore(service),
    gateway: { timeoutMs: 5_000, runner: { policy: SHORT_RETRIES } },
    verification: FAST_VERIFICATION,
    ...overrides,
  });
  const open = (more: Partial<CoreOptions> = {}) => createCore({ ...coreOptions, ...more });
  const pushes: Push[] = [];
  let unsubscribe = () => {};
  const watch = (core: Core) => {
    unsubscribe = core.events.subscribe((channel, payload) => pushes.push({ channel, payload, at: Date.now() }));
  };
  const harness: Harness = {
    core: await open(),
    service,
    pushes,
    call: (channel, input) => contractCall(harness.core, channel, input),
    failure: (channel, input) => contractRefusal(harness.core, channel, input),
    repos: (now) => createRepositories(harness.core.ledger, now),
    async profileId() {
      const local = (await harness.call('profiles:list')).find((p) => p.environment === 'local');
      if (!local) throw new Error('no local profile');
      return local.id;
    },
    async notificationUrl() {
      const local = (await harness.call('profiles:list')).find((p) => p.environment === 'local');
      if (!local) throw new Error('no local profile');
      return local.notificationUrl;
    },
    async notify(body, headers = {}) {
      return post(await harness.notificationUrl(), typeof body === 'string' ? body : JSON.stringify(body), { headers });
    },
    admin: (pathname, body, method) => emulatorAdmin(harness.core, pathname, body, method) as never,
    pushesOf(channel) {
      return pushes.filter((p) => p.channel === channel).map((p) => p.payload) as never;
    },
    async restart(more) {
      unsubscribe();
      await harness.core.close();
      harness.core = await open(more);
      watch(harness.core);
    },
    async close() {
      unsubscribe();
      await harness.core.close();
      for (const credential of await keytar.findCredentials(service)) await keytar.deletePassword(service, credential.account);
      temp.cleanup();
    },
  };
  watch(harness.core);
  return harness;
}


/** A pay-in form (test/helpers/fixtures.ts): open banking unless `method` says otherwise; `currency` and `card` replace the sample's. */
export function payinForm(opts: { email?: string; amount?: string; requestId?: string; method?: 'open_banking' | 'crypto' | 'credit_card'; currency?: string; card?: { cardNum: string; cardCvv: string } } = {}) {
  const { method = 'open_banking', currency, card, ...vary } = opts;
  return { ...fixturePayinForm(method, vary), ...(currency ? { currency } : {}), ...card };
}

/** An fps payout form (test/helpers/fixtures.ts). */
export function payoutForm(opts: { email?: string; amount?: string; reference?: string } = {}) {
  return fixturePayoutForm('fps', { amount: '25.00', ...opts });
}

/** A v2_payin_notification body like the emulator's, for forging one. */
export function payinClaim(payinId: string, requestId: string, statusCode: number | string, extra: Record<string, unknown> = {}): string {
  return `{"event":"v2_payin_notification","status":"success","status_code":${JSON.stringify(statusCode)},"reason_code":null,"request_id":${JSON.stringify(requestId)},"payin_id":${JSON.stringify(payinId)},"amount":${String(extra.amount ?? '10.50')},"currency":${JSON.stringify(extra.currency ?? 'EUR')},"payment_method":"open_banking","updated_at":"2026-03-01T10:00:01.000Z"}`;
}

export const unique = (label: string) => `${label}-${randomUUID().slice(0, 8)}`;
