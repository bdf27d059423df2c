// The "pending too long" threshold follows finance's last choice, kept in main's settings (so it
// follows the data directory): taken when the settings arrive, unless the user has typed one
// meanwhile, and saved once a typed value settles.
import { useEffect, useRef } from 'react';
import { useStore } from 'zustand';
import { useStores } from '../../stores/context';

/**
 * `settled`: the threshold after the typing pause, `valid` whether it may be sent. `apply` sets
 * the screen's threshold. Returns what to call when the user types one.
 */
export function useRememberedThreshold(settled: number, valid: boolean, apply: (minutes: number) => void): () => void {
  const app = useStores().app;
  const saved = useStore(app, (state) => state.settings?.reconciliationPendingMinutes);
  const typed = useRef(false);

  useEffect(() => {
    if (!typed.current && saved !== undefined) apply(saved);
  }, [saved, apply]);

  useEffect(() => {
    if (!typed.current || !valid || saved === undefined || settled === saved) return;
    // Remembering is a convenience: if main cannot save it, the threshold still applies on screen.
    app
      .getState()
      .updateSettings({ reconciliationPendingMinutes: settled })
      .catch(() => undefined);
  }, [settled, valid, saved, app]);

  return () => {
    typed.current = true;
  };
}
