import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../src/main/core';
import type { Dispatch } from '../../src/main/ipc/dispatcher';
import { EventBus } from '../../src/main/services/event-bus';
import { lateDispatch } from '../../src/main/web/late-dispatch';
import { startWebServer, type WebServer } from '../../src/main/web/server';
import { silentLogger, testCore } from '../helpers/app-core';
import { tempDir } from '../helpers/temp-dir';
import { STREAM_GAP_EVENT } from '../../src/shared/web-stream';

let core: Core;
let server: WebServer;
let cleanup: () => void;
let rendererDir: string;

beforeAll(async () => {
  const temp = tempDir();
  cleanup = temp.cleanup;
  rendererDir = path.join(temp.dir, 'renderer');
  mkdirSync(path.join(rendererDir, 'assets'), { recursive: true });
  writeFileSync(path.join(rendererDir, 'index.html'), '<html><head></head><body>app</body></html>');
  writeFileSync(path.join(rendererDir, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(path.join(rendererDir, 'assets', 'gone.js'), 'console.log(2)');
  core = await testCore(path.join(temp.dir, 'data'));
  server = await startWebServer({ dispatch: core.dispatch, events: core.events, rendererDir, log: silentLogger });
});

afterAll(async () => {
  await server.close();
  await core.close();
  cleanup();
});

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** Raw HTTP so the test controls every header, Host and Origin included. */
function request(pathname: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: server.port, path: pathname, method: options.method ?? 'GET', headers: { host: `127.0.0.1:${server.port}`, ...options.headers } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

const rpc = (channel: string, input: unknown, headers: Record<string, string> = {}) =>
  request(`/rpc/${channel}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-paydesk-token': server.token, ...headers },
    body: JSON.stringify({ input }),
  });

describe('web-mode server', () => {
  it('listens on loopback only and prints a tokenised URL', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{24,}$/);
  });

  it('refuses every path without the session token (401)', async () => {
    for (const pathname of ['/', '/index.html', '/assets/app.js', '/events']) {
      expect((await request(pathname)).status).toBe(401);
    }
    expect((await rpc('settings:get', undefined, { 'x-paydesk-token': '' })).status).toBe(401);
    expect((await rpc('settings:get', undefined, { 'x-paydesk-token': 'wrong' })).status).toBe(401);
  });

  it('answers a browser opening a page without its session with a page saying where the address is; calls keep their JSON error', async () => {
    const browser = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
    const refusals = [
      { pathname: '/', headers: browser, status: 401 },
      { pathname: '/?token=of-a-run-before-the-restart', headers: browser, status: 401 },
      { pathname: '/', headers: { ...browser, cookie: 'paydesk_session=of-a-run-before-the-restart' }, status: 401 },
      { pathname: '/assets/app.js', headers: browser, status: 401 },
      { pathname: '/', headers: { ...browser, origin: 'http://evil.example' }, status: 403 },
    ];
    for (const { pathname, headers, status } of refusals) {
      const page = await request(pathname, { headers });
      expect(page.status, pathname).toBe(status);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.body).toMatch(/^<!doctype html>/);
      expect(page.body).toContain('<h1>Open Paydesk from the address it printed</h1>');
      expect(page.body).toContain('<code>npm start</code>');
      expect(page.body).toContain(`<code>http://127.0.0.1:${server.port}/?token=…</code>`);
      expect(page.body).not.toContain(server.token);
      expect(page.body).not.toContain('of-a-run-before-the-restart');
      expect(page.headers['set-cookie']).toBeUndefined();
      expect(page.headers['content-security-policy']).toContain("script-src 'self'");
      expect(page.headers['cache-control']).toBe('no-store');
    }
    // The app's own calls, and anything that is not a browser opening a page, keep the JSON error.
    const calls = [
      await rpc('settings:get', undefined, { 'x-paydesk-token': '', accept: browser.accept }),
      await request('/events', { headers: { accept: 'text/event-stream' } }),
      await request('/'),
    ];
    for (const reply of calls) {
      expect(reply.status).toBe(401);
      expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
    }
    expect(JSON.parse(calls[0]?.body ?? '')).toEqual({ ok: false, error: { code: 'unauthorized', message: 'Missing or wrong session token: open the address Paydesk printed.' } });
  });

  it('serves the page with the token, sets an HttpOnly session cookie and security headers', async () => {
    const page = await request(`/?token=${server.token}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain(`<meta name="paydesk-session" content="${server.token}" />`);
    expect(String(page.headers['set-cookie'])).toMatch(/HttpOnly; SameSite=Strict/);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    const asset = await request('/assets/app.js', { headers: { cookie: `paydesk_session=${server.token}` } });
    expect(asset.status).toBe(200);
  });

  it('serves the built assets by exact file name with their type, and nothing else of the disk; GET and HEAD only', async () => {
    const cookie = { cookie: `paydesk_session=${server.token}` };
    const js = await request('/assets/app.js', { headers: cookie });
    expect([js.status, js.headers['content-type'], js.body]).toEqual([200, 'text/javascript; charset=utf-8', 'console.log(1)']);
    const head = await request('/assets/app.js', { method: 'HEAD', headers: cookie });
    expect([head.status, head.headers['content-length'], head.body]).toEqual([200, String('console.log(1)'.length), '']);
    for (const pathname of ['/assets/', '/assets/..%2findex.html', '/assets/%2e%2e%2f%2e%2e%2fpackage.json', '/assets/.hidden', '/assets/sub/app.js', '/index.htm', '/app.js', '/assets/missing.js']) {
      expect((await request(pathname, { headers: cookie })).status, pathname).toBe(404);
    }
    const post = await request('/assets/app.js', { method: 'POST', headers: cookie });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
  });

  it('reads the assets the page names before the browser asks for them', async () => {
    const dir = path.join(path.dirname(rendererDir), 'warm-renderer');
    mkdirSync(path.join(dir, 'assets'), { recursive: true });
    writeFileSync(path.join(dir, 'index.html'), '<html><head><script type="module" src="./assets/entry-1a2b.js"></script></head><body></body></html>');
    writeFileSync(path.join(dir, 'assets', 'entry-1a2b.js'), 'console.log("warm")');
    const warm = await startWebServer({ dispatch: core.dispatch, events: core.events, rendererDir: dir, log: silentLogger });
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      rmSync(path.join(dir, 'assets', 'entry-1a2b.js')); // read already: served from memory
      const res = await fetch(`${warm.origin}/assets/entry-1a2b.js?token=${warm.token}`);
      expect([res.status, await res.text()]).toEqual([200, 'console.log("warm")']);
    } finally {
      await warm.close();
    }
  });

  it('lets the browser keep the hashed assets, never the page that carries the session token', async () => {
    expect((await request(`/?token=${server.token}`)).headers['cache-control']).toBe('no-store');
    const asset = await request('/assets/app.js', { headers: { cookie: `paydesk_session=${server.token}` } });
    expect(asset.headers['cache-control']).toBe('private, max-age=31536000, immutable');
    expect(asset.headers['x-content-type-options']).toBe('nosniff');
  });

  it('answers 404 for an asset that vanished after start (a rebuild of out/), and keeps serving', async () => {
    rmSync(path.join(rendererDir, 'assets', 'gone.js'));
    const gone = await request('/assets/gone.js', { headers: { cookie: `paydesk_session=${server.token}` } });
    expect(gone.status).toBe(404);
    expect((await request('/assets/app.js', { headers: { cookie: `paydesk_session=${server.token}` } })).status).toBe(200);
  });

  it('does not accept the cookie alone for the API (no CSRF)', async () => {
    const res = await request('/rpc/settings:get', {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: `paydesk_session=${server.token}` },
      body: '{}',
    });
    expect(res.status).toBe(401);
  });

  it('refuses a foreign Host header (DNS rebinding) and a foreign Origin', async () => {
    expect((await rpc('settings:get', undefined, { host: `attacker.example:${server.port}` })).status).toBe(421);
    expect((await rpc('settings:get', undefined, { origin: 'http://evil.example' })).status).toBe(403);
    expect((await rpc('settings:get', undefined, { origin: `http://127.0.0.1:${server.port}` })).status).toBe(200);
  });

  it('round-trips a contract call and validates its input', async () => {
    const ok = await rpc('settings:update', { theme: 'dark' });
    expect(JSON.parse(ok.body)).toEqual({ ok: true, value: { theme: 'dark', reconciliationPendingMinutes: 60 } });
    const bad = JSON.parse((await rpc('settings:update', { theme: 7 })).body) as { ok: boolean; error: { code: string; fields: object } };
    expect(bad.ok).toBe(false);
    expect(bad.error.code).toBe('invalid_input');
    expect(Object.keys(bad.error.fields)).toEqual(['theme']);
  });

  it('answers malformed and oversized bodies with a clear error', async () => {
    const malformed = await request('/rpc/settings:get', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-paydesk-token': server.token },
      body: '{not json',
    });
    expect(malformed.status).toBe(400);
    const huge = await request('/rpc/settings:update', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-paydesk-token': server.token },
      body: JSON.stringify({ input: { theme: 'x'.repeat(1024 * 1024 + 10) } }),
    });
    expect(huge.status).toBe(413);
  });

  it('pushes contract events to the event stream', async () => {
    let update: Promise<unknown> | undefined;
    const received = new Promise<string>((resolve, reject) => {
      const req = http.get(
        { host: '127.0.0.1', port: server.port, path: `/events?token=${server.token}`, headers: { host: `127.0.0.1:${server.port}` } },
        (res) => {
          expect(res.headers['content-type']).toBe('text/event-stream');
          let buffer = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            buffer += chunk;
            if (buffer.includes('event: settings:settings-changed')) {
              req.destroy();
              resolve(buffer);
            }
            if (!update && buffer.includes(': connected')) update = rpc('settings:update', { theme: 'light' });
          });
        },
      );
      req.on('error', (error) => (error.message.includes('aborted') ? undefined : reject(error)));
      setTimeout(() => reject(new Error('no push within 5 s')), 5000).unref();
    });
    const stream = await received;
    await update;
    expect(stream).toContain('data: {"theme":"light","reconciliationPendingMinutes":60}');
  });

  it('replays to a stream opened late the pushes made since its page was served, and after a reconnect those after Last-Event-ID', async () => {
    const page = await request(`/?token=${server.token}`);
    const served = /<meta name="paydesk-push-seq" content="([0-9a-f]{8})\.(\d+)"/.exec(page.body);
    expect(served).not.toBeNull();
    const [, epoch, number] = served as RegExpExecArray;
    // A push after the page was served and before its stream opens.
    expect((await rpc('settings:update', { theme: 'dark' })).status).toBe(200);
    const pushed = /id: ([0-9a-f]{8})\.(\d+)\nevent: settings:settings-changed\ndata: \{"theme":"dark"/;
    const late = await streamUntil(`/events?token=${server.token}&since=${epoch}.${number}`, pushed);
    const [, pushedEpoch, pushedNumber] = pushed.exec(late) as RegExpExecArray;
    expect(pushedEpoch).toBe(epoch);
    expect(Number(pushedNumber)).toBeGreaterThan(Number(number));
    // A reconnecting browser sends the id of the last frame it got: nothing after it, nothing before.
    expect((await rpc('settings:update', { theme: 'light' })).status).toBe(200);
    const next = /id: [0-9a-f]{8}\.(\d+)\nevent: settings:settings-changed\ndata: \{"theme":"light"/;
    const resumed = await streamUntil(`/events?token=${server.token}&since=0`, next, { 'last-event-id': `${epoch}.${pushedNumber}` });
    expect(resumed).not.toMatch(pushed);
    expect(resumed).not.toContain(STREAM_GAP_EVENT);
    expect(Number(next.exec(resumed)?.[1])).toBeGreaterThan(Number(pushedNumber));
  });

  it('tells a stream resuming from another server process\'s push (a restart, another instance) that it has a gap, and replays a page of another process nothing', async () => {
    const page = await request(`/?token=${server.token}`);
    const [, epoch, number] = /<meta name="paydesk-push-seq" content="([0-9a-f]{8})\.(\d+)"/.exec(page.body) as RegExpExecArray;
    const other = epoch === 'ffffffff' ? '00000000' : 'ffffffff';
    // The same number under another epoch: the numbers of another process say nothing of this one's pushes.
    const resumed = await streamUntil(`/events?token=${server.token}&since=${epoch}.${number}`, new RegExp(`event: ${STREAM_GAP_EVENT}\n`), { 'last-event-id': `${other}.${number}` });
    expect(resumed).toContain(`event: ${STREAM_GAP_EVENT}\ndata: {}\n\n`);
    // A page's first stream, served by another process (a balancer without affinity): no gap, and
    // the pushes from now on arrive.
    const first = streamUntil(`/events?token=${server.token}&since=${other}.0`, /event: settings:settings-changed\ndata: \{"theme":"dark"/);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await rpc('settings:update', { theme: 'dark' })).status).toBe(200);
    const opened = await first;
    expect(opened).not.toContain(STREAM_GAP_EVENT);
    // It opens with where it stands, this process's position: a reconnect before any push resumes from there.
    expect(opened).toMatch(new RegExp(`^: connected\\n\\nid: ${epoch}\\.\\d+\\n\\n`));
  });
});

