// The webhook inspector updates live: every stored notification is pushed on
// 'notifications:notification-changed', including malformed ones (never applied) and a replayed
// malformed copy. Real core, real listener over HTTP.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, waitFor, type Harness } from './harness';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

const malformedPushes = () => h.pushesOf('notifications:notification-changed').filter((n) => n.outcome === 'malformed');

describe('notification pushes for the webhook inspector', () => {
  it('announces a malformed notification as soon as it is stored, with its detail and the answer given', async () => {
    const reply = await h.notify('{"event":"v2_payin_notification"');
    expect(reply.status).toBe(400);
    const [pushed] = await waitFor(malformedPushes, (list) => list.length === 1, 'the malformed push');
    expect(pushed).toMatchObject({ outcome: 'malformed', answerStatus: 400, bodySize: 32, detail: expect.stringMatching(/not JSON/) });
    const listed = await h.call('notifications:list', { outcomes: ['malformed'] });
    expect(listed.items.map((n) => n.id)).toEqual([pushed?.id]);
    expect((await h.call('notifications:get', { id: pushed?.id as number })).body).toBe('{"event":"v2_payin_notification"');
  });

  it('announces the stored copy when a malformed notification is replayed', async () => {
    await h.notify('not json at all', { 'content-type': 'text/plain' });
    const [original] = await waitFor(malformedPushes, (list) => list.length === 1, 'the malformed push');
    const replayed = await h.call('notifications:replay', { id: original?.id as number });
    expect(replayed.notification.id).not.toBe(original?.id);
    expect(replayed.notification.outcome).toBe('malformed');
    await waitFor(malformedPushes, (list) => list.some((n) => n.id === replayed.notification.id), 'the replayed copy push');
  });
});

describe('the webhook inspector by profile', () => {
  it('lists one profile’s notifications apart from another’s', async () => {
    const sandbox = await h.call('profiles:create', { name: 'Sandbox', environment: 'sandbox', baseUrl: 'https://sandbox.example.com/api/v2', merchantId: 'm-9', merchantSiteId: 's-9' });
    const local = await h.profileId();
    await h.notify('not json, local');
    const posted = await fetch(sandbox.notificationUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'not json, sandbox' });
    expect(posted.status).toBe(400);
    await waitFor(malformedPushes, (list) => list.length === 2, 'both notifications');
    const bodies = async (profileId?: string) => {
      const { items } = await h.call('notifications:list', profileId ? { profileId } : {});
      return Promise.all(items.map(async (n) => [n.profileId, (await h.call('notifications:get', { id: n.id })).body]));
    };
    expect(await bodies(sandbox.id)).toEqual([[sandbox.id, 'not json, sandbox']]);
    expect(await bodies(local)).toEqual([[local, 'not json, local']]);
    expect(await bodies()).toHaveLength(2);
  });
});
