// The HTTP server web mode and the team server share (src/main/web/app-server.ts), with a face of
// the test's own: one route table (the face's routes, the page, /events, /rpc/<channel>, assets,
// 404), the face's guards deciding alone, a failing route answered 500 and logged, and close()
// answering the call in flight before it resolves.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dispatch } from '../../src/main/ipc/dispatcher';
import type { Logger } from '../../src/main/logger';
import { EventBus } from '../../src/main/services/event-bus';
import { startAppServer, type AppFace, type AppServer } from '../../src/main/web/app-server';
import { refuse } from '../../src/main/web/http-kit';
import { post } from '../helpers/http';
import { tempDir } from '../helpers/temp-dir';

const temp = tempDir('paydesk-app-server-');
const rendererDir = path.join(temp.dir, 'renderer');
const logged: string[] = [];
const log: Logger = { info: () => {}, warn: () => {}, error: (message) => logged.push(message) };
const events = new EventBus();
let release: () => void = () => {};
const slowDispatch: Dispatch = async (channel, input) => {
  if (channel === 'slow') await new Promise<void>((resolve) => (release = resolve));
  return { ok: true, value: { channel, input } };
};

const face: AppFace<string> = {
  routes: {
    '/hello': ({ res }) => void res.end('hello'),
    '/boom': () => {
      throw new Error('boom');
    },
  },
  admitCall: ({ req, res }) => {
    if (req.headers['x-caller'] === 'known') return slowDispatch;
    refuse(res, 401, 'Who are you?');
    return null;
  },
  admitStream: ({ url }) => ({ client: url.searchParams.get('who') ?? 'anyone' }),
  admitPage: ({ url, res }) => {
    if (url.searchParams.get('closed') === null) return true;
    refuse(res, 403, 'Not this page.');
    return false;
  },
  page: () => ({ meta: { 'paydesk-face': 'test' }, headers: { 'x-face': 'test' } }),
};

let server: AppServer<string>;
const get = (pathname: string) => post(`http://127.0.0.1:${server.port}${pathname}`, '', { method: 'GET' });
const call = (channel: string, headers: Record<string, string> = { 'x-caller': 'known' }) => post(`http://127.0.0.1:${server.port}/rpc/${channel}`, JSON.stringify({ input: { n: 1 } }), { headers });

beforeAll(async () => {
  mkdirSync(path.join(rendererDir, 'assets'), { recursive: true });
  writeFileSync(path.join(rendererDir, 'index.html'), '<html><head></head><body>app</body></html>');
  writeFileSync(path.join(rendererDir, 'assets', 'app.js'), 'console.log(1)');
  server = await startAppServer({ face, events, rendererDir, host: '127.0.0.1', port: 0, log, failures: { logAs: 'test request', seeLog: 'the test log' } });
});

afterAll(async () => {
  await server.close();
  temp.cleanup();
});

describe('the app server both faces run', () => {
  it('serves the page with the face meta before the position of the last push, and the face headers', async () => {
    events.publish('settings:settings-changed', { theme: 'dark' } as never);
    const page = await get('/');
    expect(page.status).toBe(200);
    expect(page.headers['x-face']).toBe('test');
    expect(page.body).toMatch(/^<html><head> {2}<meta name="paydesk-face" content="test" \/>\n {2}<meta name="paydesk-push-seq" content="[0-9a-f]{8}\.1" \/>\n<\/head><body>app<\/body><\/html>$/);
    expect((await get('/index.html?closed')).status).toBe(403);
  });

  it('answers the face routes, the assets, and 404 for any other path', async () => {
    expect((await get('/hello')).body).toBe('hello');
    expect((await get('/assets/app.js')).body).toBe('console.log(1)');
    expect((await get('/assets/app.js?closed')).status).toBe(403);
    const missing = await get('/nothing');
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body)).toEqual({ ok: false, error: { code: 'not_found', message: 'No such path: /nothing' } });
  });

  it('makes a contract call through the dispatch the face admits, and nothing more once it refuses', async () => {
    const answered = await call('echo');
    expect(JSON.parse(answered.body)).toEqual({ ok: true, value: { channel: 'echo', input: { n: 1 } } });
    const refused = await call('echo', {});
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.body)).toEqual({ ok: false, error: { code: 'unauthorized', message: 'Who are you?' } });
  });

  it('answers a route that fails with 500, naming the log, and logs it', async () => {
    const failed = await get('/boom');
    expect(failed.status).toBe(500);
    expect(JSON.parse(failed.body)).toEqual({ ok: false, error: { code: 'internal', message: 'Internal error; see the test log.' } });
    expect(logged).toContain('test request GET /boom failed');
  });

  it('answers the call in flight before close() resolves, then takes no more', async () => {
    const inFlight = call('slow');
    await new Promise((resolve) => setTimeout(resolve, 100));
    let closed = false;
    const closing = server.close().then(() => (closed = true));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(closed).toBe(false);
    release();
    expect(JSON.parse((await inFlight).body)).toEqual({ ok: true, value: { channel: 'slow', input: { n: 1 } } });
    await closing;
    await expect(get('/')).rejects.toThrow();
  });
});
