// Secrets and card data. A full scenario runs through the contract with sentinel
// values: a fresh Luhn-valid card number, a CVV, a merchant-token (a sandbox profile that really
// calls a gateway with it) and an imported Ed25519 private key: card pay-ins, tokenization and a
// token charge, a card payout, a card attempt left unknown and resumed after a restart with the
// card entered again, the JWT tools, a card number typed into the wrong field, refused inputs.
// Then every file of the data directory (ledger, its WAL and shared memory, the embedded
// emulator's state, the core's and the emulator's logs), every contract response and every push
// of the run, and every stored view read back through the contract are scanned for the sentinels.
// The card number may appear only as first 6 / last 4; the secrets must be in the keychain only.
// (Browser storage after an end-to-end run: renderer-storage.e2e.test.ts.)
import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import keytar from 'keytar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '../../src/emulator/index';
import type { Logger as EmulatorLogger } from '../../src/emulator/index';
import { createCore, type Core, type CoreOptions } from '../../src/main/core';
import type { Sql } from '../../src/main/ledger/engine/types';
import type { Logger } from '../../src/main/logger';
import { KeytarSecretStore } from '../../src/main/platform/keychain';
import type { Envelope, SubmitResult } from '../../src/shared/contract';
import { openReader, testDatabaseFor } from '../helpers/ledger';
import { tempDir } from '../helpers/temp-dir';
import * as kit from '../helpers/calls';
import { waitFor } from '../helpers/poll';
import { payinItem, payoutItem, tokenizeItem } from '../reliability/helpers/plan';
import { leaksIn, leaksInDir, leaksInLedger, makeSentinels, type Sentinels } from './helpers/sentinels';

const S: Sentinels = makeSentinels();
const temp = tempDir('paydesk-secrets-');
const dataDir = path.join(temp.dir, 'data');
const service = `PaydeskSecrets-${randomUUID()}`;
const responses: string[] = [];
const pushes: string[] = [];
let core: Core;
let gateway: EmulatorHandle;
let localId = '';
let sandboxId = '';

const fileLogger = (file: string): Logger => ({
  info: (m) => appendFileSync(file, `info ${m}\n`),
  warn: (m) => appendFileSync(file, `warn ${m}\n`),
  error: (m, e) => appendFileSync(file, `error ${m} ${e instanceof Error ? (e.stack ?? e.message) : String(e ?? '')}\n`),
});
const emulatorLogger = (file: string): EmulatorLogger => ({
  info: (m, f) => appendFileSync(file, `info ${m} ${JSON.stringify(f ?? {})}\n`),
  warn: (m, f) => appendFileSync(file, `warn ${m} ${JSON.stringify(f ?? {})}\n`),
  error: (m, f) => appendFileSync(file, `error ${m} ${JSON.stringify(f ?? {})}\n`),
});

async function open(): Promise<Core> {
  mkdirSync(dataDir, { recursive: true });
  const options: CoreOptions = {
    mode: 'web',
    version: 'secrets-test',
    dataDir,
    database: await testDatabaseFor(dataDir),
    secrets: new KeytarSecretStore(service),
    // The logs go into the data directory so the scan covers them.
    log: fileLogger(path.join(dataDir, 'paydesk.log')),
    emulator: {
      quiet: false,
      logger: emulatorLogger(path.join(dataDir, 'emulator.log')),
      scenarioTiming: { payinCompleteMs: 50, payoutProcessingMs: 50, payoutFinalMs: 100 },
      delivery: { firstAttemptDelayMs: 10, firstRetryDelayMs: 100 },
    },
    gateway: { timeoutMs: 3_000, runner: { policy: { maxTries: 2, maxTotalMs: 2_000, baseDelayMs: 20, factor: 2, maxDelayMs: 50 } } },
  };
  const opened = await createCore(options);
  opened.events.subscribe((channel, payload) => pushes.push(`${channel} ${JSON.stringify(payload)}`));
  return opened;
}

/** Every leak in the data directory's files, and in every value of the ledger (read through its engine, so on PostgreSQL too). */
async function leaksAtRest(ledger: Sql): Promise<string[]> {
  return [...leaksInDir(dataDir, S), ...(await leaksInLedger(ledger, S))];
}

/** A call through the core; every answer goes into `responses`, which the leak checks read. */
async function call<T>(channel: string, input?: unknown): Promise<Envelope<T>> {
  const envelope = await kit.call<T>(core, channel, input);
  responses.push(`${channel} ${JSON.stringify(envelope)}`);
  return envelope;
}

const must = async <T = unknown>(channel: string, input?: unknown): Promise<T> => kit.valueOf(channel, await call<T>(channel, input));

const withCard = <T extends object>(form: T, extra: Record<string, unknown> = {}) => ({ ...form, cardNum: S.pan, cardCvv: S.cvv, ...extra });
const email = (tag: string) => `payer+s${tag}@example.com`;

