import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { notificationLink } from '../../../src/main/listener/links';
import { openLedger } from '../../../src/main/ledger/connection';
import { startListener } from '../../../src/main/listener/server';
import { freshLedger } from '../../helpers/ledger';
import { listenerFixture, type ListenerFixture } from '../../helpers/listener';
import { payinNotification, post } from '../../helpers/http';
import { setDatabaseDefault } from './database-settings';

let fx: ListenerFixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

interface StoredRow {
  id: number;
  profile_id: string;
  body: Buffer;
  body_size: number;
  body_truncated: number;
  raw_headers: string;
  source_address: string;
  received_at: string;
  answer_status: number;
  event: string | null;
  transaction_ref: string | null;
  request_ref: string | null;
  status_code: string | null;
  dedupe_key: string | null;
  outcome: string;
  detail: string | null;
}

const lastRow = (f: ListenerFixture) => f.reader.get<StoredRow>('SELECT * FROM notifications ORDER BY id DESC LIMIT 1');

describe('notification listener: what is stored and how it is answered', () => {
  it('stores a notification with its raw bytes, headers, source and profile before answering 200', async () => {
    fx = await listenerFixture();
    const f = fx;
    const body = payinNotification('p-1', 200);
    let rowsWhenAnswered: Promise<number> | undefined;
    // Counted by another connection the moment the answer's head arrives, before anything else runs.
    const reply = await post(f.url, body, { headers: { 'x-trace': 'abc' }, onResponse: () => (rowsWhenAnswered = f.rowCount()) });
    expect(reply.status).toBe(200);
    expect(await rowsWhenAnswered).toBe(1); // committed (visible to another connection) before the answer left
    const row = await lastRow(f);
    expect(row).toMatchObject({
      profile_id: f.ledger.profile.id,
      answer_status: 200,
      event: 'v2_payin_notification',
      transaction_ref: 'p-1',
      request_ref: 'req-p-1',
      status_code: '200',
      dedupe_key: 'v2_payin_notification|p-1|200',
      outcome: 'pending',
      body_truncated: 0,
      received_at: '2026-03-01T10:00:00.000Z',
    });
    expect(row?.body.toString('utf8')).toBe(body);
    expect(row?.source_address).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(JSON.parse(row?.raw_headers ?? '[]')).toEqual(expect.arrayContaining(['x-trace', 'abc']));
    expect(f.stored).toEqual([row?.id]);
  });

  it('keeps every delivery of the same notification (dedupe is the apply step’s job, on the stored rows)', async () => {
    fx = await listenerFixture();
    const body = payinNotification('p-dup', 302);
    for (let i = 0; i < 3; i++) expect((await post(fx.url, body)).status).toBe(200);
    const keys = await fx.reader.all('SELECT dedupe_key FROM notifications');
    expect(keys).toEqual(Array(3).fill({ dedupe_key: 'v2_payin_notification|p-dup|302' }));
  });

  it.each([
    ['not JSON', '{"event": ', /not JSON/],
    ['not an object', '[1, 2]', /not a JSON object/],
    ['an unknown event', JSON.stringify({ event: 'v9_refund', payin_id: 'p' , status_code: 200 }), /unknown event "v9_refund"/],
    ['no event', JSON.stringify({ payin_id: 'p', status_code: 200 }), /unknown event null/],
    ['no transaction ids', JSON.stringify({ event: 'v2_payout_notification', status_code: 'P200' }), /neither payout_id nor merchantReference/],
    ['no status code', JSON.stringify({ event: 'v2_payin_notification', payin_id: 'p' }), /status_code is missing/],
    // Lists and pushes carry the ids and the reason: neither may be a sender's page of text.
    ['a reference longer than any transaction has', JSON.stringify({ event: 'v2_payin_notification', request_id: 'r'.repeat(256), status_code: 200 }), /^request_id is longer than 255 characters$/],
    ['a status code of a page of text', JSON.stringify({ event: 'v2_payout_notification', payout_id: 'po', status_code: 'C'.repeat(33) }), /^status_code is longer than 32 characters$/],
    // Which value counts is the parser's choice: the emulator refuses such a body, and so does the listener.
    ['a key repeated with another value', '{"event":"v2_payin_notification","payin_id":"p","event":"v2_payout_notification","status_code":200}', /^body repeats a key with another value \(Duplicate key "event"\)$/],
    ['a long unknown event (quoted in part)', JSON.stringify({ event: 'e'.repeat(10_000), payin_id: 'p', status_code: 200 }), /^unknown event "e{59}…$/],
  ])('answers 400 to %s and keeps it for inspection as malformed', async (_label, body, reason) => {
    fx = await listenerFixture();
    const reply = await post(fx.url, body);
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.body)).toMatchObject({ status: 'rejected' });
    const row = await lastRow(fx);
    expect(row).toMatchObject({ outcome: 'malformed', answer_status: 400 });
    expect(row?.detail).toMatch(reason);
    expect(row?.body.toString('utf8')).toBe(body);
    expect(fx.stored).toEqual([row?.id]);
  });

  it('answers 400 to a body that is not UTF-8 and keeps the exact bytes', async () => {
    fx = await listenerFixture();
    const bytes = Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
    expect((await post(fx.url, bytes)).status).toBe(400);
    const row = await lastRow(fx);
    expect(row?.body.equals(bytes)).toBe(true);
    expect(row?.detail).toBe('body is not valid UTF-8');
  });

  it('answers 415 to a non-JSON content type and keeps it as malformed', async () => {
    fx = await listenerFixture();
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1']) {
      const reply = await post(fx.url, payinNotification('p-1'), { headers: { 'content-type': type } });
      expect(reply.status, type).toBe(415);
      expect(await lastRow(fx)).toMatchObject({ outcome: 'malformed', answer_status: 415 });
    }
    expect((await post(fx.url, payinNotification('p-1'), { headers: { 'content-type': 'application/json; charset=UTF-8' } })).status).toBe(200);
  });

  it('answers 413 past 256 KiB and keeps the first 256 KiB with the size seen', async () => {
    fx = await listenerFixture();
    const big = payinNotification('p-big', 200, { padding: 'x'.repeat(300 * 1024) });
    const reply = await post(fx.url, big);
    expect(reply.status).toBe(413);
    const row = await lastRow(fx);
    expect(row).toMatchObject({ outcome: 'malformed', answer_status: 413, body_truncated: 1, body_size: Buffer.byteLength(big) });
    expect(row?.body.length).toBe(256 * 1024);
    expect(row?.body.toString('utf8')).toBe(big.slice(0, 256 * 1024));
    // A body of exactly the limit is still accepted.
    const exact = payinNotification('p-edge', 200, { padding: '' });
    const padded = payinNotification('p-edge', 200, { padding: 'y'.repeat(256 * 1024 - Buffer.byteLength(exact)) });
    expect(Buffer.byteLength(padded)).toBe(256 * 1024);
    expect((await post(fx.url, padded)).status).toBe(200);
  });

  it('cuts off a sender that announces a body far past the limit, keeping a record of it', async () => {
    fx = await listenerFixture({ maxBodyBytes: 1024, hardBodyCapBytes: 8192 });
    const huge = payinNotification('p-huge', 200, { padding: 'x'.repeat(64 * 1024) });
    const reply = await post(fx.url, huge).catch((error: Error) => error);
    if (!(reply instanceof Error)) expect(reply.status).toBe(413); // or the connection is cut first
    expect(await lastRow(fx)).toMatchObject({ outcome: 'malformed', answer_status: 413, body_truncated: 1, body_size: Buffer.byteLength(huge) });
  });

  it('refuses to start on a ledger that does not make every commit durable', async () => {
    const { db, address, remove } = await freshLedger();
    try {
      if ('file' in address) {
        await db.run('PRAGMA synchronous = NORMAL');
        await expect(startListener({ db })).rejects.toThrow(/SQLite synchronous=FULL/);
      } else {
        // A server configured to acknowledge commits before they reach disk, as new sessions see it.
        await setDatabaseDefault(address.url, 'synchronous_commit', 'off');
        const lax = await openLedger(address);
        try {
          await expect(startListener({ db: lax })).rejects.toThrow(/PostgreSQL synchronous_commit=on/);
        } finally {
          await lax.close();
        }
      }
    } finally {
      await remove();
    }
  });

  it('answers 404 to an unknown path and stores nothing, and 405 to another method on a profile path', async () => {
    fx = await listenerFixture();
    const origin = fx.listener.url('').replace(/\/n\/$/, '');
    for (const path of ['/', '/n/', '/n/short', `/n/${'A'.repeat(43)}`, `/x/${fx.ledger.profile.listenerPathSecret}`]) {
      expect((await post(`${origin}${path}`, payinNotification('p'))).status, path).toBe(404);
    }
    expect((await post(fx.url, '', { method: 'GET' })).status).toBe(405);
    expect(await fx.rowCount()).toBe(0);
    expect(fx.stored).toEqual([]);
  });

  it('stops answering the old path once the profile path is rotated and the listener told', async () => {
    fx = await listenerFixture();
    expect((await post(fx.url, payinNotification('p'))).status).toBe(200);
    const rotated = await fx.ledger.repos.profiles.rotateListenerPath(fx.ledger.profile.id);
    fx.listener.refreshProfiles();
    expect((await post(fx.url, payinNotification('p'))).status).toBe(404);
    expect((await post(fx.listener.url(rotated.listenerPathSecret), payinNotification('p'))).status).toBe(200);
  });

  it('answers 431 to oversized headers', async () => {
    fx = await listenerFixture({ maxHeaderBytes: 4096 });
    const reply = await post(fx.url, payinNotification('p'), { headers: { 'x-big': 'z'.repeat(8192) } }).catch((e: Error) => e);
    expect(reply instanceof Error ? reply.message : reply.status).toBe(431);
    expect(await fx.rowCount()).toBe(0);
  });

  it('only listens on loopback by default', async () => {
    fx = await listenerFixture();
    expect(fx.listener.host).toBe('127.0.0.1');
    expect(fx.url.startsWith(`http://127.0.0.1:${fx.listener.port}/n/`)).toBe(true);
  });
});

