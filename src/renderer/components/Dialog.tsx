import { Modal, type ModalProps } from '@mantine/core';
import { useCallback, useEffect, useLayoutEffect, useRef } from 'react';

/**
 * Mantine's Modal, giving the focus back to what had it when the dialog opened. Mantine's own
 * return skips that when the dialog closes before its focus trap has moved the focus in (Escape
 * right after the Enter that opened it): the trap's deferred focus then lands in the closing
 * dialog, and the focus is lost with it.
 */
export function Dialog({ opened, onExitTransitionEnd, ...props }: ModalProps) {
  const opener = useRef<HTMLElement | null>(null);
  const root = useRef<HTMLDivElement>(null);
  /** The return scheduled as the dialog finished closing, until it runs. */
  const returning = useRef<number | undefined>(undefined);
  /** Shown now; and closed with its focus not given back yet (its exit may be cut short by opening it again). */
  const shown = useRef(false);
  const closing = useRef(false);
  const cancelReturn = () => {
    window.clearTimeout(returning.current);
    returning.current = undefined;
  };
  // Before the trap's deferred focus: what has the focus now is what opened the dialog.
  useLayoutEffect(() => {
    if (!opened) {
      closing.current = shown.current;
      shown.current = false;
      return;
    }
    shown.current = true;
    const reopened = closing.current;
    closing.current = false;
    // Opened again before the focus came back from its last closing: the return must not take the focus out of it.
    cancelReturn();
    // ...and what had the focus before that closing still gets it back after this one.
    const away = focusAway(root.current);
    if (reopened && away) return;
    const active = document.activeElement;
    opener.current = !away && active instanceof HTMLElement ? active : null;
  }, [opened]);
  useEffect(() => cancelReturn, []);
  const giveBack = useCallback(() => {
    onExitTransitionEnd?.();
    // A timer after the trap's, which may still have been pending when the dialog closed.
    cancelReturn();
    returning.current = window.setTimeout(() => {
      returning.current = undefined;
      closing.current = false;
      const target = opener.current;
      if (target?.isConnected && focusAway(root.current)) target.focus({ preventScroll: true });
    });
  }, [onExitTransitionEnd]);
  return <Modal ref={root} opened={opened} {...props} returnFocus={false} onExitTransitionEnd={giveBack} />;
}

/** The focus is on nothing the page keeps: nowhere, on the body, on an element removed, or in this dialog. */
function focusAway(dialog: HTMLElement | null): boolean {
  const active = document.activeElement;
  return active === null || active === document.body || !active.isConnected || (dialog?.contains(active) ?? false);
}
