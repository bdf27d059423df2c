// The web-mode bridge makes its methods on first use (so the first bundle does not build the
// contract's zod schemas): every contract channel must still be reachable through it, and nothing
// that is not a channel name (a `then`, a symbol) may look like a method.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpBridge } from '../../../src/renderer/api/http-bridge';
import { invokeChannels, pushChannels } from '../../../src/shared/contract';

let server: http.Server;
let origin: string;
const seen: { url: string; token: string | undefined; body: string }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ url: req.url ?? '', token: req.headers['x-paydesk-token'] as string | undefined, body });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: true, value: { echoed: req.url } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('web-mode bridge', () => {
  it('posts every contract channel to /rpc/<channel> with the session token', async () => {
    const bridge = createHttpBridge({ token: 'tok' }, origin);
    for (const channel of invokeChannels) {
      const call = bridge.invoke[channel] as (input: unknown) => Promise<unknown>;
      expect(typeof call, channel).toBe('function');
    }
    expect(await (bridge.invoke['payins:count'] as (input: unknown) => Promise<unknown>)({ methods: ['blik'] })).toEqual({ ok: true, value: { echoed: '/rpc/payins:count' } });
    expect(seen.at(-1)).toEqual({ url: '/rpc/payins:count', token: 'tok', body: '{"input":{"methods":["blik"]}}' });
    expect(bridge.invoke['payins:list']).toBe(bridge.invoke['payins:list']); // made once
  });

  it('has no method for what is not a channel name, so the bridge is never taken for a promise', () => {
    const bridge = createHttpBridge({ token: 'tok' }, origin);
    const invoke = bridge.invoke as unknown as Record<string | symbol, unknown>;
    for (const name of ['then', 'constructor', 'toJSON', 'payins', 'payins:', ':list', 'Payins:List']) expect(invoke[name], name).toBeUndefined();
    expect(invoke[Symbol.iterator]).toBeUndefined();
    const on = bridge.on as unknown as Record<string, unknown>;
    for (const channel of pushChannels) expect(typeof on[channel], channel).toBe('function');
    expect(on.then).toBeUndefined();
  });
});
