import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { payinNotification, post } from '../../helpers/http';
import { listenerFixture, type ListenerFixture } from '../../helpers/listener';

let fx: ListenerFixture | undefined;
let agent: http.Agent | undefined;
afterEach(async () => {
  agent?.destroy();
  await fx?.close();
  fx = agent = undefined;
});

describe('notification listener under concurrent senders', () => {
  it('stores exactly one row per notification from 64 concurrent keep-alive senders, committing in groups', async () => {
    fx = await listenerFixture();
    const f = fx;
    agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
    const senders = 64;
    const perSender = 30;
    const started = performance.now();
    const statuses = await Promise.all(
      Array.from({ length: senders }, async (_, s) => {
        const seen: number[] = [];
        for (let i = 0; i < perSender; i++) seen.push((await post(f.url, payinNotification(`c-${s}-${i}`), { agent })).status);
        return seen;
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const total = senders * perSender;
    expect(statuses.flat().filter((s) => s !== 200)).toEqual([]);

    const rows = await f.reader.all<{ ref: string; n: number }>('SELECT transaction_ref AS ref, count(*) AS n FROM notifications GROUP BY transaction_ref');
    expect(rows).toHaveLength(total);
    expect(rows.filter((r) => r.n !== 1)).toEqual([]);
    expect(new Set(f.stored).size).toBe(total);

    const { stored, batches } = f.listener.stats();
    expect(stored).toBe(total);
    // Group commit: with 64 senders in flight, many notifications share one transaction.
    expect(batches).toBeLessThan(total / 4);
    console.info(`listener: ${total} notifications in ${seconds.toFixed(2)} s (${Math.round(total / seconds)}/s), ${batches} commits`);
  });
});