beforeAll(async () => {
  // The sandbox profile's gateway: an emulator whose merchant-token is the sentinel (state outside the data directory).
  gateway = await startEmulator({ quiet: true, dataFile: path.join(temp.dir, 'sandbox-gateway.sqlite'), merchant: { merchant_token: S.merchantToken }, scenarioTiming: { payinCompleteMs: 50 }, delivery: { firstAttemptDelayMs: 10, firstRetryDelayMs: 100 } });
  core = await open();
  localId = (await must<{ id: string; environment: string }[]>('profiles:list')).find((p) => p.environment === 'local')?.id ?? '';

  // Credentials: an imported private key; a sandbox profile whose merchant-token is used for real.
  await must('credentials:import-key', { profileId: localId, privateKey: S.privateKeyPem, kid: 'sentinel-kid' });
  sandboxId = (await must<{ id: string }>('profiles:create', { name: 'Sandbox', environment: 'sandbox', baseUrl: `${new URL(gateway.baseUrl).origin}/api/`, merchantId: gateway.merchant.merchant_id, merchantSiteId: gateway.merchant.merchant_site_id })).id;
  await must('credentials:set-merchant-token', { profileId: sandboxId, token: S.merchantToken });

  // Card pay-ins (local and sandbox), a tokenization and a charge with the CVV, a card payout.
  const local = await must<SubmitResult>('payins:create', withCard(payinItem('sec-card-1', 1, 'credit_card', '200').form, { email: email('200') }));
  expect(local.outcome).toBe('succeeded');
  const sandbox = await must<SubmitResult>('payins:create', withCard(payinItem('sec-card-2', 2, 'credit_card_ftd', '200').form, { email: email('200'), profileId: sandboxId }));
  expect(sandbox.outcome).toBe('succeeded');
  const tokenized = await must<SubmitResult>('tokens:tokenize', { ...tokenizeItem('sec-tok-1', 3, '200').form, cardNum: S.pan });
  expect(tokenized.outcome).toBe('succeeded');
  const [token] = await waitFor(() => must<{ id: number; maskedPan: string | null }[]>('tokens:list', { profileId: localId }), (list) => list.length > 0, 'the vaulted token', 15_000, 50);
  expect(token?.maskedPan).toBe(S.maskedPan);
  const { cardNum: _n, cardHolder: _h, cardExpireMonth: _m, cardExpireYear: _y, cardCvv: _c, ...chargeBase } = payinItem('sec-charge-1', 4, 'credit_card', '200').form;
  const charge = await must<SubmitResult>('tokens:charge', { ...chargeBase, email: email('200'), tokenId: token?.id, cardCvv: S.cvv });
  expect(charge.outcome).toBe('succeeded');
  const payout = await must<SubmitResult>('payouts:create', { ...payoutItem('sec-payout-1', 5, 'credit_card', null).form, paymentDetails: { ...payoutItem('x', 5, 'credit_card', null).form.paymentDetails, cardNum: S.pan } });
  expect(payout.outcome).toBe('succeeded');

  // A card number typed into the wrong field still goes out (it is the user's text), but is never kept whole.
  const misplaced = await must<SubmitResult>('payins:create', { ...payinItem('sec-misplaced', 6, 'open_banking', null).form, address: S.pan, first_name: `Ana ${S.pan}` });
  expect(misplaced.outcome).toBe('succeeded');

  // Refusals: a card number one digit off (fails Luhn), a CVV of the wrong length.
  const offByOne = `${S.pan.slice(0, -1)}${(Number(S.pan.at(-1)) + 1) % 10}`;
  expect(await call('payins:create', withCard(payinItem('sec-bad-1', 7, 'credit_card', null).form, { cardNum: offByOne }))).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
  expect(await call('payins:create', withCard(payinItem('sec-bad-2', 8, 'credit_card', null).form, { cardCvv: `${S.cvv}9` }))).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
  expect(await call('search:lookup', { query: S.pan })).toMatchObject({ ok: true });

  // The JWT tools: a tokenize JWT is withheld, a decoded one is masked.
  const signed = await must<{ jwt: string | null }>('jwt:sign', { op: 'tokenize', profileId: localId, cardNum: S.pan, cardHolder: 'Ana Lima', cardExpireMonth: '12', cardExpireYear: String(new Date().getUTCFullYear() + 2) });
  expect(signed.jwt).toBeNull();
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  await must('jwt:decode', { profileId: localId, jwt: `${b64({ alg: 'EdDSA', kid: 'sentinel-kid' })}.${b64({ op: 'tokenize', cardholder_number: S.pan, cardCvv: S.cvv, iat: 1 })}.c2ln` });

  // A card attempt whose outcome is unknown (the gateway fails every try), resumed after a restart with the card entered again.
  await fetch(`${core.local.adminUrl}/faults`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api: { create_errors: 10 } }) });
  const unknown = await must<SubmitResult>('payins:create', withCard(payinItem('sec-unknown', 9, 'credit_card', '200').form, { email: email('200') }));
  expect(unknown.outcome).toBe('unknown');
  await core.close();
  core = await open(); // a restart: the emulator's faults are gone, the card data was never stored
  const needs = await must<SubmitResult>('attempts:resume', { key: unknown.attempt.idempotencyKey });
  expect(needs.outcome).toBe('needs_body');
  const resumed = await must<SubmitResult>('attempts:resume', { key: unknown.attempt.idempotencyKey, cardNum: S.pan, cardCvv: S.cvv });
  expect(resumed.outcome).toBe('succeeded');

  // Let the notifications arrive and be verified, then read every stored view back.
  await waitFor(
    () => must<{ items: { final: boolean; verification: string }[] }>('payins:list', {}),
    (page) => page.items.filter((p) => p.final && p.verification === 'verified').length >= 4,
    'the card pay-ins to be final and verified',
    15_000,
    50,
  );
  for (const subject of ['payins', 'payouts'] as const) {
    const page = await must<{ items: { id: number }[] }>(`${subject}:list`, { limit: 500 });
    for (const { id } of page.items) {
      await must(`${subject}:get`, { id });
      await must(`${subject}:timeline`, { id });
      await must('attempts:list', { subject: subject === 'payins' ? 'payin' : 'payout', id });
      await must('evidence:export', { subject: subject === 'payins' ? 'payin' : 'payout', id });
    }
  }
  await must('notifications:list', { limit: 500 });
  await must('tokens:list', {});
  await must('profiles:list');
  await must('app:get-info');
  await must('codes:usage');
  await must('reconciliation:totals', {});
  await must('payins:export-csv', {});
  await must('payouts:export-csv', {});
  await must('reconciliation:export-csv', { what: 'totals' });
  for (const kind of ['pending_too_long', 'notified_not_verified', 'status_mismatch', 'amount_mismatch', 'orphans', 'duplicates', 'payouts_stuck', 'unknown_attempts']) {
    await must('reconciliation:export-csv', { what: 'exceptions', kind });
  }
  await must('search:lookup', { query: S.pan.slice(0, 6) });
}, 120_000);

