// A notification that arrives while the app closes is stored and answered (the listener lets its
// requests in flight finish), and then applied before the ledger closes: none is left pending for
// the next start, which may be days away or never come (a desk uninstalled, an instance retired).
import http from 'node:http';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCore } from '../../../src/main/core';
import { ProfilesRepository } from '../../../src/main/ledger/repositories/profiles';
import { testCoreOptions } from '../../helpers/app-core';
import { payinNotification } from '../../helpers/http';
import { openReader, testEngine } from '../../helpers/ledger';
import { tempDir } from '../../helpers/temp-dir';
import { cleanupsAfterEach } from '../../helpers/cleanups';

const cleanups = cleanupsAfterEach();

describe(`closing with a notification in flight (${testEngine})`, () => {
  it('stores, answers and applies it before the ledger closes', async () => {
    const temp = tempDir();
    cleanups.push(temp.cleanup);
    const options = await testCoreOptions(temp.dir);
    const core = await createCore(options);
    cleanups.push(() => core.close());
    const [profile] = await new ProfilesRepository(core.ledger).list();
    const url = new URL(core.listener.url(profile!.listenerPathSecret));
    const body = Buffer.from(payinNotification('close-orphan-1', 200));

    // The request is under way (half its body sent) when the close begins; the rest follows.
    const answer = new Promise<number>((resolve, reject) => {
      const req = http.request(url, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': body.length } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.write(body.subarray(0, 10));
      setTimeout(() => req.end(body.subarray(10)), 150);
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closed = core.close();
    expect(await answer).toBe(200);
    await closed;

    const reader = await openReader(options.database ? { url: options.database } : { file: path.join(temp.dir, 'ledger.sqlite') });
    cleanups.push(() => reader.close());
    const rows = await reader.all<{ outcome: string }>('SELECT outcome FROM notifications');
    expect(rows).toEqual([{ outcome: 'orphan' }]);
  });
});
