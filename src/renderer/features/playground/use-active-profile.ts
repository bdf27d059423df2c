import { useEffect } from 'react';
import type { ProfileView } from '../../../shared/contract';
import { useProfiles } from '../../stores/context';

/** The profile every playground request goes to; follows the user's switch in Settings (profiles push). */
export function useActiveProfile(): { profile: ProfileView | null; loading: boolean; error: string | null } {
  const profiles = useProfiles((state) => state.profiles);
  const error = useProfiles((state) => state.loadError);
  const load = useProfiles((state) => state.load);
  useEffect(() => {
    if (profiles === null) void load();
  }, [profiles, load]);
  return { profile: profiles?.find((p) => p.isActive) ?? null, loading: profiles === null && error === null, error };
}