/** Opens a raw socket, writes `chunks` with pauses, and resolves with what the server sent and when it closed. */
function slowClient(port: number, chunks: string[], pauseMs: number, maxMs: number): Promise<{ data: string; closedAfterMs: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    let data = '';
    let i = 0;
    const timer = setInterval(() => {
      if (i < chunks.length && !socket.destroyed) socket.write(chunks[i++] as string);
    }, pauseMs);
    const guard = setTimeout(() => {
      socket.destroy();
      reject(new Error(`server kept a slow client for more than ${maxMs} ms`));
    }, maxMs);
    socket.on('data', (chunk) => (data += chunk.toString('utf8')));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      clearTimeout(guard);
      resolve({ data, closedAfterMs: Date.now() - started });
    });
  });
}

describe('notification listener: time limits', () => {
  it('drops a client that sends its headers too slowly (408) and stores nothing', async () => {
    fx = await listenerFixture({ headersTimeoutMs: 300, requestTimeoutMs: 600, timeoutCheckIntervalMs: 50 });
    const path = new URL(fx.url).pathname;
    const trickle = [`POST ${path} HTTP/1.1\r\n`, 'Host: x\r\n', 'Content-Type: application/json\r\n', 'X-Slow: 1\r\n', 'X-Slow: 2\r\n', 'X-Slow: 3\r\n', 'X-Slow: 4\r\n'];
    const result = await slowClient(fx.listener.port, trickle, 150, 5000);
    expect(result.data).toMatch(/^HTTP\/1\.1 408/);
    expect(result.closedAfterMs).toBeLessThan(2000);
    expect(await fx.rowCount()).toBe(0);
  });

  it('drops a client that sends its body too slowly (408) and stores nothing', async () => {
    fx = await listenerFixture({ headersTimeoutMs: 300, requestTimeoutMs: 600, timeoutCheckIntervalMs: 50 });
    const path = new URL(fx.url).pathname;
    const body = payinNotification('p-slow');
    const head = `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const pieces = [head, ...(body.match(/.{1,10}/g) as string[])];
    const result = await slowClient(fx.listener.port, pieces, 100, 5000);
    expect(result.data).toMatch(/^HTTP\/1\.1 408/);
    expect(result.closedAfterMs).toBeLessThan(2500);
    expect(await fx.rowCount()).toBe(0);
  });

  it('closes an idle keep-alive connection after the keep-alive timeout', async () => {
    fx = await listenerFixture({ keepAliveTimeoutMs: 200 });
    const path = new URL(fx.url).pathname;
    const body = payinNotification('p-ka');
    const request = `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const result = await slowClient(fx.listener.port, [request], 10, 5000);
    expect(result.data).toMatch(/^HTTP\/1\.1 200/);
    // Node adds a fixed one-second grace to keepAliveTimeout before it closes the socket.
    expect(result.closedAfterMs).toBeGreaterThanOrEqual(150);
    expect(result.closedAfterMs).toBeLessThan(3000);
    expect(await fx.rowCount()).toBe(1);
  });
});

describe('notification links sent to the gateway', () => {
  it('use the listener address, or the profile public URL when one is set', async () => {
    fx = await listenerFixture();
    const { profiles } = fx.ledger.repos;
    const secret = fx.ledger.profile.listenerPathSecret;
    expect(notificationLink(fx.ledger.profile, fx.listener)).toBe(fx.url);
    const proxied = await profiles.update(fx.ledger.profile.id, { notificationPublicUrl: 'https://hooks.example.com/paydesk' });
    expect(notificationLink(proxied, fx.listener)).toBe(`https://hooks.example.com/paydesk/n/${secret}`);
    const withSlash = await profiles.update(fx.ledger.profile.id, { notificationPublicUrl: 'https://hooks.example.com/' });
    expect(notificationLink(withSlash, fx.listener)).toBe(`https://hooks.example.com/n/${secret}`);
  });
});
