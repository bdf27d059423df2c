// Lists and pushes of the webhook inspector carry summaries, the body and
// headers come with the detail (`notifications:get`). Before, every list row and every push held
// the notification's whole raw body, so a flood of 256 KiB bodies made a first page of 8.4 MB and
// web mode's push log (the last 1,000 pushes) held hundreds of MB. Real core, real listener over HTTP.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { payinNotification } from '../../helpers/http';
import { startHarness, waitFor, type Harness } from './harness';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

const LARGE = 200 * 1024;
const RAW_FIELDS = ['body', 'headers', 'bodyRedacted', 'rawHeaders'];

describe('webhook inspector summaries', () => {
  it('pushes and lists large notifications as small summaries, and gives the exact body and headers with the detail', async () => {
    const garbage = `not json ${'g'.repeat(LARGE)}`;
    const orphans = Array.from({ length: 12 }, (_, i) => payinNotification(crypto.randomUUID(), 200, { request_id: `summary-${i}`, padding: 'p'.repeat(LARGE) }));
    const answers = await Promise.all([...orphans.map((body) => h.notify(body, { 'x-sent-by': 'summary-test' })), h.notify(garbage, { 'x-sent-by': 'summary-test' })]);
    expect(answers.map((a) => a.status).sort()).toEqual([...Array(12).fill(200), 400]);

    const pushed = await waitFor(
      () => h.pushesOf('notifications:notification-changed'),
      (list) => new Set(list.filter((n) => n.outcome === 'orphan' || n.outcome === 'malformed').map((n) => n.id)).size === 13,
      'a push for each notification',
    );
    for (const push of pushed) {
      expect(Object.keys(push).filter((key) => RAW_FIELDS.includes(key))).toEqual([]);
      expect(JSON.stringify(push).length).toBeLessThan(1024);
    }
    expect(pushed.find((n) => n.outcome === 'malformed')).toMatchObject({ answerStatus: 400, bodySize: garbage.length, bodyTruncated: false });

    const page = await h.call('notifications:list', { limit: 100 });
    expect(page.items).toHaveLength(13);
    expect(page.items.flatMap((n) => Object.keys(n)).filter((key) => RAW_FIELDS.includes(key))).toEqual([]);
    // 13 bodies of 200 KiB and more: the page is a few KB, not 2.6 MB.
    expect(JSON.stringify(page).length).toBeLessThan(13 * 1024);

    const malformed = page.items.find((n) => n.outcome === 'malformed');
    const detail = await h.call('notifications:get', { id: malformed?.id as number });
    expect(detail.body).toBe(garbage);
    expect(detail.headers).toContainEqual(['x-sent-by', 'summary-test']);
    expect(detail).toMatchObject({ ...malformed, bodyRedacted: false });
    const orphan = page.items.find((n) => n.requestRef === 'summary-3');
    expect((await h.call('notifications:get', { id: orphan?.id as number })).body).toBe(orphans[3]);
  });

  it('pages through more than a full page of 500', async () => {
    const profileId = await h.profileId();
    const body = Buffer.from('garbage');
    const row = { profileId, receivedAt: new Date().toISOString(), sourceAddress: null, rawHeaders: [], body, bodySize: body.length, bodyTruncated: false, answerStatus: 400 };
    const facts = { event: null, transactionRef: null, requestRef: null, statusCode: null, dedupeKey: null, outcome: 'malformed' as const, detail: 'body is not JSON' };
    const ids = await h.repos().notifications.insertMany(Array.from({ length: 502 }, () => ({ ...row, ...facts })));
    const first = await h.call('notifications:list', { limit: 500 });
    expect(first.items).toHaveLength(500);
    expect(first.nextBeforeId).toBe(ids[2]);
    const second = await h.call('notifications:list', { limit: 500, beforeId: first.nextBeforeId });
    expect(second).toEqual({ items: [expect.objectContaining({ id: ids[1] }), expect.objectContaining({ id: ids[0] })], nextBeforeId: null });
  });

  it('answers not_found for a notification that does not exist', async () => {
    expect(await h.failure('notifications:get', { id: 999_999 })).toMatchObject({ code: 'not_found' });
  });
});
