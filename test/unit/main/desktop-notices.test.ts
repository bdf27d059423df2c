// A desk shows each new notice on the desktop once (Electron's Notification, passed in),
// and a click opens the screen it links to; nothing else on the bus, and nothing where the
// platform cannot show notifications.
import { describe, expect, it } from 'vitest';
import type { NoticeView } from '../../../src/shared/contract';
import { showDesktopNotices } from '../../../src/main/desktop-notices';
import { EventBus } from '../../../src/main/services/event-bus';

const notice = (id: number): NoticeView => ({ id, kind: 'payout.declined', title: `Payout po-${id} declined: C501`, body: 'General gateway declined', link: `#/payouts/${id}`, createdAt: '2026-12-04T10:00:00.000Z', read: false });

function desktop(supported = true) {
  const events = new EventBus();
  const shown: { title: string; body: string; click: () => void }[] = [];
  const opened: string[] = [];
  const stop = showDesktopNotices({
    events,
    supported: () => supported,
    create: ({ title, body }) => {
      const entry = { title, body, click: () => {} };
      return {
        on: (_event, listener) => (entry.click = listener),
        show: () => shown.push(entry),
      };
    },
    open: (link) => opened.push(link),
  });
  return { events, shown, opened, stop };
}

describe('desktop notices on a desk', () => {
  it('shows each notice pushed once, and a click opens its screen', () => {
    const { events, shown, opened } = desktop();
    events.publish('notices:inbox-changed', { unread: 2, added: [notice(1), notice(2)] });
    events.publish('notices:inbox-changed', { unread: 2, added: [notice(2)] });
    events.publish('notices:inbox-changed', { unread: 1, added: [] });
    events.publish('settings:settings-changed', {} as never);
    expect(shown.map((n) => [n.title, n.body])).toEqual([
      ['Payout po-1 declined: C501', 'General gateway declined'],
      ['Payout po-2 declined: C501', 'General gateway declined'],
    ]);
    shown[1]!.click();
    expect(opened).toEqual(['#/payouts/2']);
  });

  it('shows nothing where the platform has no notifications, and nothing once stopped', () => {
    const none = desktop(false);
    none.events.publish('notices:inbox-changed', { unread: 1, added: [notice(1)] });
    expect(none.shown).toEqual([]);
    const stopped = desktop();
    stopped.stop();
    stopped.events.publish('notices:inbox-changed', { unread: 1, added: [notice(1)] });
    expect(stopped.shown).toEqual([]);
  });
});
