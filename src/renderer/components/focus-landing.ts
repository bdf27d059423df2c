// Where the keyboard's focus goes when an action replaces the content it was in (WCAG 2.4.3):
//   - an action that keeps its control (Re-read status, Export evidence pack, Approve…) leaves the
//     focus on that control: a button showing its loader is disabled meanwhile, and the browser
//     drops the focus of a disabled element to <body> (useAction gives it back, restoreFocus);
//   - an action that opens other content (a search result, a row of a list, a code's transactions)
//     asks for the focus to land on the heading of what opens (requestLandingFocus), which takes
//     it once it is shown (useLandingFocus), even after its data loaded.
import { useEffect, useRef, type RefObject } from 'react';

/** How long a request waits for its heading: the content it opens may first load its data. */
const REQUEST_MS = 10_000;
let requestedAt: number | null = null;

/** The focus is on nothing a person can see: nowhere, on the body, or on an element removed. */
export function focusLost(): boolean {
  const active = document.activeElement;
  return active === null || active === document.body || !active.isConnected;
}

/** The next landing heading shown takes the focus (an opened search result, an opened row). */
export function requestLandingFocus(): void {
  requestedAt = Date.now();
}

/**
 * A heading (give it tabIndex={-1}) that takes the focus when it is shown, `ready` once its content
 * is there: when an action asked for it, or when the focus was lost with what it replaced.
 */
export function useLandingFocus<T extends HTMLElement>(ready = true): RefObject<T | null> {
  const ref = useRef<T>(null);
  useEffect(() => {
    const element = ref.current;
    if (!ready || !element) return;
    const asked = requestedAt !== null && Date.now() - requestedAt < REQUEST_MS;
    if (!asked) return;
    requestedAt = null;
    element.focus();
  }, [ready]);
  return ref;
}

/**
 * Gives the focus back to `control` once it can take it again (its loader gone), when nothing else
 * took it meanwhile; bounded to a second of frames.
 */
export function restoreFocus(control: HTMLElement | null): void {
  if (control === null) return;
  let frames = 60;
  const attempt = () => {
    if (!control.isConnected || !focusLost()) return;
    if (control.matches(':disabled') && frames-- > 0) {
      requestAnimationFrame(attempt);
      return;
    }
    control.focus({ preventScroll: true });
  };
  requestAnimationFrame(attempt);
}

/** What has the focus now, when it is a control of the page (not the body). */
export function focusedControl(): HTMLElement | null {
  const active = document.activeElement;
  return active instanceof HTMLElement && active !== document.body ? active : null;
}
