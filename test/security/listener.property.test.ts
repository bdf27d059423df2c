// The notification listener (src/main/listener/) is an unauthenticated HTTP
// endpoint. Property, over real HTTP on 127.0.0.1: whatever the method, path, headers and body
// (well-formed notifications, broken ones, arbitrary JSON, raw bytes, oversized, chunked), the
// answer is a documented 2xx/4xx (never 5xx: 503 is reserved for a failed ledger write), a request
// to a profile's path is stored (the malformed ones as 'malformed') before it is answered, nothing
// is stored for anything else, and the listener still answers a valid notification afterwards.
// Raw garbage on the TCP socket gets a 400 or a closed connection, never a crash.
import fc from 'fast-check';
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payinNotification, post } from '../helpers/http';
import { listenerFixture, type ListenerFixture } from '../helpers/listener';
import { checkParams, hostileValue, show } from './helpers/arbitraries';

const LIMITS = { maxBodyBytes: 4 * 1024, hardBodyCapBytes: 64 * 1024, headersTimeoutMs: 2_000, requestTimeoutMs: 4_000, timeoutCheckIntervalMs: 250 };
const DOCUMENTED = new Set([200, 400, 404, 405, 413, 415]);
let fx: ListenerFixture;

beforeAll(async () => {
  fx = await listenerFixture(LIMITS);
});

afterAll(async () => {
  await fx.close();
});

interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
  chunked: boolean;
}

function send(req: Sent): Promise<{ status: number; body: string }> {
  const url = new URL(fx.url);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...req.headers };
    // Framed either way: Node chunks a GET, DELETE or OPTIONS body only when told to, and an unframed
    // body would reach the server as a second, garbage request (a 400 racing the 405).
    if (req.chunked) headers['transfer-encoding'] = 'chunked';
    else headers['content-length'] = String(req.body.length);
    const r = http.request({ host: '127.0.0.1', port: url.port, path: req.path, method: req.method, headers, agent: false, timeout: 10_000 });
    r.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      res.on('error', reject);
    });
    r.on('timeout', () => r.destroy(new Error('no answer within 10 s')));
    r.on('error', reject);
    if (req.chunked && req.body.length > 0) {
      const half = Math.floor(req.body.length / 2);
      r.write(req.body.subarray(0, half));
      r.end(req.body.subarray(half));
    } else r.end(req.body);
  });
}

const notificationFields = fc.dictionary(
  fc.constantFrom('event', 'payin_id', 'payout_id', 'request_id', 'merchantReference', 'status_code', 'status', 'amount', 'currency', 'token', 'card', '__proto__'),
  hostileValue().map((v) => (typeof v === 'bigint' ? String(v) : v)),
);

function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return '"unserialisable"';
  }
}

/** JSON at the edges of what the intake expects: every one of them is also sent once, deterministically, below. */
const EDGE_BODIES = [
  'null',
  '[]',
  '{}',
  '"text"',
  '0',
  '-1e400',
  'true',
  '{"event":null}',
  '{"event":"v2_payin_notification"}',
  '{"event":"v2_payin_notification","payin_id":null,"request_id":[],"status_code":{}}',
  '{"event":"v2_payout_notification","payout_id":{},"status_code":"P200"}',
  '{"event":"v2_tokenization_notification","payin_id":"p","status_code":200,"token":7,"card":"x"}',
  '{"__proto__":{"event":"v2_payin_notification"}}',
  '\ufeff{}',
  '{"a":1,"a":2}',
  `{"event":"v2_payin_notification","payin_id":"p-big","status_code":${'9'.repeat(400)}}`,
];

const body = fc.oneof(
  fc.constant(Buffer.from(payinNotification('p-valid'))),
  fc.constantFrom(...EDGE_BODIES).map((text) => Buffer.from(text)),
  notificationFields.map((fields) => Buffer.from(jsonText({ event: 'v2_payin_notification', payin_id: 'p-x', status_code: 200, ...fields }))),
  fc.jsonValue({ maxDepth: 5 }).map((v) => Buffer.from(JSON.stringify(v))),
  fc.uint8Array({ maxLength: 2_048 }).map((bytes) => Buffer.from(bytes)),
  fc.string({ unit: 'binary', maxLength: 500 }).map((text) => Buffer.from(text, 'utf8')),
  fc.integer({ min: LIMITS.maxBodyBytes + 1, max: LIMITS.hardBodyCapBytes * 2 }).map((size) => Buffer.alloc(size, 0x7b)),
  fc.constant(Buffer.alloc(0)),
);

