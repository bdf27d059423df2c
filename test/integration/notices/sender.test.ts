// The outbox's sender on a real ledger: a flood of one kind to one person on one channel
// goes as one digest (all its deliveries marked sent by it); what a channel refused is tried again
// with a growing delay and given up after its tries, its last error kept; and a sender started
// again (a restart: its state is the ledger's) sends what was left, once, and nothing twice.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRepositories, type Repositories } from '../../../src/main/ledger/repositories/index';
import type { NoticeChannel, OutgoingMessage } from '../../../src/main/services/notices/channels';
import { NoticeSender } from '../../../src/main/services/notices/notice-sender';
import { silentLogger } from '../../helpers/app-core';
import { freshLedger, ManualClock } from '../../helpers/ledger';

let repos: Repositories;
let clock: ManualClock;
let remove: () => Promise<void>;

beforeEach(async () => {
  clock = new ManualClock();
  const ledger = await freshLedger({ now: clock.now });
  remove = ledger.remove;
  repos = createRepositories(ledger.db, clock.now);
  await repos.notices.setChoices('p1', { email: 'p1@example.com', chatUrl: null }, [
    { kind: 'payout.declined', channel: 'email' },
    { kind: 'payout.unknown', channel: 'email' },
  ]);
});

afterEach(async () => {
  await remove();
});

/** A channel that records what it sends, or refuses while `refusing`. */
function recorder() {
  const sent: { to: string; message: OutgoingMessage }[] = [];
  const channel: NoticeChannel & { refusing: boolean } = {
    refusing: false,
    async send(to, message) {
      if (channel.refusing) throw new Error('421 try again later');
      sent.push({ to, message });
    },
  };
  return { channel, sent };
}

const tell = (kind: string, n: number) => repos.notices.add({ kind, subject: `payout:r${n}`, title: `Payout r${n} declined: C501`, body: `card 4111111111111111 r${n}`, link: `#/payouts/${n}` }, { people: ['p1'] });

/** One look of a sender, as the leader. */
async function look(sender: NoticeSender) {
  await sender.lead();
  sender.lost();
}

describe('the notice sender', () => {
  it('sends a flood of one kind as one digest, and another kind alone', async () => {
    for (let n = 1; n <= 7; n++) await tell('payout.declined', n);
    await tell('payout.unknown', 8);
    const { channel, sent } = recorder();
    await look(new NoticeSender({ repos, channels: { email: channel }, publicUrl: 'https://paydesk.example.com/', now: clock.now, log: silentLogger }));
    expect(sent.map((s) => [s.to, s.message.subject])).toEqual([
      ['p1@example.com', 'Paydesk: 7 notices (payout.declined)'],
      ['p1@example.com', 'Payout r8 declined: C501'],
    ]);
    expect(sent[0]!.message.text.match(/https:\/\/paydesk\.example\.com\/#\/payouts\/\d/g)).toHaveLength(7);
    expect(sent[1]!.message.text).toContain('411111******1111');
    expect(sent.map((s) => s.message.text).join('')).not.toContain('4111111111111111');
    // All sent: another look sends nothing.
    await look(new NoticeSender({ repos, channels: { email: channel }, publicUrl: 'https://paydesk.example.com', now: clock.now, log: silentLogger }));
    expect(sent).toHaveLength(2);
  });

  it("tries a refused message again after a growing delay, gives up after its tries, and keeps the channel's last error", async () => {
    await tell('payout.declined', 1);
    const { channel, sent } = recorder();
    channel.refusing = true;
    const sender = new NoticeSender({ repos, channels: { email: channel }, publicUrl: 'https://p', now: clock.now, log: silentLogger, timings: { baseDelayMs: 1_000, maxDelayMs: 3_000, maxTries: 4 } });
    await look(sender);
    const [notice] = (await repos.notices.page('p1', { limit: 1 })).items;
    expect(await repos.notices.deliveries(notice!.id)).toEqual([{ channel: 'email', state: 'pending', tries: 1, lastError: '421 try again later' }]);
    // Not due yet: nothing is tried before its delay.
    clock.advance(999);
    await look(sender);
    expect((await repos.notices.deliveries(notice!.id))[0]!.tries).toBe(1);
    for (const delay of [1, 2_000, 3_000]) {
      clock.advance(delay);
      await look(sender);
    }
    expect(await repos.notices.deliveries(notice!.id)).toEqual([{ channel: 'email', state: 'failed', tries: 4, lastError: '421 try again later' }]);
    expect(await repos.notices.channels()).toEqual([expect.objectContaining({ channel: 'email', lastError: '421 try again later', lastSentAt: null })]);
    channel.refusing = false;
    clock.advance(60_000);
    await look(sender);
    expect(sent).toEqual([]);
  });

  it('sends after a restart what the stopped sender left, once', async () => {
    await tell('payout.declined', 1);
    await tell('payout.unknown', 2);
    const first = recorder();
    first.channel.refusing = true;
    await look(new NoticeSender({ repos, channels: { email: first.channel }, publicUrl: 'https://p', now: clock.now, log: silentLogger, timings: { baseDelayMs: 10 } }));
    clock.advance(10);
    // Another process's sender on the same ledger, as after a restart.
    const again = recorder();
    await look(new NoticeSender({ repos, channels: { email: again.channel }, publicUrl: 'https://p', now: clock.now, log: silentLogger }));
    await look(new NoticeSender({ repos, channels: { email: again.channel }, publicUrl: 'https://p', now: clock.now, log: silentLogger }));
    expect(again.sent.map((s) => s.message.subject)).toEqual(['Payout r1 declined: C501', 'Payout r2 declined: C501']);
    expect(new Set(again.sent.map((s) => s.message.id)).size).toBe(2);
  });
});
