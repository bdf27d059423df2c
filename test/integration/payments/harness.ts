// A real Paydesk core for the payments tests: real ledger file, real embedded emulator (fast
// scenario timings), real notification listener, real OS keychain; a short retry policy (3 tries,
// 50-200 ms apart) so an exhausted attempt costs little.
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import keytar from 'keytar';
import { invokeContract, type ContractErrorBody, type InvokeChannel, type InvokeInput, type InvokeOutput, type PayinCreateForm, type PayoutCreateForm } from '../../../src/shared/contract';
import { createCore, type Core } from '../../../src/main/core';
import { KeytarSecretStore } from '../../../src/main/platform/keychain';
import type { PayinMethod, PayoutMethod } from '../../../src/shared/spec/methods';
import { silentLogger } from '../../helpers/app-core';
import { tempDir } from '../../helpers/temp-dir';
export { waitFor } from '../../helpers/poll';

export const TEST_PAN = '4111111111111111';
export const CARD_YEAR = String(new Date().getUTCFullYear() + 3);

export interface Harness {
  core: Core;
  dataDir: string;
  call<C extends InvokeChannel>(channel: C, input?: InvokeInput<C>): Promise<InvokeOutput<C>>;
  failure(channel: InvokeChannel, input?: unknown): Promise<ContractErrorBody>;
  restart(): Promise<void>;
  close(): Promise<void>;
  /** Every value any contract call returned, for "never in a response" checks. */
  responses: unknown[];
}

/** timeoutMs: one gateway call's limit (short where a test times calls out on purpose). */
export async function startHarness(options: { timeoutMs?: number } = {}): Promise<Harness> {
  const temp = tempDir('paydesk-payments-');
  const dataDir = path.join(temp.dir, 'data');
  const service = `PaydeskTest-${randomUUID()}`;
  const open = () =>
    createCore({
      mode: 'web',
      version: 'test',
      dataDir,
      secrets: new KeytarSecretStore(service),
      log: silentLogger,
      emulator: { scenarioTiming: { payinCompleteMs: 50, payoutProcessingMs: 50, payoutFinalMs: 100 }, delivery: { firstAttemptDelayMs: 10, firstRetryDelayMs: 100 } },
      gateway: { timeoutMs: options.timeoutMs ?? 5_000, runner: { policy: { maxTries: 3, maxTotalMs: 5_000, baseDelayMs: 50, factor: 2, maxDelayMs: 200 } } },
    });
  const responses: unknown[] = [];
  const harness: Harness = {
    core: await open(),
    dataDir,
    responses,
    async call(channel, input) {
      const envelope = await harness.core.dispatch(channel, input);
      responses.push(envelope);
      if (!envelope.ok) throw Object.assign(new Error(`${channel}: ${envelope.error.message}`), envelope.error);
      // The contract promises this shape to the renderer: hold main to it.
      const checked = invokeContract[channel].output.safeParse(envelope.value);
      if (!checked.success) throw new Error(`${channel} answered outside its output schema: ${JSON.stringify(checked.error.issues.slice(0, 3))}`);
      return envelope.value as InvokeOutput<typeof channel>;
    },
    async failure(channel, input) {
      const envelope = await harness.core.dispatch(channel, input);
      responses.push(envelope);
      if (envelope.ok) throw new Error(`${channel} unexpectedly succeeded`);
      return envelope.error;
    },
    async restart() {
      await harness.core.close();
      harness.core = await open();
    },
    async close() {
      await harness.core.close();
      for (const credential of await keytar.findCredentials(service)) await keytar.deletePassword(service, credential.account);
      temp.cleanup();
    },
  };
  return harness;
}


const contact = { mobile: '+4915112345678', address: 'Hauptstr. 1', city: 'Berlin', zipCode: '10115' };
const identity = { state: 'BE', birthDate: '1990-04-01' };
export const card = { cardNum: TEST_PAN, cardHolder: 'Ana Lima', cardExpireMonth: '12', cardExpireYear: CARD_YEAR };

const METHOD_FIELDS: Record<PayinMethod, object> = {
  credit_card: { ...contact, ...identity, ...card, cardCvv: '123' },
  credit_card_ftd: { ...contact, ...identity, ...card, cardCvv: '123' },
  open_banking: {},
  crypto: {},
  blik: { mobile: contact.mobile },
  googlepay: { ...contact, ...identity },
  applepay: { ...contact, ...identity },
  interac: contact,
};

