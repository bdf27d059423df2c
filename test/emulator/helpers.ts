// Shared test fixtures: an emulator with a fast delivery schedule, a real local receiver for
// notifications, valid request bodies per method, and merchant JWT signing. Every wait is
// bounded in time.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import Papa from 'papaparse';
import { afterAll, beforeAll } from 'vitest';
import { randomUUID } from 'node:crypto';
import { parseJson, stringifyJson } from '../../src/shared/json';
import { startEmulator, type Clock, type EmulatorHandle, type EmulatorOptions, type Ids } from '../../src/emulator/index';
import { PAYIN_CARD_FIELDS } from '../../src/shared/spec/field-rules';
import type { PayinMethod, PayoutMethod } from '../../src/shared/spec/methods';
import { found, sleep } from '../helpers/poll';
import { payinBody as fixtureBody, payoutBody as fixturePayoutBody, TEST_CARD } from '../helpers/fixtures';

/** Tests read answers loosely on purpose: the assertions are the type check. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Loose = Record<string, any>;

export const FAST_DELIVERY = { firstAttemptDelayMs: 20, firstRetryDelayMs: 100, backoffFactor: 2, maxDelayMs: 400, maxAttempts: 5, attemptTimeoutMs: 2_000 };
export const FAST_TIMING = { payinCompleteMs: 50, payoutProcessingMs: 50, payoutFinalMs: 150 };

export function startTestEmulator(opts: EmulatorOptions = {}): Promise<EmulatorHandle> {
  return startEmulator({ quiet: true, delivery: FAST_DELIVERY, scenarioTiming: FAST_TIMING, ...opts });
}

/**
 * A test file's emulator (startTestEmulator with `opts`) and notification receiver, started before
 * its tests and closed after; `started` gets them, e.g. `useEmulator((e, r) => ([emu, rc] = [e, r]))`.
 */
export function useEmulator(started: (emu: EmulatorHandle, rc: Receiver) => void, opts: EmulatorOptions = {}): void {
  let emu: EmulatorHandle | undefined;
  let rc: Receiver | undefined;
  beforeAll(async () => {
    emu = await startTestEmulator(opts);
    rc = await new Receiver().start();
    started(emu, rc);
  });
  afterAll(async () => {
    await rc?.close();
    await emu?.close();
  });
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  json: Loose;
}

export async function send(url: string, init: { method?: string; body?: string; headers?: Record<string, string> }): Promise<ApiResponse> {
  const res = await fetch(url, { method: init.method ?? 'POST', body: init.body, headers: init.headers, redirect: 'manual', signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  let json: Loose = {};
  try {
    json = text ? (JSON.parse(text) as Loose) : {};
  } catch {
    /* not JSON (HTML page) */
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** POST to /api/v2 with the merchant's token, JSON content type and (for creates) a fresh key. */
export function api(emu: EmulatorHandle) {
  return (path: string, body: unknown, headers: Record<string, string | undefined> = {}): Promise<ApiResponse> => {
    const h: Record<string, string> = { 'content-type': 'application/json', 'merchant-token': emu.merchant.merchant_token };
    if (/create/.test(path)) h['idempotency-key'] = randomUUID();
    for (const [k, v] of Object.entries(headers)) {
      if (v === undefined) delete h[k];
      else h[k] = v;
    }
    return send(`${emu.baseUrl}${path}`, { body: typeof body === 'string' ? body : JSON.stringify(body), headers: h });
  };
}

export function admin(emu: EmulatorHandle) {
  return (method: string, path: string, body?: unknown): Promise<ApiResponse> =>
    send(`${emu.adminUrl}${path}`, { method, ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}) });
}

/** The first value `probe` finds (not undefined), polled every `intervalMs`; bounded in time (the kit's `found`). */
export function waitFor<T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 5_000, what = 'condition', intervalMs = 20): Promise<T> {
  return found(probe, what, timeoutMs, intervalMs);
}

export { sleep };

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: Loose;
  at: number;
  answered: number;
}

