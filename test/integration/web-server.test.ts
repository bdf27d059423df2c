import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../src/main/core';
import { startWebServer, type WebServer } from '../../src/main/web/server';
import { silentLogger, testCore } from '../helpers/app-core';
import { tempDir } from '../helpers/temp-dir';

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

  it('serves the page with the token, sets an HttpOnly session cookie and security headers', async () => {
    const page = await request(`/?token=${server.token}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain(`<meta name="paydesk-session" content="${server.token}" />`);
    expect(String(page.headers['set-cookie'])).toMatch(/HttpOnly; SameSite=Strict/);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    const asset = await request('/assets/app.js', { headers: { cookie: `paydesk_session=${server.token}` } });
    expect(asset.status).toBe(200);
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
    expect(JSON.parse(ok.body)).toEqual({ ok: true, value: { theme: 'dark' } });
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
    expect(stream).toContain('data: {"theme":"light"}');
  });
});