/** What the pay-in form sends: the spec's fields without merchant ids and notification_link. */
export function customerFields(email = 'ana@example.com') {
  return {
    currency: 'EUR',
    email,
    country: 'DEU',
    device_ip: '203.0.113.7',
    first_name: 'Ana',
    last_name: 'Lima',
    success_url: 'https://shop.example/success',
    pending_url: 'https://shop.example/pending',
    fail_url: 'https://shop.example/fail',
    back_url: 'https://shop.example/back',
  };
}

export function payinForm(method: PayinMethod, opts: { email?: string; amount?: string; requestId?: string; profileId?: string } = {}): PayinCreateForm {
  return {
    ...customerFields(opts.email),
    ...METHOD_FIELDS[method],
    payment_method: method,
    amount: opts.amount ?? (method === 'crypto' ? '0.1234567891' : '10.50'),
    ...(opts.requestId ? { request_id: opts.requestId } : {}),
    ...(opts.profileId ? { profileId: opts.profileId } : {}),
  };
}

export function tokenFormBase(email: string) {
  return { ...customerFields(email), ...contact, ...identity, payment_method: 'credit_card' };
}

const PAYOUT_DETAILS = {
  credit_card: { cardNum: TEST_PAN, cardHolder: 'Ana Lima', cardExpireMonth: '12', cardExpireYear: CARD_YEAR },
  open_banking: { iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', accountHolder: 'Ana Lima' },
  crypto: { walletAddress: '0x52908400098527886E0F7030069857D2E4169EE7', network: 'ethereum' },
  fps: { sortCode: '401276', accountNumber: '12345678', accountHolder: 'Ana Lima' },
};

export function payoutForm(method: PayoutMethod, opts: { email?: string; amount?: string; reference?: string; profileId?: string } = {}): PayoutCreateForm {
  return {
    method,
    amount: opts.amount ?? (method === 'crypto' ? '0.0000000001' : '99.90'),
    currency: method === 'fps' ? 'GBP' : 'EUR',
    country: method === 'fps' ? 'GBR' : 'DEU',
    customer: { firstName: 'Ana', lastName: 'Lima', email: opts.email ?? 'ana@example.com' },
    paymentDetails: PAYOUT_DETAILS[method],
    ...(opts.reference ? { merchantReference: opts.reference } : {}),
    ...(opts.profileId ? { profileId: opts.profileId } : {}),
  };
}

export async function admin<T = Record<string, unknown>>(core: Core, pathname: string, body?: unknown, method = body === undefined ? 'GET' : 'POST'): Promise<{ status: number; body: T }> {
  const response = await fetch(`${core.local.adminUrl}${pathname}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as T };
}

/** Pay-ins the emulator holds (its 100 most recent) with this request_id. */
export async function emulatorPayins(core: Core, requestId?: string): Promise<{ count: number; matching: number }> {
  const { body } = await admin<{ count: number; payins: { request_id: string }[] }>(core, '/payins');
  return { count: body.count, matching: requestId === undefined ? 0 : body.payins.filter((p) => p.request_id === requestId).length };
}

/** Every file under dir whose bytes contain one of the needles, with the needle found. */
export function filesContaining(dir: string, needles: readonly string[]): string[] {
  const hits: string[] = [];
  const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
  for (const entry of files) {
    const file = path.join(entry.parentPath, entry.name);
    const bytes = readFileSync(file);
    for (const needle of needles) if (bytes.includes(needle)) hits.push(`${path.relative(dir, file)}: ${needle}`);
  }
  return hits;
}

export function localProfileId(h: Harness): Promise<string> {
  return h.call('profiles:list').then((profiles) => {
    const local = profiles.find((p) => p.environment === 'local');
    if (!local) throw new Error('no local profile');
    return local.id;
  });
}

/** Every (table, column) of an SQLite file whose value, as text, contains `needle`. */
export function sqliteCellsContaining(file: string, needle: string): string[] {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const hits: string[] = [];
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
    for (const { name } of tables) {
      const columns = db.prepare(`SELECT name FROM pragma_table_info(?)`).all(name) as { name: string }[];
      for (const column of columns) {
        const row = db.prepare(`SELECT count(*) AS n FROM "${name}" WHERE instr(CAST("${column.name}" AS TEXT), ?) > 0`).get(needle) as { n: number };
        if (row.n > 0) hits.push(`${name}.${column.name}`);
      }
    }
    return hits;
  } finally {
    db.close();
  }
}
