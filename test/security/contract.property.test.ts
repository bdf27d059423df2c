// Every contract entry, as a compromised renderer could call it. For each invoke
// channel, inputs are drawn from its own schema (right keys, enum members, ids that exist in the
// ledger) with hostile values mixed in at every level, plus anything at all (structured-clone
// exotica included). Property: core.dispatch never throws and always answers an envelope; a
// success fits the channel's output schema; a refusal carries a known error code (never
// 'internal', which would be a crash in a handler), a message, and for 'invalid_input' the
// offending fields; and a refused call wrote nothing (ledger digest: every table's row count,
// the audit head, and a hash of every row). Unknown channels are refused the same way.
import fc from 'fast-check';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../src/main/core';
import type { Logger } from '../../src/main/logger';
import { invokeChannels, invokeContract, type ContractErrorCode, type Envelope, type InvokeChannel } from '../../src/shared/contract';
import { testCore } from '../helpers/app-core';
import { tempDir } from '../helpers/temp-dir';
import * as kit from '../helpers/calls';
import { sleep } from '../helpers/poll';
import { payinItem, payoutItem, tokenizeItem } from '../reliability/helpers/plan';
import { checkParams, hostileValue, prototypePollution, show } from './helpers/arbitraries';
import { ledgerDigest, type LedgerDigest } from './helpers/ledger-digest';
import { fromSchema } from './helpers/schema-arbitrary';

