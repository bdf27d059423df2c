// A desk's notices on the desktop (docs/notifications.md): each new notice pushed to the
// screens is shown with Electron's Notification, and a click brings the window forward on the
// screen the notice links to. Electron is passed in (its Notification and the window), so the rule
// is tested without it; the browser's own notifications are the renderer's (shell/browser-notices.ts).
import type { NoticeView } from '../shared/contract';
import type { EventBus } from './services/event-bus';

/** What is used of Electron's Notification. */
export interface DesktopNotification {
  on(event: 'click', listener: () => void): unknown;
  show(): void;
}

export interface DesktopNoticesDeps {
  events: EventBus;
  /** Electron's `Notification.isSupported()`. */
  supported: () => boolean;
  /** `new Notification(options)`. */
  create: (options: { title: string; body: string; silent?: boolean }) => DesktopNotification;
  /** Brings the window forward on this hash route (a notice's link). */
  open: (link: string) => void;
}

/** Shows each notice once, as it is first pushed; returns the unsubscribe. */
export function showDesktopNotices(deps: DesktopNoticesDeps): () => void {
  const shown = new Set<number>();
  return deps.events.subscribe((channel, payload) => {
    if (channel !== 'notices:inbox-changed' || !deps.supported()) return;
    for (const notice of (payload as { added: NoticeView[] }).added) {
      if (shown.has(notice.id)) continue;
      shown.add(notice.id);
      const note = deps.create({ title: notice.title, body: notice.body });
      note.on('click', () => deps.open(notice.link));
      note.show();
    }
  });
}