const contentType = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8', 'application/cloudevents+json') },
  { weight: 2, arbitrary: fc.constantFrom('application/json; charset=latin1', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', '') },
  { weight: 1, arbitrary: fc.stringMatching(/^[\x20-\x7e]{0,60}$/) },
);

const extraHeaders = fc.dictionary(fc.stringMatching(/^x-[a-z0-9-]{1,20}$/), fc.stringMatching(/^[\x21-\x7e][\x20-\x7e]{0,80}$/), { maxKeys: 5 });

describe('notification listener under hostile requests', () => {
  it('answers every edge-case JSON body with a documented status and stores it', async () => {
    for (const text of EDGE_BODIES) {
      for (const type of ['application/json', 'application/json; charset=utf-8']) {
        const before = await fx.rowCount();
        const reply = await send({ method: 'POST', path: new URL(fx.url).pathname, headers: { 'content-type': type }, body: Buffer.from(text), chunked: false });
        expect(DOCUMENTED.has(reply.status), `${text} → ${reply.status} ${reply.body}`).toBe(true);
        expect(await fx.rowCount(), text).toBe(before + 1);
      }
    }
  });

  it('answers every request with a documented status, stores exactly the requests to a profile path, and keeps answering', async () => {
    const secret = fx.ledger.profile.listenerPathSecret;
    const path = fc.oneof(
      { weight: 6, arbitrary: fc.constant(`/n/${secret}`) },
      { weight: 1, arbitrary: fc.constantFrom(`/n/${secret}?x=1`, `/n/${secret}/`, `/n/${secret.slice(0, -1)}`, `/N/${secret}`, '/n/', '/', '/n/../n/x', `/n/${'a'.repeat(200)}`) },
      { weight: 1, arbitrary: fc.stringMatching(/^\/[\x21-\x7e]{0,80}$/) },
    );
    const method = fc.oneof({ weight: 6, arbitrary: fc.constant('POST') }, { weight: 1, arbitrary: fc.constantFrom('GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS') });
    await fc.assert(
      fc.asyncProperty(method, path, contentType, extraHeaders, body, fc.boolean(), async (m, p, type, extra, payload, chunked) => {
        const before = await fx.rowCount();
        const headers: Record<string, string> = { ...extra, ...(type === '' ? {} : { 'content-type': type }) };
        const reply = await send({ method: m, path: p, headers, body: payload, chunked });
        const after = await fx.rowCount();
        const what = `${m} ${show(p, 60)} [${show(type, 60)}] ${payload.length} bytes → ${reply.status} ${show(reply.body, 120)}`;
        expect(DOCUMENTED.has(reply.status), what).toBe(true);
        const toProfile = p.split('?')[0] === `/n/${secret}`;
        if (!toProfile) {
          expect(reply.status, what).toBe(404);
          expect(after, what).toBe(before);
          return;
        }
        if (m !== 'POST') {
          expect(reply.status, what).toBe(405);
          expect(after, what).toBe(before);
          return;
        }
        // Stored before answered: the row is on disk (another connection sees it) with the answer given.
        expect(after, what).toBe(before + 1);
        const row = (await fx.reader.get<{ answer_status: number; outcome: string }>('SELECT answer_status, outcome FROM notifications ORDER BY id DESC LIMIT 1'))!;
        expect(row.answer_status, what).toBe(reply.status);
        expect(row.outcome === 'malformed', what).toBe(reply.status !== 200);
        if (payload.length > LIMITS.maxBodyBytes) expect(reply.status, what).toBe(413);
      }),
      checkParams(250),
    );
    const alive = await post(fx.url, payinNotification('p-after-fuzz'));
    expect(alive.status).toBe(200);
  });

  it('answers raw garbage on the socket with 400 or a closed connection, and keeps answering', async () => {
    const port = Number(new URL(fx.url).port);
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.uint8Array({ minLength: 1, maxLength: 4_096 }), fc.string({ minLength: 1, maxLength: 400 }).map((s) => Buffer.from(`${s}\r\n\r\n`))), async (bytes) => {
        const answer = await new Promise<string>((resolve) => {
          const socket = net.connect(port, '127.0.0.1');
          let text = '';
          socket.on('data', (chunk) => (text += chunk.toString('latin1')));
          socket.on('close', () => resolve(text));
          socket.on('error', () => resolve(text));
          socket.setTimeout(3_000, () => socket.destroy());
          socket.end(Buffer.from(bytes));
        });
        const status = /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1];
        expect(status === undefined || !status.startsWith('5'), show(answer, 200)).toBe(true);
      }),
      checkParams(100),
    );
    expect((await post(fx.url, payinNotification('p-after-garbage'))).status).toBe(200);
  });
});