const REFUSALS = new Set<ContractErrorCode>(['invalid_input', 'unknown_channel', 'unavailable', 'conflict', 'not_found']);
const temp = tempDir('paydesk-contract-fuzz-');
let core: Core;
const known: string[] = [];
/** Valid inputs of the entries that change money or credentials; the fuzz breaks one to three fields of them. */
const examples: Partial<Record<InvokeChannel, Record<string, unknown>[]>> = {};
const internalErrors: string[] = [];
/** What main logged as an error: an 'internal' answer's cause, shown with it. */
const loggedErrors: string[] = [];
const recordingLogger: Logger = {
  info: () => {},
  warn: () => {},
  error: (message, error) => {
    loggedErrors.push(`${message}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  },
};
/** channel → outcome ('ok' or the error code) → count: shows the fuzz got past the schemas into the services. */
const outcomes = new Map<string, Map<string, number>>();
const tally = (channel: string, outcome: string) => {
  const counts = outcomes.get(channel) ?? new Map<string, number>();
  counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
  outcomes.set(channel, counts);
};
/** Entries that only read: nothing to wait for after they succeed. */
const READ_ONLY = /:(list|get|get-info|get-listener|timeline|usage|summary|totals|exceptions|sweep-status|export-csv|export|decode|lookup|items|export-public-key|check)$/;

const call = (channel: string, input?: unknown) => kit.call(core, channel, input);
const must = <T>(channel: string, input?: unknown) => kit.must<T>(core, channel, input);

/** Waits until nothing writes the ledger for a while (a sweep or a batch a fuzzed call started in the background). */
async function quiet(): Promise<void> {
  let last = (await ledgerDigest(core.ledger)).content;
  for (let i = 0; i < 200; i++) {
    await sleep(30);
    const now = (await ledgerDigest(core.ledger)).content;
    if (now === last) return;
    last = now;
  }
}

beforeAll(async () => {
  core = await testCore(path.join(temp.dir, 'data'), undefined, recordingLogger);
  const profiles = await must<{ id: string; environment: string }[]>('profiles:list');
  const local = profiles.find((p) => p.environment === 'local') as { id: string };
  await must('credentials:generate-key', { profileId: local.id, kid: 'fuzz-kid' });
  const sandbox = await must<{ id: string }>('profiles:create', {
    name: 'Fuzz sandbox',
    environment: 'sandbox',
    baseUrl: `${new URL(core.local.baseUrl).origin}/api/`,
    merchantId: core.local.merchant.merchant_id,
    merchantSiteId: core.local.merchant.merchant_site_id,
  });
  await must('credentials:set-merchant-token', { profileId: sandbox.id, token: core.local.merchant.merchant_token });
  // A few real transactions that stay where they are (no scenario: no notification, no background work).
  const payin = await must<{ payin: { payinId: string; requestId: string }; attempt: { idempotencyKey: string } }>('payins:create', payinItem('fuzz-in-1', 1, 'open_banking', null).form);
  const card = await must<{ payin: { payinId: string; requestId: string } }>('payins:create', payinItem('fuzz-in-2', 2, 'credit_card', null).form);
  const payout = await must<{ payout: { payoutId: string; merchantReference: string } }>('payouts:create', payoutItem('fuzz-out-1', 3, 'fps', 'P100').form);
  await must('tokens:tokenize', tokenizeItem('fuzz-tok-1', 4, '100').form);
  await quiet();
  const tokens = await must<{ id: number }[]>('tokens:list', { profileId: local.id });
  const pem = (await import('node:crypto')).generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const fresh = () => `fuzz-${Math.random().toString(36).slice(2)}`;
  examples['payins:create'] = [payinItem(fresh(), 5, 'credit_card', null).form, payinItem(fresh(), 6, 'crypto', null).form, { ...payinItem(fresh(), 7, 'blik', null).form, profileId: sandbox.id }];
  examples['tokens:tokenize'] = [tokenizeItem(fresh(), 8, null).form];
  const { cardNum: _n, cardHolder: _h, cardExpireMonth: _m, cardExpireYear: _y, ...chargeBase } = payinItem(fresh(), 9, 'credit_card', null).form;
  examples['tokens:charge'] = tokens.map((t) => ({ ...chargeBase, tokenId: t.id, cardCvv: '123' }));
  if (tokens.length === 0) throw new Error('the seeded tokenization vaulted no token');
  examples['payouts:create'] = [payoutItem(fresh(), 10, 'credit_card', 'P100').form, payoutItem(fresh(), 11, 'open_banking', 'P100').form, { ...payoutItem(fresh(), 12, 'crypto', 'P100').form, profileId: sandbox.id }];
  examples['profiles:create'] = [{ name: 'Fuzz live', environment: 'live', baseUrl: 'https://pay.example/api/v2', merchantId: 'm', merchantSiteId: 's' }];
  // A public URL on loopback (this core's listener, as a proxy in front of it would be): the emulator
  // delivers the notifications of later pay-ins there, never to a host off this machine.
  examples['profiles:update'] = [{ id: sandbox.id, patch: { name: 'Renamed', notificationPublicUrl: `http://127.0.0.1:${core.listener.port}/` } }];
  examples['credentials:import-key'] = [{ profileId: sandbox.id, privateKey: pem, kid: 'fuzz-import' }];
  examples['credentials:set-merchant-token'] = [{ profileId: sandbox.id, token: core.local.merchant.merchant_token }];
  examples['jwt:sign'] = [{ op: 'tokenize', profileId: local.id, cardNum: '4111111111111111', cardHolder: 'Ana Lima', cardExpireMonth: '12', cardExpireYear: String(new Date().getUTCFullYear() + 2) }];
  examples['attempts:resume'] = [{ key: payin.attempt.idempotencyKey }];
  examples['settings:update-listener'] = [{ host: '127.0.0.1', port: 0 }];
  known.push(local.id, sandbox.id, payin.payin.payinId, payin.payin.requestId, payin.attempt.idempotencyKey, card.payin.payinId, payout.payout.payoutId, payout.payout.merchantReference);
  known.push('payin', 'payout', '2026-01-01', '127.0.0.1', 'method,amount,currency\nfps,1.00,GBP\n', 'fuzz-kid', core.local.merchant.merchant_id);
}, 60_000);

afterAll(async () => {
  await core?.close();
  temp.cleanup();
  expect(prototypePollution()).toEqual([]);
});

function checkEnvelope(channel: string, input: unknown, envelope: Envelope<unknown>, before: LedgerDigest, after: LedgerDigest): void {
  const what = `${channel} ← ${show(input, 300)} → ${show(envelope, 300)}`;
  expect(envelope !== null && typeof envelope === 'object' && typeof envelope.ok === 'boolean', what).toBe(true);
  if (envelope.ok) {
    const schema = invokeContract[channel as InvokeChannel]?.output;
    if (schema) expect(schema.safeParse(envelope.value).success, `output outside its schema: ${what}`).toBe(true);
    return;
  }
  const { error } = envelope;
  if (error.code === 'internal') internalErrors.push(`${what}; main logged: ${loggedErrors.slice(-2).join(' | ') || 'nothing'}`);
  expect(REFUSALS.has(error.code), `refused with code ${error.code}: ${what}`).toBe(true);
  expect(typeof error.message === 'string' && error.message.length > 0 && error.message.length < 20_000, what).toBe(true);
  if (error.code === 'invalid_input') {
    expect(error.fields && Object.keys(error.fields).length > 0, `invalid_input without fields: ${what}`).toBe(true);
    for (const [field, problem] of Object.entries(error.fields ?? {})) expect(typeof field === 'string' && typeof problem === 'string' && problem.length > 0, what).toBe(true);
  }
  expect(after, `a refused call wrote to the ledger: ${what}`).toEqual(before);
}

describe('every contract entry under hostile input', () => {
  const plausible = () => fc.oneof(fc.constantFrom(...known), fc.string({ maxLength: 20 }));

  /** A valid input with one to three fields replaced by hostile values or removed (dotted paths reach nested objects). */
  function broken(channel: InvokeChannel): fc.Arbitrary<unknown> | null {
    const valid = examples[channel];
    if (!valid || valid.length === 0) return null;
    const paths = [...new Set(valid.flatMap((example) => Object.entries(example).flatMap(([k, v]) => (v && typeof v === 'object' ? [k, ...Object.keys(v).map((inner) => `${k}.${inner}`)] : [k]))))];
    return fc.tuple(fc.constantFrom(...valid), fc.array(fc.tuple(fc.constantFrom(...paths), fc.option(fc.oneof(hostileValue(), fc.constantFrom(...known)), { nil: undefined })), { minLength: 1, maxLength: 3 })).map(([example, changes]) => {
      const copy: Record<string, unknown> = { ...example };
      for (const [dotted, value] of changes) {
        const [head, inner] = dotted.split('.') as [string, string | undefined];
        if (inner === undefined) copy[head] = value;
        else copy[head] = { ...((copy[head] as object | undefined) ?? {}), [inner]: value };
      }
      return copy;
    });
  }

  for (const channel of invokeChannels) {
    it(`${channel}: never throws, answers an envelope, refuses cleanly and writes nothing when it refuses`, async () => {
      const schema = invokeContract[channel].input;
      await fc.assert(
        fc.asyncProperty(broken(channel) ?? fc.oneof({ weight: 4, arbitrary: fromSchema(schema, plausible()) }, { weight: 1, arbitrary: hostileValue() }), async (input) => {
          const before = await ledgerDigest(core.ledger);
          let envelope: Envelope<unknown>;
          try {
            envelope = await call(channel, input);
          } catch (error) {
            throw new Error(`dispatch threw for ${channel} ← ${show(input)}: ${String(error)}`);
          }
          tally(channel, envelope.ok ? 'ok' : envelope.error.code);
          if (envelope.ok) {
            // A call that succeeded may have started background work (a sweep, a batch): let it settle.
            if (!READ_ONLY.test(channel)) await quiet();
            checkEnvelope(channel, input, envelope, before, before);
            return;
          }
          checkEnvelope(channel, input, envelope, before, await ledgerDigest(core.ledger));
        }),
        checkParams(40),
      );
    }, 120_000);
  }

  it('refuses unknown and hostile channel names without touching anything', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'payins:create ', 'PAYINS:CREATE', 'payins:create\u0000')), hostileValue(), async (channel, input) => {
        if ((invokeChannels as string[]).includes(channel)) return;
        const before = await ledgerDigest(core.ledger);
        const envelope = await call(channel, input);
        expect(envelope, show(channel)).toMatchObject({ ok: false, error: { code: 'unknown_channel' } });
        expect(await ledgerDigest(core.ledger)).toEqual(before);
      }),
      checkParams(100),
    );
  });

  it('never needed the internal-error path (a handler crash) for any input', () => {
    const summary = [...outcomes].map(([channel, counts]) => `${channel} ${[...counts].map(([o, n]) => `${o}:${n}`).join(' ')}`);
    console.log(`contract fuzz outcomes per channel:\n  ${summary.join('\n  ')}`);
    expect(internalErrors).toEqual([]);
  });
});
