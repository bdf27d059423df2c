import { Select } from '@mantine/core';
import { useProfiles } from '../stores/context';

interface Props {
  /** The chosen profile's id; null: all profiles. */
  value: string | null;
  onChange: (profileId: string | null) => void;
  error?: string;
  w: number;
}

/**
 * A list's Profile filter: one of the profiles by name, or (cleared) all of them. Archived profiles
 * are offered apart, last: their transactions stay in the lists and can still be filtered.
 */
export function ProfileFilter({ value, onChange, error, w }: Props) {
  const profiles = useProfiles((state) => state.profiles) ?? [];
  const option = (profile: { id: string; name: string }) => ({ value: profile.id, label: profile.name });
  const archived = profiles.filter((profile) => profile.archivedAt !== null);
  const data = [...profiles.filter((profile) => profile.archivedAt === null).map(option), ...(archived.length > 0 ? [{ group: 'Archived', items: archived.map(option) }] : [])];
  return (
    <Select
      label="Profile"
      placeholder="All profiles"
      clearable
      value={value}
      onChange={onChange}
      data={data}
      error={error}
      w={w}
    />
  );
}
