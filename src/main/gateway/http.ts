// The HTTP layer: one ky instance per profile (prefixUrl = base URL, merchant-token, JSON). ky's
// own retries are off: retrying a create call is only safe under the AttemptRunner's rules.
// ky is imported on the first call, not at start-up: with the fetch implementation it brings up,
// that costs ~45 ms of CPU, and a session may make no gateway call for a long while.
import type { KyInstance, Options as KyOptions } from 'ky';
import type { CallFailure } from './result';

export interface GatewayHttpConfig {
  /** {base_url}: the V2 API address, ending in /api/v2. */
  baseUrl: string;
  merchantToken: string;
  /** Limit for one call, from sending to the last byte of the answer. */
  timeoutMs?: number;
  /** Larger answers are refused: a real gateway answer is a few hundred bytes. */
  maxResponseBytes?: number;
  /**
   * The fetch that carries the calls; default the platform's. Tests pass one that trusts their own
   * certificate authority, to reach a live (https) test gateway on 127.0.0.1 in-process.
   */
  fetch?: typeof globalThis.fetch;
}

export interface HttpAnswer {
  status: number;
  text: string;
  retryAfter: string | null;
}

export const DEFAULT_TIMEOUT_MS = 20_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;

/** Failures of the connection itself before the request could reach the server. */
const CONNECT_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
};

const OTHER_CODES: Record<string, string> = {
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed while sending',
  UND_ERR_SOCKET: 'connection closed by the server',
  ETIMEDOUT: 'connection timed out',
};

function errorCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && typeof e === 'object' && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]{1,40}$/.test(code)) return code;
  }
  return undefined;
}

/**
 * A network failure described by its error code only. Messages of underlying errors are never
 * copied: they may quote URLs, headers or bodies, and so the merchant-token or card data.
 */
export function networkFailure(error: unknown): Extract<CallFailure, { kind: 'network_error' }> {
  const code = errorCode(error);
  if (code && code in CONNECT_CODES) return { kind: 'network_error', message: `${CONNECT_CODES[code]} (${code})`, connectFailed: true };
  const text = code ? (OTHER_CODES[code] ?? 'network error') : 'network error';
  return { kind: 'network_error', message: code ? `${text} (${code})` : text, connectFailed: false };
}

async function readLimited(response: Response, maxBytes: number): Promise<string | undefined> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export class GatewayHttp {
  private readonly options: KyOptions;
  private api: Promise<KyInstance> | null = null;
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;

  constructor(config: GatewayHttpConfig) {
    const url = new URL(config.baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError('base URL must be an http(s) address');
    if (config.merchantToken.trim() === '') throw new TypeError('merchant-token is empty');
    this.timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxResponseBytes = config.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.options = {
      prefixUrl: url.href.replace(/\/+$/, ''),
      headers: { 'merchant-token': config.merchantToken, 'content-type': 'application/json', accept: 'application/json' },
      retry: 0,
      // ky's timeout stops at the response headers; ours (below) also covers the body.
      timeout: false,
      throwHttpErrors: false,
      // A redirect would turn the POST into a GET elsewhere; report it instead of following it.
      redirect: 'manual',
      ...(config.fetch ? { fetch: config.fetch } : {}),
    };
  }

  /** ky, loaded on the first call; a failed load is not kept, so the next call tries again. */
  private instance(): Promise<KyInstance> {
    this.api ??= import('ky').then(
      ({ default: ky }) => ky.create(this.options),
      (error: unknown) => {
        this.api = null;
        throw error;
      },
    );
    return this.api;
  }

  /**
   * POSTs the exact body text. Never throws for network or HTTP failures; a failure to load ky
   * (nothing was sent) is thrown, not reported as a network failure that may have reached the gateway.
   */
  async post(path: string, bodyText: string, idempotencyKey?: string): Promise<HttpAnswer | CallFailure> {
    const api = await this.instance();
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.timeoutMs);
    try {
      // The headers key is left out, not set to undefined: ky then drops the instance's headers (merchant-token too).
      const response = await api.post(path, {
        body: bodyText,
        signal: controller.signal,
        ...(idempotencyKey === undefined ? {} : { headers: { 'idempotency-key': idempotencyKey } }),
      });
      const text = await readLimited(response, this.maxResponseBytes);
      if (text === undefined) return { kind: 'unexpected_response', status: response.status, message: `answer larger than ${this.maxResponseBytes} bytes` };
      return { status: response.status, text, retryAfter: response.headers.get('retry-after') };
    } catch (error) {
      if (controller.signal.aborted) return { kind: 'timeout' };
      return networkFailure(error);
    } finally {
      clearTimeout(timer);
    }
  }
}