afterAll(async () => {
  await core?.close();
  await gateway?.close();
  for (const credential of await keytar.findCredentials(service)) await keytar.deletePassword(service, credential.account);
  temp.cleanup();
});

describe('sentinel secrets and card data after a full run', () => {
  it('the scanner finds each sentinel when it is there (control)', () => {
    const all = `${S.pan} {"cardCvv":"${S.cvv}"} ${S.merchantToken} ${S.privateKeyD} ${S.privateKeyPem}`;
    const found = leaksIn('control', all, S).join('\n');
    for (const what of ['full card number', 'CVV in a field context', 'merchant-token', 'private key (JWK d)', 'private key (PEM line 1)']) expect(found).toContain(what);
    expect(leaksIn('control', `card ${S.maskedPan}`, S)).toEqual([]);
    const halfMasked = `${S.pan.slice(0, 8)}****${S.pan.slice(-4)}`;
    expect(leaksIn('control', `card ${halfMasked}`, S).join()).toContain('more than first 6 / last 4');
  });

  it('kept the secrets in the keychain, where they belong (control)', async () => {
    expect(await keytar.getPassword(service, `${sandboxId}/merchant-token`)).toBe(S.merchantToken);
    expect(await keytar.getPassword(service, `${localId}/jwt-private-key`)).toContain('PRIVATE KEY');
  });

  it('leaves none of them in the ledger or the data directory while the app runs (ledger rows, WAL, shm, emulator state, logs)', async () => {
    expect(await leaksAtRest(core.ledger)).toEqual([]);
  });

  it('leaves none of them in the ledger or the data directory after a clean shutdown (WAL checkpointed)', async () => {
    await core.close();
    const url = await testDatabaseFor(dataDir);
    const reader = await openReader(url ? { url } : { file: path.join(dataDir, 'ledger.sqlite') });
    try {
      expect(await leaksAtRest(reader)).toEqual([]);
    } finally {
      await reader.close();
    }
    core = await open();
  });

  it('the ledger scan reads every table through the engine (control: the masked card number is there)', async () => {
    // The masked number, posing as a secret, is found and named by its table.column.
    const found = await leaksInLedger(core.ledger, { ...S, merchantToken: S.maskedPan });
    expect(found.join('\n')).toMatch(/^ledger \w+\.\w+: merchant-token$/m);
  });

  it('returned none of them in any contract response, and pushed none to the renderer', () => {
    expect(responses.length).toBeGreaterThan(30);
    expect(leaksIn('contract responses', responses.join('\n'), S)).toEqual([]);
    expect(pushes.length).toBeGreaterThan(10);
    expect(leaksIn('pushes', pushes.join('\n'), S)).toEqual([]);
    // What the renderer does see: the masked number (control: the card really went through).
    expect(responses.join('\n')).toContain(S.maskedPan);
  });
});
