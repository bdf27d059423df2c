// Shared test fixtures: an emulator with a fast delivery schedule, a real local receiver for
// notifications, valid request bodies per method, and merchant JWT signing. Every wait is
// bounded in time.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { randomUUID } from 'node:crypto';
import { parseJson } from '../../src/shared/json';
import { startEmulator, type EmulatorHandle, type EmulatorOptions } from '../../src/emulator/index';

/** Tests read answers loosely on purpose: the assertions are the type check. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Loose = Record<string, any>;

export const FAST_DELIVERY = { firstAttemptDelayMs: 20, firstRetryDelayMs: 100, backoffFactor: 2, maxDelayMs: 400, maxAttempts: 5, attemptTimeoutMs: 2_000 };
export const FAST_TIMING = { payinCompleteMs: 50, payoutProcessingMs: 50, payoutFinalMs: 150 };

export function startTestEmulator(opts: EmulatorOptions = {}): Promise<EmulatorHandle> {
  return startEmulator({ quiet: true, delivery: FAST_DELIVERY, scenarioTiming: FAST_TIMING, ...opts });
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

export async function waitFor<T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 5_000, what = 'condition', intervalMs = 20): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

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

/** A valid pay-in body for `method`, with every field that method requires. */
export function payinBody(emu: EmulatorHandle, method: string, notify: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  const m = emu.merchant;
  const base: Record<string, unknown> = {
    merchant_id: m.merchant_id,
    merchant_site_id: m.merchant_site_id,
    payment_method: method,
    amount: method === 'crypto' ? 0.0012345678 : 25.5,
    currency: 'EUR',
    email: 'ana@example.com',
    request_id: uniq('req'),
    country: 'DEU',
    notification_link: notify,
    success_url: 'https://shop.example/success',
    pending_url: 'https://shop.example/pending',
    fail_url: 'https://shop.example/fail',
    back_url: 'https://shop.example/back',
    device_ip: '203.0.113.7',
    first_name: 'Ana',
    last_name: 'Lima',
  };
  const needs = (list: string[]): boolean => list.includes(method);
  if (needs(['credit_card', 'credit_card_ftd', 'interac', 'blik', 'googlepay', 'applepay'])) base.mobile = '+4915112345678';
  if (needs(['credit_card', 'credit_card_ftd', 'interac', 'googlepay', 'applepay'])) Object.assign(base, { address: '1 Main St', city: 'Berlin', zipCode: '10115' });
  if (needs(['credit_card', 'credit_card_ftd', 'googlepay', 'applepay'])) Object.assign(base, { state: 'BE', birthDate: '1990-04-01' });
  if (needs(['credit_card', 'credit_card_ftd'])) {
    Object.assign(base, { cardNum: '4111111111111111', cardHolder: 'Ana Lima', cardExpireMonth: '12', cardExpireYear: String(new Date().getUTCFullYear() + 2), cardCvv: '123' });
  }
  return { ...base, ...over };
}

export function payoutBody(emu: EmulatorHandle, method: string, notify: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  const details: Record<string, Record<string, unknown>> = {
    credit_card: { method, cardNum: '5555555555554444', cardHolder: 'Bo Chen', cardExpireMonth: '01', cardExpireYear: String(new Date().getUTCFullYear() + 3) },
    open_banking: { method, iban: 'GB82WEST12345698765432', bic: 'NWBKGB2L', accountHolder: 'Bo Chen' },
    crypto: { method, walletAddress: '0x52908400098527886E0F7030069857D2E4169EE7', network: 'ethereum' },
    fps: { method, sortCode: '123456', accountNumber: '12345678', accountHolder: 'Bo Chen' },
  };
  return {
    merchant_id: emu.merchant.merchant_id,
    site_id: emu.merchant.merchant_site_id,
    method,
    mode: 'direct',
    amount: method === 'crypto' ? 0.5 : 100.25,
    currency: 'GBP',
    merchantReference: uniq('po'),
    country: 'GBR',
    notificationUrl: notify,
    customer: { firstName: 'Bo', lastName: 'Chen', email: 'bo@example.com', phone: '+447700900123' },
    paymentDetails: details[method],
    ...over,
  };
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
    cardholder_number: '4111111111111111',
    cardholder_name: 'Ana Lima',
    cardholder_exp_month: '11',
    cardholder_exp_year: String(new Date().getUTCFullYear() + 2),
    ...over,
  };
}

/** Pay-in body without card fields, for tokenization / token charge. */
export function cardlessPayinBody(emu: EmulatorHandle, notify: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  const b = payinBody(emu, 'credit_card', notify);
  for (const k of ['cardNum', 'cardHolder', 'cardExpireMonth', 'cardExpireYear', 'cardCvv']) delete b[k];
  return { ...b, ...over };
}

/** Exact JSON number text of a field in a raw response (never through a float). */
export function rawNumber(text: string, field: string): string | undefined {
  const v = (parseJson(text) as Record<string, unknown>)[field];
  return v === undefined ? undefined : typeof v === 'object' && v !== null && 'value' in v ? String((v as { value: string }).value) : String(v);
}
