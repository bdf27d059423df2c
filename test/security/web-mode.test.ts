// Web mode against a hostile local web page and DNS rebinding, over real HTTP.
// test/integration/web-server.test.ts covers the basic refusals; this suite adds what the threat
// model needs on top: where the sockets really listen (the kernel's view, for the web server, the
// notification listener and the embedded emulator), that other addresses of this machine are
// refused, a property over Host / Origin / token on every route (allowed exactly when all three
// are ours, and a refused request never reaches the dispatcher), and no CORS opening anywhere.
import fc from 'fast-check';
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../src/main/core';
import type { Dispatch } from '../../src/main/ipc/dispatcher';
import { startWebServer, type WebServer } from '../../src/main/web/server';
import { silentLogger, testCore } from '../helpers/app-core';
import { tempDir } from '../helpers/temp-dir';
import { checkParams, show } from './helpers/arbitraries';
import { externalIPv4, listeningOn, tryConnect } from './helpers/sockets';

const temp = tempDir('paydesk-web-security-');
let core: Core;
let server: WebServer;
const dispatched: string[] = [];

beforeAll(async () => {
  const rendererDir = path.join(temp.dir, 'renderer');
  mkdirSync(path.join(rendererDir, 'assets'), { recursive: true });
  writeFileSync(path.join(rendererDir, 'index.html'), '<html><head></head><body>app</body></html>');
  writeFileSync(path.join(rendererDir, 'assets', 'app.js'), 'console.log(1)');
  core = await testCore(path.join(temp.dir, 'data'));
  const recording: Dispatch = (channel, input) => {
    dispatched.push(channel);
    return core.dispatch(channel, input);
  };
  server = await startWebServer({ dispatch: recording, events: core.events, rendererDir, log: silentLogger });
});