/** Opens the event stream and resolves with what arrived once `until` matches it (5 s at most). */
function streamUntil(pathname: string, until: RegExp, headers: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port: server.port, path: pathname, headers: { host: `127.0.0.1:${server.port}`, ...headers } }, (res) => {
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        if (until.test(buffer)) {
          req.destroy();
          resolve(buffer);
        }
      });
    });
    req.on('error', (error) => (error.message.includes('aborted') ? undefined : reject(error)));
    setTimeout(() => reject(new Error(`${until} did not arrive within 5 s`)), 5000).unref();
  });
}

describe('web mode listening before its core is up', () => {
  /** A core that starts when the test says so (web mode loads and opens it after listening). */
  function startingCore() {
    let ready!: (core: { dispatch: Dispatch }) => void;
    let fail!: (error: Error) => void;
    const core = new Promise<{ dispatch: Dispatch }>((resolve, reject) => {
      ready = resolve;
      fail = reject;
    });
    core.catch(() => {});
    return { core, ready, fail };
  }
  const call = (early: WebServer, channel: string) =>
    fetch(`${early.origin}/rpc/${channel}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-paydesk-token': early.token }, body: '{}' }).then(
      async (res) => ({ status: res.status, body: (await res.json()) as unknown }),
    );

  it('serves the page and its assets at once, and answers a call as soon as the core is up', async () => {
    const starting = startingCore();
    const early = await startWebServer({ dispatch: lateDispatch(starting.core), events: new EventBus(), rendererDir, log: silentLogger });
    try {
      expect((await fetch(early.url)).status).toBe(200);
      expect((await fetch(`${early.origin}/assets/app.js?token=${early.token}`)).status).toBe(200);
      let answered = false;
      const pending = call(early, 'settings:get').then((reply) => {
        answered = true;
        return reply;
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(answered).toBe(false);
      starting.ready(core);
      expect(await pending).toEqual({ status: 200, body: { ok: true, value: expect.objectContaining({ theme: expect.any(String) }) } });
    } finally {
      await early.close();
    }
  });

  it('answers `unavailable` to calls when the core could not start', async () => {
    const starting = startingCore();
    const early = await startWebServer({ dispatch: lateDispatch(starting.core), events: new EventBus(), rendererDir, log: silentLogger });
    try {
      const pending = call(early, 'settings:get');
      starting.fail(new Error('ledger written by a newer Paydesk'));
      expect(await pending).toEqual({ status: 200, body: { ok: false, error: { code: 'unavailable', message: expect.stringContaining('could not start') } } });
    } finally {
      await early.close();
    }
  });
});
