// A browser's own desktop notifications (the Notification API), for web mode and a team server's
// page: shown only once the person allowed them (asked by a click, never on load). The Electron
// app has no need: main shows its notices with Electron's Notification (src/main/desktop-notices.ts).
import { useMemo, useState } from 'react';
import type { NoticeView } from '../../shared/contract';

export interface BrowserNotices {
  /** The browser can show them and the person has not answered yet. */
  askable: boolean;
  ask(): Promise<void>;
  show(notices: readonly NoticeView[]): void;
}

const supported = () => typeof window !== 'undefined' && !window.paydesk && 'Notification' in window;

export function useBrowserNotices(): BrowserNotices {
  const [permission, setPermission] = useState(() => (supported() ? Notification.permission : 'denied'));
  return useMemo(
    () => ({
      askable: supported() && permission === 'default',
      async ask() {
        setPermission(await Notification.requestPermission());
      },
      show(notices) {
        if (!supported() || Notification.permission !== 'granted') return;
        for (const notice of notices) {
          // One per notice however many tabs show it: the browser replaces a notification of the same tag.
          const shown = new Notification(notice.title, { body: notice.body, tag: `paydesk-notice-${notice.id}` });
          shown.onclick = () => {
            window.focus();
            window.location.hash = notice.link;
          };
        }
      },
    }),
    [permission],
  );
}
