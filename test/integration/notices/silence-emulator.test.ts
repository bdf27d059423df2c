// "The silence watch raises its notice when the emulator's deliveries to a live profile
// are made to fail." A real core (its start-up steps: the listener, the watches under their
// leadership) and its embedded emulator, behind an https proxy on loopback so a live profile can
// use it; the listener bound to this machine's own non-loopback address, so its notification link
// is one a gateway could reach. A pay-in whose notification arrives tells nothing; with the
// emulator's deliveries made to fail (its fixed admin interface: /faults, fail_next, 'drop') the
// next pay-in waits, and once the core's clock has passed silenceMinutes (1) the desk's person is
// told, once. The core's clock runs ahead on demand, so the test does not wait the minute out.
import https from 'node:https';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../../src/main/core';
import { DEFAULT_NOTICE_THRESHOLDS, type ProfileView } from '../../../src/shared/contract';
import { contractCall, emulatorAdmin, testCoreOptions } from '../../helpers/app-core';
import { payinForm } from '../../helpers/fixtures';
import { sleep, waitFor } from '../../helpers/poll';
import { tempDir } from '../../helpers/temp-dir';
import { makeTestCertificate, trustingFetch, type TestCertificate } from '../../helpers/test-tls';

/** An address of this machine that is not loopback (a gateway elsewhere could post to it). */
const ownAddress = Object.values(os.networkInterfaces())
  .flat()
  .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal)?.address;

let cert: TestCertificate;
let temp: ReturnType<typeof tempDir>;
let core: Core;
let proxy: https.Server;
let live: ProfileView;
let aheadMs = 0;

const call: typeof contractCall = (c, channel, input) => contractCall(c, channel, input);
const silentNotices = async () => (await call(core, 'notices:list', {})).items.filter((n) => n.kind === 'profile.silent');

interface Delivery {
  state: string;
  attempt_log: { error: string | null; http_status: number | null }[];
}
const deliveriesOf = async (payinId: string) => (await emulatorAdmin<{ deliveries: Delivery[] }>(core, `/deliveries?subject_id=${encodeURIComponent(payinId)}`)).body.deliveries;

/** Creates a pay-in on the live profile that the emulator completes at once; its gateway id. */
async function payin(): Promise<{ id: number; payinId: string }> {
  const created = await call(core, 'payins:create', payinForm('open_banking', { profileId: live.id, email: `silence-${Date.now()}+s200@example.com` }));
  expect(created).toMatchObject({ outcome: 'succeeded' });
  return { id: created.payin!.id, payinId: created.payin!.payinId! };
}

beforeAll(async () => {
  cert = makeTestCertificate();
  temp = tempDir('paydesk-silence-');
  const options = await testCoreOptions(path.join(temp.dir, 'data'), {
    now: () => new Date(Date.now() + aheadMs),
    listener: { host: ownAddress!, port: 0 },
    notices: { announceMs: 100, watchEveryMs: 100 },
    gateway: { timeoutMs: 5_000, fetch: trustingFetch(cert.cert) },
  });
  core = await createCore(options);
  // https on loopback in front of the embedded emulator: a live profile is reached over https only.
  const emulator = new URL(core.local.baseUrl);
  proxy = https.createServer({ key: cert.key, cert: cert.cert }, (req, res) => {
    const upstream = http.request({ host: emulator.hostname, port: emulator.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { merchant } = core.local;
  live = await call(core, 'profiles:create', { name: 'Shop live', environment: 'live', baseUrl: `https://127.0.0.1:${(proxy.address() as AddressInfo).port}/api/v2`, merchantId: merchant.merchant_id, merchantSiteId: merchant.merchant_site_id });
  await call(core, 'credentials:set-merchant-token', { profileId: live.id, token: merchant.merchant_token });
  await call(core, 'notices:set-thresholds', { ...DEFAULT_NOTICE_THRESHOLDS, silenceMinutes: 1 });
}, 60_000);

afterAll(async () => {
  await core?.close();
  await new Promise((resolve) => (proxy ? proxy.close(resolve) : resolve(undefined)));
  temp?.cleanup();
  cert?.cleanup();
});

describe.runIf(ownAddress !== undefined)('the silence watch against the emulator', () => {
  it("raises its notice when the emulator's deliveries to a live profile fail, and not while they arrive", async () => {
    // Deliveries arrive: the pay-in becomes final by its notification, and nothing waits.
    const heard = await payin();
    await waitFor(() => call(core, 'payins:get', { id: heard.id }), (d) => d.payin.final, 'the first pay-in to become final by its notification', 15_000);
    expect((await deliveriesOf(heard.payinId)).map((d) => d.state)).toEqual(['delivered']);
    aheadMs += 2 * 60_000;
    await sleep(500);
    expect(await silentNotices()).toEqual([]);

    // The emulator's deliveries are made to fail: the next pay-in's notification never arrives.
    expect((await emulatorAdmin(core, '/faults', { notifications: { fail_next: 100, fail_mode: 'drop' } }, 'PUT')).status).toBe(200);
    const unheard = await payin();
    await waitFor(() => deliveriesOf(unheard.payinId), (list) => list.length > 0 && list.every((d) => d.state !== 'delivered' && d.attempt_log.length >= 1), 'the emulator to try and fail its delivery', 15_000);
    await sleep(500);
    expect((await call(core, 'payins:get', { id: unheard.id })).payin.final).toBe(false);
    expect(await silentNotices()).toEqual([]);

    // The silence passes its minute.
    aheadMs += 61_000;
    const [notice] = await waitFor(silentNotices, (list) => list.length > 0, 'the silence notice', 10_000);
    expect(notice).toMatchObject({ title: 'No notifications for Shop live', link: `#/settings?edit=${live.id}`, body: expect.stringContaining('1 pay-in waiting and has heard nothing from the gateway for over 1 minutes') });
    await sleep(500);
    expect(await silentNotices()).toHaveLength(1);
  }, 60_000);
});