/** A real notification receiver on 127.0.0.1. `answers` is consumed one per request; then 200. */
export class Receiver {
  readonly received: Received[] = [];
  readonly aborted: string[] = [];
  answers: number[] = [];
  private server = http.createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (raw += c));
    req.on('aborted', () => this.aborted.push(raw));
    req.on('end', () => {
      const answered = this.answers.shift() ?? 200;
      let body: Loose = {};
      try {
        body = JSON.parse(raw) as Loose;
      } catch {
        /* keep raw */
      }
      this.received.push({ path: req.url ?? '', headers: req.headers, raw, body, at: Date.now(), answered });
      res.writeHead(answered, { 'content-type': 'text/plain' }).end('ok');
    });
  });

  async start(port = 0): Promise<this> {
    await new Promise<void>((r) => this.server.listen(port, '127.0.0.1', () => r()));
    return this;
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  /** Successful (2xx-answered) notifications for a subject id. */
  delivered(field: 'payin_id' | 'payout_id', id: string, event?: string): Received[] {
    return this.received.filter((r) => r.body[field] === id && r.answered < 300 && (event === undefined || r.body.event === event));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

let seq = 0;
export const uniq = (p: string): string => `${p}-${Date.now().toString(36)}-${++seq}`;

/**
 * A valid pay-in body for `method` (test/helpers/fixtures.ts: the shared samples), sent as raw JSON
 * with the amount a JSON number and a fresh request_id; `over` replaces any field.
 */
export function payinBody(emu: EmulatorHandle, method: string, notify: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  const body = fixtureBody(emu.merchant, method as PayinMethod, uniq('req'), { notify });
  return { ...body, amount: method === 'crypto' ? 0.0012345678 : 25.5, ...over };
}

/** A valid payout body for `method`, as raw JSON (amount a JSON number, a fresh merchantReference); `over` replaces any field. */
export function payoutBody(emu: EmulatorHandle, method: string, notify: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  const body = fixturePayoutBody(emu.merchant, method as PayoutMethod, uniq('po'), { notify });
  return { ...body, amount: method === 'crypto' ? 0.5 : 100.25, ...over };
}

export interface MerchantKey {
  kid: string;
  sign(claims: Record<string, unknown>, header?: Record<string, unknown>): Promise<string>;
}

/** Generates an Ed25519 key pair, registers the public half through the admin API. */
export async function registerMerchantKey(emu: EmulatorHandle, kid = uniq('kid')): Promise<MerchantKey> {
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const res = await admin(emu)('POST', '/keys', { merchant_id: emu.merchant.merchant_id, kid, public_jwk: await exportJWK(publicKey) });
  if (res.status !== 200) throw new Error(`key registration failed: ${res.text}`);
  return {
    kid,
    sign: (claims, header = {}) => new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', kid, ...header }).sign(privateKey),
  };
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

export function tokenizeClaims(emu: EmulatorHandle, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    jti: randomUUID(),
    op: 'tokenize',
    sub: emu.merchant.merchant_id,
    iat: nowSeconds(),
    cardholder_number: TEST_CARD.number,
    cardholder_name: TEST_CARD.name,
    cardholder_exp_month: TEST_CARD.expMonth,
    cardholder_exp_year: TEST_CARD.expYear,
    ...over,
  };
}

/** Pay-in body without card fields, for tokenization / token charge. */
export function cardlessPayinBody(emu: EmulatorHandle, notify: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  const b = payinBody(emu, 'credit_card', notify);
  for (const k of PAYIN_CARD_FIELDS) delete b[k];
  return { ...b, ...over };
}

/** Exact JSON number text of a field in a raw response (never through a float). */
export function rawNumber(text: string, field: string): string | undefined {
  const v = (parseJson(text) as Record<string, unknown>)[field];
  return v === undefined ? undefined : typeof v === 'object' && v !== null && 'value' in v ? String((v as { value: string }).value) : String(v);
}

/** A clock the test moves by hand: success times, settlement periods, booking dates. */
export class ManualClock implements Clock {
  ms: number;
  constructor(start: string) {
    this.ms = Date.parse(start);
  }
  now = (): number => this.ms;
  set(at: string): void {
    this.ms = Date.parse(at);
  }
}

/** Ids that are the same in every run (uuid n ends in n as 12 hex digits), so whole files can be compared. */
export function countingIds(): Ids {
  let n = 0;
  return {
    uuid: () => `00000000-0000-4000-8000-${(++n).toString(16).padStart(12, '0')}`,
    secret: (prefix) => `${prefix}${(++n).toString(16).padStart(24, '0')}`,
  };
}

/** Creates a pay-in and completes it with 200 through the admin API (at the emulator's clock): a successful pay-in. */
export async function succeededPayin(emu: EmulatorHandle, notify: string, over: Record<string, unknown> = {}, method = 'credit_card'): Promise<{ payin_id: string; request_id: string }> {
  const body = payinBody(emu, method, notify, over);
  // Lossless, so an amount given as a LosslessNumber arrives with every digit.
  const created = await api(emu)('/payment/create', stringifyJson(body));
  if (created.status !== 200) throw new Error(`pay-in refused: ${created.text}`);
  const completed = await admin(emu)('POST', `/payins/${created.json.payin_id as string}/complete`, { status_code: 200 });
  if (completed.status !== 200) throw new Error(`pay-in not completed: ${completed.text}`);
  return { payin_id: created.json.payin_id as string, request_id: body.request_id as string };
}

/** A CSV report read back as a spreadsheet would (papaparse): one object per line, keyed by the header. */
export function csvRecords(text: string): Record<string, string>[] {
  const parsed = Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true });
  if (parsed.errors.length > 0) throw new Error(`not valid CSV: ${JSON.stringify(parsed.errors)}`);
  return parsed.data;
}