afterAll(async () => {
  await server?.close();
  await core?.close();
  temp.cleanup();
});

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** Raw HTTP to 127.0.0.1 with every header under the test's control (Host and Origin included). */
function request(pathname: string, headers: Record<string, string>, method = 'GET', body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: server.port, path: pathname, method, headers, agent: false, setHost: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const ours = () => `127.0.0.1:${server.port}`;
const rpc = (headers: Record<string, string>) => request('/rpc/app:get-info', { 'content-type': 'application/json', ...headers }, 'POST', '{}');

describe('web mode listens on loopback only', () => {
  it('binds the web server, the notification listener and the embedded emulator to 127.0.0.1 and nothing else', () => {
    const ports = { 'web server': server.port, 'notification listener': core.listener.port, 'embedded emulator': Number(new URL(core.local.baseUrl).port) };
    for (const [name, port] of Object.entries(ports)) {
      const sockets = listeningOn(port);
      if (sockets === null) {
        console.log(`skipped the kernel check for the ${name}: /proc/net/tcp is not available on ${process.platform}`);
        continue;
      }
      expect(sockets, name).toEqual([{ family: 'IPv4', address: '127.0.0.1', port }]);
    }
  });

  it('refuses connections on the other addresses of this machine', async () => {
    const external = externalIPv4();
    const ports = [server.port, core.listener.port, Number(new URL(core.local.baseUrl).port)];
    for (const port of ports) {
      expect(await tryConnect('127.0.0.1', port), `127.0.0.1:${port}`).toBe('accepted');
      // Another loopback address: accepted only by a socket bound to every address.
      expect(await tryConnect('127.0.0.2', port), `127.0.0.2:${port}`).toBe('refused');
      expect(await tryConnect('::1', port), `[::1]:${port}`).toBe('refused');
      if (external) expect(await tryConnect(external, port), `${external}:${port}`).toBe('refused');
    }
    if (!external) console.log('skipped the non-loopback connection check: this machine has no non-loopback IPv4 address');
  });
});

describe('web mode refuses a hostile page and DNS rebinding', () => {
  it('refuses every Host that is not its own loopback address (421), before dispatching', async () => {
    const port = server.port;
    const before = dispatched.length;
    const hosts = [
      `evil.example:${port}`,
      `127.0.0.1.nip.io:${port}`,
      `localhost.evil.example:${port}`,
      '127.0.0.1',
      `127.0.0.1:${port + 1}`,
      `[::1]:${port}`,
      `0.0.0.0:${port}`,
      `2130706433:${port}`,
      `127.1:${port}`,
      `127.0.0.1:${port}@evil.example`,
      `${externalIPv4() ?? '192.0.2.1'}:${port}`,
      '',
    ];
    for (const host of hosts) {
      const reply = await rpc({ host, 'x-paydesk-token': server.token });
      expect(reply.status, `Host: ${host}`).toBe(421);
      expect(reply.body).not.toContain(server.token);
    }
    expect(dispatched.length).toBe(before);
  });

  it('refuses every Origin but its own (403), before dispatching', async () => {
    const port = server.port;
    const before = dispatched.length;
    for (const origin of ['null', 'http://evil.example', `http://127.0.0.1:${port + 1}`, `https://127.0.0.1:${port}`, `http://127.0.0.1:${port}.evil.example`, `http://evil.example/http://127.0.0.1:${port}`, 'file://', `chrome-extension://abc`]) {
      const reply = await rpc({ host: ours(), origin, 'x-paydesk-token': server.token });
      expect(reply.status, `Origin: ${origin}`).toBe(403);
    }
    expect(dispatched.length).toBe(before);
    for (const origin of [`http://127.0.0.1:${port}`, `http://localhost:${port}`]) {
      expect((await rpc({ host: ours(), origin, 'x-paydesk-token': server.token })).status, origin).toBe(200);
    }
  });

  it('refuses near-miss session tokens (401) and never echoes the token', async () => {
    const t = server.token;
    for (const candidate of [t.slice(0, -1), `${t}x`, t.toUpperCase() === t ? t.toLowerCase() : t.toUpperCase(), `${t},${t}`, `${t.slice(0, 12)}`, 'undefined', 'null']) {
      const reply = await rpc({ host: ours(), 'x-paydesk-token': candidate });
      expect(reply.status, candidate).toBe(401);
      expect(reply.body).not.toContain(t);
    }
    // The token in the query or a cookie does not open the API (a page cannot read the header-only token).
    expect((await request(`/rpc/app:get-info?token=${t}`, { host: ours(), 'content-type': 'application/json' }, 'POST', '{}')).status).toBe(401);
    expect((await request('/rpc/app:get-info', { host: ours(), 'content-type': 'application/json', cookie: `paydesk_session=${t}` }, 'POST', '{}')).status).toBe(401);
  });

  it('opens no CORS door: no Access-Control-Allow-* header, and a foreign preflight is refused', async () => {
    const preflight = await request('/rpc/app:get-info', { host: ours(), origin: 'http://evil.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-paydesk-token, content-type' }, 'OPTIONS');
    expect(preflight.status).toBe(403);
    const replies = [preflight, await rpc({ host: ours(), 'x-paydesk-token': server.token }), await request(`/?token=${server.token}`, { host: ours() })];
    for (const reply of replies) expect(Object.keys(reply.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    const page = replies[2] as Reply;
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  });

  it('property: on every route, a request is served exactly when Host, Origin and token are all ours', async () => {
    const port = server.port;
    const token = server.token;
    const host = fc.constantFrom(`127.0.0.1:${port}`, `localhost:${port}`, `evil.example:${port}`, `127.0.0.1:${port + 7}`, '127.0.0.1', `[::1]:${port}`);
    const origin = fc.constantFrom(undefined, `http://127.0.0.1:${port}`, `http://localhost:${port}`, 'null', 'http://evil.example', `http://127.0.0.1:${port + 7}`);
    const credential = fc.constantFrom('none', 'header', 'query', 'cookie', 'wrong-header', 'wrong-query');
    const route = fc.constantFrom('rpc', 'events', 'index', 'asset');
    await fc.assert(
      fc.asyncProperty(host, origin, credential, route, async (h, o, c, r) => {
        const headers: Record<string, string> = { host: h, ...(o ? { origin: o } : {}) };
        if (c === 'header') headers['x-paydesk-token'] = token;
        if (c === 'wrong-header') headers['x-paydesk-token'] = `${token}0`;
        if (c === 'cookie') headers.cookie = `paydesk_session=${token}`;
        const query = c === 'query' ? `?token=${token}` : c === 'wrong-query' ? `?token=${token}0` : '';
        const before = dispatched.length;
        const pathname = { rpc: `/rpc/settings:get${query}`, events: `/events${query}`, index: `/${query}`, asset: `/assets/app.js${query}` }[r];
        const reply =
          r === 'rpc'
            ? await request(pathname, { ...headers, 'content-type': 'application/json' }, 'POST', '{}')
            : r === 'events'
              ? await new Promise<Reply>((resolve, reject) => {
                  // An event stream stays open: take the head and hang up.
                  const req = http.request({ host: '127.0.0.1', port, path: pathname, headers, agent: false, setHost: false }, (res) => {
                    resolve({ status: res.statusCode ?? 0, headers: res.headers, body: '' });
                    req.destroy();
                  });
                  req.on('error', reject);
                  req.end();
                })
              : await request(pathname, headers);
        const hostOk = h === `127.0.0.1:${port}` || h === `localhost:${port}`;
        const originOk = o === undefined || o === `http://127.0.0.1:${port}` || o === `http://localhost:${port}`;
        const tokenOk = r === 'rpc' ? c === 'header' : r === 'events' ? c === 'query' : c === 'query' || c === 'cookie';
        const expected = !hostOk ? 421 : !originOk ? 403 : !tokenOk ? 401 : 200;
        expect(reply.status, `${r} Host=${h} Origin=${show(o)} credential=${c}`).toBe(expected);
        if (r === 'rpc') expect(dispatched.length - before, 'dispatched').toBe(expected === 200 ? 1 : 0);
      }),
      checkParams(150),
    );
  });
});
