// What the signed-in person may do, read off the same role table the team server enforces
// (shared/contract/roles.ts). On a single desk nobody is signed in and everything is allowed.
import { useCallback } from 'react';
import { refusalText, roleAllows } from '../../shared/contract/roles';
import type { InvokeChannel } from '../../shared/contract';
import { useApp } from './context';

export interface Access {
  /** Whether the person may call this channel. */
  can(channel: InvokeChannel): boolean;
  /** Why not, in words (for a disabled control's title and note), or null when they may. */
  why(channel: InvokeChannel): string | null;
}

export function useAccess(): Access {
  const role = useApp((state) => state.team?.person?.role ?? null);
  const can = useCallback((channel: InvokeChannel) => roleAllows(role, channel), [role]);
  const why = useCallback(
    (channel: InvokeChannel) => (role === null || roleAllows(role, channel) ? null : refusalText(role, channel)),
    [role],
  );
  return { can, why };
}
