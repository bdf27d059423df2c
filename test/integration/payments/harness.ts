// A real Paydesk core for the payments tests: real ledger (this run's engine), real embedded emulator (fast
// scenario timings), real notification listener, real OS keychain; a short retry policy (3 tries,
// 50-200 ms apart) so an exhausted attempt costs little.
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import keytar from 'keytar';
import type { ContractErrorBody, InvokeChannel, InvokeInput, InvokeOutput, PushChannel, PushPayload } from '../../../src/shared/contract';
import { createCore, type Core } from '../../../src/main/core';
import type { Sql } from '../../../src/main/ledger/engine/types';
import { KeytarSecretStore } from '../../../src/main/platform/keychain';
import { contractCall, contractRefusal, emulatorAdmin, SHORT_RETRIES, testCoreOptions } from '../../helpers/app-core';
import { cardlessPayinForm } from '../../helpers/fixtures';
import { openReader } from '../../helpers/ledger';
import { tempDir } from '../../helpers/temp-dir';
export { waitFor } from '../../helpers/poll';

export { card, CARD_YEAR, payinForm, payoutForm, TEST_PAN } from '../../helpers/fixtures';

/** What a core pushes on one channel from now on, until stop(). */
export function pushesOn<P extends PushChannel>(core: Core, channel: P): { seen: PushPayload<P>[]; stop: () => void } {
  const seen: PushPayload<P>[] = [];
  const stop = core.events.subscribe((pushed: PushChannel, payload: unknown) => {
    if (pushed === channel) seen.push(payload as PushPayload<P>);
  });
  return { seen, stop };
}

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

export interface HarnessOptions {
  /** One gateway call's limit (short where a test times calls out on purpose). */
  timeoutMs?: number;
  /** The fetch that reaches an https test gateway (test/helpers/test-tls.ts trustingFetch). */
  fetch?: typeof fetch;
  /** Status polling of transactions whose notifications cannot arrive (short in tests). */
  polling?: { delaysMs?: number[]; maxAgeMs?: number };
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const temp = tempDir('paydesk-payments-');
  const dataDir = path.join(temp.dir, 'data');
  const service = `PaydeskTest-${randomUUID()}`;
  const coreOptions = await testCoreOptions(dataDir, {
    secrets: new KeytarSecretStore(service),
    gateway: { timeoutMs: options.timeoutMs ?? 5_000, runner: { policy: SHORT_RETRIES }, ...(options.fetch ? { fetch: options.fetch } : {}) },
    ...(options.polling ? { verification: { polling: options.polling } } : {}),
  });
  const open = () => createCore(coreOptions);
  const responses: unknown[] = [];
  const harness: Harness = {
    core: await open(),
    dataDir,
    responses,
    call: (channel, input) => contractCall(harness.core, channel, input, responses),
    failure: (channel, input) => contractRefusal(harness.core, channel, input, responses),
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

/** The customer part of a tokenize or token charge form: a card pay-in without its card. */
export const tokenFormBase = (email: string) => cardlessPayinForm({ email });

/** The embedded emulator's admin API. */
export const admin = emulatorAdmin;

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

/** A profile of `environment` on the gateway at `baseUrl`, with that merchant's ids and token, as a person sets one up in Settings. */
export async function gatewayProfile(h: Pick<Harness, 'call'>, name: string, environment: 'sandbox' | 'live', baseUrl: string, merchant: { merchant_id: string; merchant_site_id: string; merchant_token: string }) {
  const profile = await h.call('profiles:create', { name, environment, baseUrl, merchantId: merchant.merchant_id, merchantSiteId: merchant.merchant_site_id });
  await h.call('credentials:set-merchant-token', { profileId: profile.id, token: merchant.merchant_token });
  return profile;
}

export function localProfileId(h: Harness): Promise<string> {
  return h.call('profiles:list').then((profiles) => {
    const local = profiles.find((p) => p.environment === 'local');
    if (!local) throw new Error('no local profile');
    return local.id;
  });
}

/**
 * Every (table, column) of a database whose value, as text (bytes, for a PostgreSQL BYTEA;
 * byte-wise, whatever the column's collation), contains `needle`: the SQLite or PostgreSQL ledger, or an SQLite file opened with openReader.
 */
/**
 * The columns (table.column) holding `needle` in some row. With `whole`, only where it stands alone
 * (no letter or digit either side): a 4-digit CVV is found bare, not by chance inside a hex hash or
 * a UUID, which hold any short run of digits sooner or later.
 */
export async function cellsContaining(db: Sql, needle: string, options: { whole?: boolean } = {}): Promise<string[]> {
  const columns =
    db.engine === 'sqlite'
      ? await db.all<{ table_name: string; column_name: string; data_type: string }>(
          "SELECT m.name AS table_name, c.name AS column_name, c.type AS data_type FROM sqlite_master m, pragma_table_info(m.name) c WHERE m.type = 'table'",
        )
      : await db.all<{ table_name: string; column_name: string; data_type: string }>(
          "SELECT c.table_name, c.column_name, c.data_type FROM information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name) WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'",
        );
  const alone = new RegExp(`(?<![0-9A-Za-z])${needle.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![0-9A-Za-z])`);
  const hits: string[] = [];
  for (const { table_name: table, column_name: column, data_type: type } of columns) {
    const text = db.engine === 'sqlite' ? `CAST("${column}" AS TEXT)` : type === 'bytea' ? `encode("${column}", 'escape')` : `"${column}"::text COLLATE "C"`;
    const contains = db.engine === 'sqlite' ? `instr(${text}, ?) > 0` : type === 'bytea' ? `position(convert_to(?, 'UTF8') in "${column}") > 0` : `strpos(${text}, ?) > 0`;
    const found = await db.all<{ cell: string }>(`SELECT ${text} AS cell FROM "${table}" WHERE ${contains}`, [needle]);
    if (found.some(({ cell }) => !options.whole || alone.test(String(cell)))) hits.push(`${table}.${column}`);
  }
  return hits;
}

/** cellsContaining for an SQLite file (the emulator's), read through a connection of its own. */
export async function sqliteFileCellsContaining(file: string, needle: string, options: { whole?: boolean } = {}): Promise<string[]> {
  const reader = await openReader({ file });
  try {
    return await cellsContaining(reader, needle, options);
  } finally {
    await reader.close();
  }
}
