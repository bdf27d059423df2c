// A real Paydesk core for the verification and reconciliation tests: real ledger file, real
// embedded emulator (fast scenario timings), real notification listener, real OS keychain, and
// short verification timings. Pushes are recorded; every contract answer is checked against its
// output schema.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import keytar from 'keytar';
import { invokeContract, type ContractErrorBody, type InvokeChannel, type InvokeInput, type InvokeOutput, type PushChannel, type PushPayload } from '../../../src/shared/contract';
import { createCore, type Core, type CoreOptions } from '../../../src/main/core';
import { createRepositories, type Repositories } from '../../../src/main/ledger/repositories/index';
import { KeytarSecretStore } from '../../../src/main/platform/keychain';
import { silentLogger } from '../../helpers/app-core';
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

export async function startHarness(overrides: Partial<CoreOptions> = {}): Promise<Harness> {
  const temp = tempDir('paydesk-verification-');
  const dataDir = path.join(temp.dir, 'data');
  const service = `PaydeskTest-${randomUUID()}`;
  const open = (more: Partial<CoreOptions> = {}) =>
    createCore({
      mode: 'web',
      version: 'test',
      dataDir,
      secrets: new KeytarSecretStore(service),
      log: silentLogger,
      emulator: { scenarioTiming: { payinCompleteMs: 50, payoutProcessingMs: 50, payoutFinalMs: 100 }, delivery: { firstAttemptDelayMs: 10, firstRetryDelayMs: 100 } },
      gateway: { timeoutMs: 5_000, runner: { policy: { maxTries: 3, maxTotalMs: 5_000, baseDelayMs: 50, factor: 2, maxDelayMs: 200 } } },
      verification: FAST_VERIFICATION,
      ...overrides,
      ...more,
    });
  const pushes: Push[] = [];
  let unsubscribe = () => {};
  const watch = (core: Core) => {
    unsubscribe = core.events.subscribe((channel, payload) => pushes.push({ channel, payload, at: Date.now() }));
  };
  const harness: Harness = {
    core: await open(),
    service,
    pushes,
    async call(channel, input) {
      const envelope = await harness.core.dispatch(channel, input);
      if (!envelope.ok) throw Object.assign(new Error(`${channel}: ${envelope.error.message}`), envelope.error);
      const checked = invokeContract[channel].output.safeParse(envelope.value);
      if (!checked.success) throw new Error(`${channel} answered outside its output schema: ${JSON.stringify(checked.error.issues.slice(0, 3))}`);
      return envelope.value as InvokeOutput<typeof channel>;
    },
    async failure(channel, input) {
      const envelope = await harness.core.dispatch(channel, input);
      if (envelope.ok) throw new Error(`${channel} unexpectedly succeeded`);
      return envelope.error;
    },
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
    async admin(pathname, body, method = body === undefined ? 'GET' : 'POST') {
      const response = await fetch(`${harness.core.local.adminUrl}${pathname}`, {
        method,
        headers: { 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: (await response.json()) as never };
    },
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


const customer = {
  currency: 'EUR',
  country: 'DEU',
  device_ip: '203.0.113.7',
  first_name: 'Ana',
  last_name: 'Lima',
  success_url: 'https://shop.example/success',
  pending_url: 'https://shop.example/pending',
  fail_url: 'https://shop.example/fail',
  back_url: 'https://shop.example/back',
};

/** An open_banking pay-in form (only the unconditional fields); crypto when the amount has more than 2 decimals. */
export function payinForm(opts: { email?: string; amount?: string; requestId?: string; method?: 'open_banking' | 'crypto' | 'credit_card'; currency?: string; card?: { cardNum: string; cardCvv: string } } = {}) {
  const method = opts.method ?? 'open_banking';
  const card =
    method === 'credit_card'
      ? {
          mobile: '+4915112345678',
          address: 'Hauptstr. 1',
          city: 'Berlin',
          zipCode: '10115',
          state: 'BE',
          birthDate: '1990-04-01',
          cardNum: opts.card?.cardNum ?? '4111111111111111',
          cardHolder: 'Ana Lima',
          cardExpireMonth: '12',
          cardExpireYear: String(new Date().getUTCFullYear() + 3),
          cardCvv: opts.card?.cardCvv ?? '123',
        }
      : {};
  return {
    ...customer,
    ...card,
    currency: opts.currency ?? 'EUR',
    email: opts.email ?? 'ana@example.com',
    payment_method: method,
    amount: opts.amount ?? '10.50',
    ...(opts.requestId ? { request_id: opts.requestId } : {}),
  };
}

export function payoutForm(opts: { email?: string; amount?: string; reference?: string } = {}) {
  return {
    method: 'fps',
    amount: opts.amount ?? '25.00',
    currency: 'GBP',
    country: 'GBR',
    customer: { firstName: 'Ana', lastName: 'Lima', email: opts.email ?? 'ana@example.com' },
    paymentDetails: { sortCode: '401276', accountNumber: '12345678', accountHolder: 'Ana Lima' },
    ...(opts.reference ? { merchantReference: opts.reference } : {}),
  };
}

/** A v2_payin_notification body like the emulator's, for forging one. */
export function payinClaim(payinId: string, requestId: string, statusCode: number | string, extra: Record<string, unknown> = {}): string {
  return `{"event":"v2_payin_notification","status":"success","status_code":${JSON.stringify(statusCode)},"reason_code":null,"request_id":${JSON.stringify(requestId)},"payin_id":${JSON.stringify(payinId)},"amount":${String(extra.amount ?? '10.50')},"currency":${JSON.stringify(extra.currency ?? 'EUR')},"payment_method":"open_banking","updated_at":"2026-03-01T10:00:01.000Z"}`;
}

export const unique = (label: string) => `${label}-${randomUUID().slice(0, 8)}`;
