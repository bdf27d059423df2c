// The listener address as a setting, on a real core: changing it rebinds the listener at once
// (notifications reach the new address, the old one is closed), the profiles' notification URLs
// follow, the address survives a restart, and a change that cannot bind names the field and leaves
// the listener where it was.
import net from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { payinNotification, post } from '../../helpers/http';
import { startHarness, type Harness } from '../verification/harness';

let h: Harness;

beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h?.close();
});

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function occupy(host: string, port = 0): Promise<net.Server> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return server;
}

const refused = (url: string) => post(url, payinNotification('p-1'), { timeoutMs: 2_000 }).then(() => false, (error: NodeJS.ErrnoException) => error.code === 'ECONNREFUSED');

describe('settings:get-listener / settings:update-listener', () => {
  it('reports the loopback address every local notification URL is built on', async () => {
    const state = await h.call('settings:get-listener');
    expect(state).toEqual({ host: '127.0.0.1', port: h.core.listener.port, origin: `http://127.0.0.1:${h.core.listener.port}`, loopback: true });
    expect(await h.notificationUrl()).toMatch(new RegExp(`^${state.origin}/n/[\\w-]+$`));
  });

  it('moves to a new port at once: the new URL is served, the old port closed, profiles pushed, the change audited and kept across a restart', async () => {
    const oldUrl = await h.notificationUrl();
    const port = await freePort();
    const state = await h.call('settings:update-listener', { port });
    expect(state).toMatchObject({ host: '127.0.0.1', port, origin: `http://127.0.0.1:${port}` });

    const newUrl = await h.notificationUrl();
    expect(newUrl).toBe(oldUrl.replace(/:\d+\//, `:${port}/`));
    expect((await post(newUrl, payinNotification('p-moved'))).status).toBe(200);
    expect(await refused(oldUrl)).toBe(true);

    expect(h.pushesOf('settings:listener-changed')).toEqual([state]);
    expect(h.pushesOf('profiles:profiles-changed').at(-1)?.map((p) => p.notificationUrl)).toContain(newUrl);
    expect((await h.repos().audit.list()).find((entry) => entry.action === 'settings.listener')).toMatchObject({ actor: 'user', subject: `127.0.0.1:${port}` });

    await h.restart();
    expect(await h.call('settings:get-listener')).toMatchObject({ port });
    expect(await h.notificationUrl()).toBe(newUrl);
  });

  it('changes the host on the same port (the old server is closed first) and builds URLs on loopback for a wildcard bind', async () => {
    const { port } = await h.call('settings:get-listener');
    const state = await h.call('settings:update-listener', { host: '0.0.0.0' });
    expect(state).toMatchObject({ host: '0.0.0.0', port, origin: `http://127.0.0.1:${port}`, loopback: false });
    expect((await h.notify(payinNotification('p-any'))).status).toBe(200);
    expect(await h.call('settings:update-listener', { host: '127.0.0.1' })).toMatchObject({ host: '127.0.0.1', port, loopback: true });
  });

  it('refuses a taken port naming the field, and keeps listening where it was', async () => {
    const before = await h.call('settings:get-listener');
    const blocker = await occupy('127.0.0.1');
    try {
      const taken = (blocker.address() as net.AddressInfo).port;
      const error = await h.failure('settings:update-listener', { port: taken });
      expect(error.code).toBe('invalid_input');
      expect(error.fields?.port).toMatch(/taken by another program/);
      expect(await h.call('settings:get-listener')).toEqual(before);
      expect((await h.notify(payinNotification('p-still'))).status).toBe(200);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it('names the field for a host that is not an address, and for an out-of-range port', async () => {
    expect((await h.failure('settings:update-listener', { host: 'example.com' })).fields).toHaveProperty('host');
    expect((await h.failure('settings:update-listener', { port: 70000 })).fields).toEqual({ port: 'From 0 (any free port) to 65535.' });
    const missing = await h.failure('settings:update-listener', { host: '10.255.255.254' });
    expect(missing.fields?.host).toMatch(/Not an address of this machine/);
  });

  it('starts on a free loopback port when the remembered one was taken while Paydesk was closed', async () => {
    const port = await freePort();
    await h.call('settings:update-listener', { port });
    await h.core.close();
    const blocker = await occupy('127.0.0.1', port);
    try {
      await h.restart();
      const state = await h.call('settings:get-listener');
      expect(state.host).toBe('127.0.0.1');
      expect(state.port).not.toBe(port);
      expect((await h.notify(payinNotification('p-fallback'))).status).toBe(200);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});
