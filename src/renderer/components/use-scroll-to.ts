// A section a link names (`#/settings?section=listener`, a notice's `?section=team`) scrolled to
// the top of the window once it is shown, below the app's fixed header (AppShell's header offset).
// The sections above it load their data after it is shown and push it down: it is kept in place
// while the page grows, until the page settles or the person scrolls or acts themselves.
import { useEffect, useRef, type RefObject } from 'react';

/** How long the section is kept in place while what is above it loads. */
const SETTLE_MS = 3_000;
/** What a person does that ends the keeping: their own scroll, key or pointer. */
const PERSON_EVENTS = ['wheel', 'touchstart', 'keydown', 'pointerdown'] as const;

export function useScrollTo<T extends HTMLElement>(focus: boolean): RefObject<T | null> {
  const ref = useRef<T>(null);
  useEffect(() => {
    const element = ref.current;
    if (!focus || !element) return;
    element.style.scrollMarginTop = 'calc(var(--app-shell-header-offset, 0px) + var(--mantine-spacing-md))';
    const scroll = () => element.scrollIntoView({ block: 'start' });
    scroll();
    const follow = new ResizeObserver(scroll);
    follow.observe(document.body);
    const stop = () => {
      follow.disconnect();
      window.clearTimeout(timer);
      for (const name of PERSON_EVENTS) window.removeEventListener(name, stop);
    };
    const timer = window.setTimeout(stop, SETTLE_MS);
    for (const name of PERSON_EVENTS) window.addEventListener(name, stop, { passive: true });
    return stop;
  }, [focus]);
  return ref;
}
